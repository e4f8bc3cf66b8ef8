"""Adapter: rule dataset_scores_<model> -> biasbench.models.logprobs.Engine +
biasbench.scoring.dataset_stage: each data set's rows, coverage and outcomes, through the cache
of per-test results, the model loaded once, for the first data set the cache does not hold."""

from functools import cache

from biasbench.io import signature_of, write_json, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.scoring.dataset_stage import score_dataset
from biasbench.scoring.settings import ScoreSettings
from biasbench.test_cache import job_works, run_job_tests

sm = snakemake  # noqa: F821
start_job(sm)


@cache
def engine():
    spec, model, tokenizer, masked = load_job_model(sm, load_language_model)
    return spec, Engine(model, tokenizer, masked, batch=sm.params.batch)


def compute(work, files):
    spec, scorer = engine()
    roles = {r: f for r, f in sm.params.tests[work.test].items() if r != "model"}
    limit = work.settings["limits"]
    frame, coverage, outcomes = score_dataset(
        scorer,
        work.test,
        roles,
        limit,
        model=spec.name,
        settings=ScoreSettings(seed=sm.params.seed, **sm.params.scoring),
        signature=signature_of(work.inputs, f"limit:{limit}"),
        too_long=sm.params.too_long,
    )
    write_tsv(files["scores"], frame)
    write_tsv(files["outcomes"], outcomes)
    write_json(files["coverage"], coverage, sort_keys=True)


run_job_tests(sm, job_works(sm, per_test=["limits"]), compute, "dataset_scores.py")
