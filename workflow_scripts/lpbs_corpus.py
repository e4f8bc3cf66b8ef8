"""Adapter: rule lpbs_corpus -> biasbench.models.logprobs + biasbench.scoring.score."""

from functools import partial

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

sm = snakemake  # noqa: F821
start_job(sm)
lpbs = sm.params.lpbs
wordsets = {ws.descriptor: ws for ws in read_wordset_files(sm.input.wordsets)}
contexts = pair_contexts(read_tsv(sm.input.pairs), wordsets)
spec, model, tokenizer, masked = load_job_model(sm, load_language_model)
for ws in wordsets.values():  # stimuli the model cannot tell apart fail before any scoring
    check_distinct_after(
        ws.sets, stimulus_normaliser(spec, tokenizer), f"{ws.test}/{ws.descriptor}"
    )
probe = mlm_context_log_probs if masked else causal_context_log_probs
with naming_too_long(
    f"LPBS contexts {sm.input.pairs} on {spec.name}",
    "Lower lpbs.max_gap (the most words between target and attribute: shorter contexts) or "
    "use a model with a longer context",
):
    contexts = with_log_probs(contexts, partial(probe, model, tokenizer))
print(f"{len(contexts)} contexts of {contexts.groupby(['target', 'attribute']).ngroups} pairs")
probabilities = PairContextProbabilities(
    contexts=contexts,
    wordsets=wordsets,
    in_vocabulary=tokenizer_vocabulary_test(tokenizer),
    corpus=sm.wildcards.corpus,
    test=sm.wildcards.test,
    encoding="mlm" if masked else "causal",
    max_gap=lpbs["max_gap"],
    windows=lpbs["window_sweep"],
    primary_descriptor="names" if "names" in wordsets else next(iter(wordsets)),
)
rows = score(
    probabilities,
    model=spec.name,
    settings=ScoreSettings(seed=sm.params.seed, **sm.params.scoring),
    signature=signature_of([sm.input.pairs, *sm.input.wordsets, sm.input.model]),
)
(sweep,) = probabilities.sweep
samples = probabilities.samples
write_tsv(sm.output.scores, rows)
write_tsv(sm.output.sweep, sweep)
write_npz(sm.output.samples, samples)
write_npz(
    sm.output.logprobs,
    log_prob_arrays(
        contexts,
        probabilities.encoding,
        model=spec.name,
        corpus=sm.wildcards.corpus,
        test=sm.wildcards.test,
    ),
)
