"""Adapter: rule dataset_scores__<model> -> biasbench.models.logprobs.Engine +
biasbench.scoring.dataset_stage: each data set's rows, coverage and outcomes; then what the
studies read of the model's probabilities (biasbench.studies.delobelle2022.template_kl,
biasbench.models.generate.sample_texts). Each through the cache of per-test results, the
model loaded once, for the first of them the cache does not hold."""

from functools import cache

import pandas as pd

from biasbench.config import read_yaml
from biasbench.io import signature_of, write_json, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.generate import sample_texts
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.scoring.dataset_stage import score_dataset
from biasbench.scoring.settings import ScoreSettings
from biasbench.stats import derived_seed
from biasbench.studies import delobelle2022
from biasbench.test_cache import job_works, run_job_study, run_job_tests

sm = snakemake  # noqa: F821
start_job(sm)
SCRIPT = "dataset_scores.py"


@cache
def loaded():
    return load_job_model(sm, load_language_model)


def dataset(work, files):
    spec, model, tokenizer, masked = loaded()
    roles = {r: f for r, f in sm.params.tests[work.test].items() if r != "model"}
    limit = work.settings["limits"]
    frame, coverage, outcomes = score_dataset(
        Engine(model, tokenizer, masked, batch=sm.params.batch),
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


def template_kl(_work, files):
    _spec, model, tokenizer, masked = loaded()
    (templates,), (lists,) = sm.input.templates, sm.input.lists
    gendered = read_yaml(lists)["gendered"]
    frame = delobelle2022.template_kl(
        Engine(model, tokenizer, masked),
        read_yaml(templates)["templates"],
        gendered["female"] + gendered["male"],
        candidates=sm.params.kl["kl_candidates"],
    )
    write_tsv(files["kl"], frame)


def divdist_generate(_work, files):
    _spec, model, tokenizer, masked = loaded()
    if masked:
        raise ValueError(
            f"{sm.rule}: {sm.wildcards.model} is a masked LM; sampling needs a causal LM"
        )
    g = sm.params.generation
    texts = sample_texts(
        model,
        tokenizer,
        g["samples"],
        g["tokens"],
        temperature=g["temperature"],
        seed=derived_seed(sm.params.seed, "divdist_generate", sm.wildcards.model),
        batch=g["batch"],
    )
    write_tsv(files["generated"], pd.DataFrame({"text": texts}))


data_sets = ["scores", "coverage", "outcomes"]
run_job_tests(sm, job_works(sm, per_test=["limits"], roles=data_sets), dataset, SCRIPT)
# what reaches a study's numbers: the model, its precision, the study's settings (and the seed)
shared = {"spec": sm.params.spec, "dtype": sm.params.dtype}
run_job_study(
    sm,
    "template_kl",
    "kl",
    template_kl,
    [*sm.input.templates, *sm.input.lists],
    {**shared, "study": sm.params.kl},
    SCRIPT,
)
generation = {"generation": sm.params.generation, "seed": sm.params.seed}
run_job_study(
    sm, "divdist_generate", "generated", divdist_generate, [], {**shared, **generation}, SCRIPT
)
