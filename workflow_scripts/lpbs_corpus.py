"""Adapter: rule lpbs_corpus -> biasbench.models.logprobs + biasbench.scoring.score: each
(corpus, test)'s p-CEAT rows, sweep, samples and log-probabilities, through the cache of
per-test results, the model loaded once, for the first test the cache does not hold."""

from functools import cache, partial

from biasbench.data.wordsets import check_distinct_after, read_wordset_files
from biasbench.io import read_tsv, signature_of, write_npz, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.load import (
    load_language_model,
    stimulus_normaliser,
    tokenizer_vocabulary_test,
)
from biasbench.models.logprobs.causal import causal_context_log_probs
from biasbench.models.logprobs.common import naming_too_long
from biasbench.models.logprobs.masked import mlm_context_log_probs
from biasbench.scoring import PairContextProbabilities, score
from biasbench.scoring.corpus import log_prob_arrays, pair_contexts, with_log_probs
from biasbench.scoring.settings import ScoreSettings
from biasbench.test_cache import job_works, run_job_tests

sm = snakemake  # noqa: F821
start_job(sm)
lpbs = sm.params.lpbs


@cache
def loaded():
    return load_job_model(sm, load_language_model)


def compute(work, files):
    corpus, test = work.test.split("/")
    roles = sm.params.tests[work.test]
    (pairs,) = roles["pairs"]
    wordsets = {ws.descriptor: ws for ws in read_wordset_files(roles["wordsets"])}
    contexts = pair_contexts(read_tsv(pairs), wordsets)
    spec, model, tokenizer, masked = loaded()
    for ws in wordsets.values():  # stimuli the model cannot tell apart fail before any scoring
        check_distinct_after(
            ws.sets, stimulus_normaliser(spec, tokenizer), f"{ws.test}/{ws.descriptor}"
        )
    probe = mlm_context_log_probs if masked else causal_context_log_probs
    with naming_too_long(
        f"LPBS contexts {pairs} on {spec.name}",
        "Lower lpbs.max_gap (the most words between target and attribute: shorter contexts) "
        "or use a model with a longer context",
    ):
        contexts = with_log_probs(contexts, partial(probe, model, tokenizer))
    pairs_scored = contexts.groupby(["target", "attribute"]).ngroups
    print(f"{work.test}: {len(contexts)} contexts of {pairs_scored} pairs")
    probabilities = PairContextProbabilities(
        contexts=contexts,
        wordsets=wordsets,
        in_vocabulary=tokenizer_vocabulary_test(tokenizer),
        corpus=corpus,
        test=test,
        encoding="mlm" if masked else "causal",
        max_gap=lpbs["max_gap"],
        windows=lpbs["window_sweep"],
        primary_descriptor="names" if "names" in wordsets else next(iter(wordsets)),
    )
    rows = score(
        probabilities,
        model=spec.name,
        settings=ScoreSettings(seed=sm.params.seed, **sm.params.scoring),
        signature=signature_of(work.inputs),
    )
    (sweep,) = probabilities.sweep
    write_tsv(files["scores"], rows)
    write_tsv(files["sweep"], sweep)
    write_npz(files["samples"], probabilities.samples)
    write_npz(
        files["logprobs"],
        log_prob_arrays(
            contexts, probabilities.encoding, model=spec.name, corpus=corpus, test=test
        ),
    )


run_job_tests(sm, job_works(sm), compute, "lpbs_corpus.py")
