"""Adapter: rule lpbs_templates -> biasbench.models.logprobs + biasbench.scoring.score: each
test's scores and its templates' log-probabilities, through the cache of per-test results,
the model loaded once, for the first test the cache does not hold."""

from functools import cache, partial

from biasbench import paths
from biasbench.data.templates import load_double_templates
from biasbench.data.wordsets import LpbsSpec, check_distinct_after, read_wordset_files
from biasbench.io import read_sealed, signature_of, write_npz, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.load import (
    load_language_model,
    stimulus_normaliser,
    tokenizer_vocabulary_test,
)
from biasbench.models.logprobs.causal import causal_log_probs
from biasbench.models.logprobs.common import naming_too_long
from biasbench.models.logprobs.masked import mlm_log_probs
from biasbench.scoring import TemplateProbabilities, score
from biasbench.scoring.settings import ScoreSettings
from biasbench.test_cache import job_works, run_job_tests

sm = snakemake  # noqa: F821
start_job(sm)


@cache
def loaded():
    return load_job_model(sm, load_language_model)


def compute(work, files):
    spec, model, tokenizer, masked = loaded()
    roles = sm.params.tests[work.test]
    if masked:
        log_probs = partial(mlm_log_probs, model, tokenizer)
    else:
        log_probs = partial(causal_log_probs, model, tokenizer, batch=sm.params.batch)
    wordsets = {ws.descriptor: ws for ws in read_wordset_files(roles["wordsets"])}
    for ws in wordsets.values():  # stimuli the model cannot tell apart fail before any scoring
        check_distinct_after(
            ws.sets, stimulus_normaliser(spec, tokenizer), f"{ws.test}/{ws.descriptor}"
        )
    (templates,) = roles["templates"]
    probabilities = TemplateProbabilities(
        log_probs=log_probs,
        in_vocabulary=tokenizer_vocabulary_test(tokenizer),
        wordsets=wordsets,
        spec=LpbsSpec.from_json(read_sealed(roles["spec"][0])),
        templates=load_double_templates(templates, paths.external),
        encoding="mlm" if masked else "causal",
    )
    with naming_too_long(
        f"LPBS templates {templates} on {spec.name}",
        "Use shorter templates or a model with a longer context",
    ):
        frame = score(
            probabilities,
            model=spec.name,
            settings=ScoreSettings(seed=sm.params.seed, **sm.params.scoring),
            signature=signature_of(work.inputs),
        )
    write_tsv(files["scores"], frame)
    write_npz(files["logprobs"], probabilities.arrays)


run_job_tests(sm, job_works(sm), compute, "lpbs_templates.py")
