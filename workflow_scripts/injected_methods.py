"""Adapter: rule injected_methods -> biasbench.studies.groundtruth.every_method, for every study
model of one mean (the frozen lower layers computed once for all of them) and the refits of
some (the league's test-retest facet across fine-tuning seeds)."""

from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from biasbench import paths
from biasbench.data.templates import load_templates
from biasbench.io import load_tensors, read_json, signature_of, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import log_model, start_model_job
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies.groundtruth.data import read_data
from biasbench.studies.groundtruth.every_method import refit_facet, score_study_models
from biasbench.studies.groundtruth.states import load_study_lm
from biasbench.studies.groundtruth.surgery import study_models

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
i = sm.input
base, tokenizer = load_study_lm(str(Path(i.model).parent), **compute)
log_model(base)
weights = load_tensors(i.weights)
# every model: the learned-bias filter (Schröder et al.'s R² bar) is the league's sensitivity row
records = read_json(i.records)["models"]
names = [r["name"] for r in records]
refits = {r["refit"]: r["name"] for r in records if r.get("refit")}


frozen = {}  # the frozen lower layers' states, computed once for the models and the refits


def score(names, splits):
    return score_study_models(
        tqdm(study_models(base, weights, names, frozen), total=len(names), desc="study models"),
        tokenizer,
        read_data(i.occupations, i.train, i.test, i.pairs, i.professions),
        load_templates(i.templates, paths.external),
        settings=ScoreSettings(seed=sm.params.seed, **sm.params.scoring),
        signature=signature_of(
            [
                i.weights,
                i.model,
                i.occupations,
                i.test,
                i.pairs,
                i.professions,
                i.templates,
                *i.external,
            ]
        ),
        extraction=sm.params.extraction,
        splits=splits,
        negative=sm.params.negative,
    )


scores, robustness = score(names, sm.params.study["reliability_splits"])
refit_scores, _ = score(list(refits), 0)  # the refits: whole scores, no halves
write_tsv(sm.output.scores, scores)
write_tsv(
    sm.output.robustness,
    pd.concat([robustness, refit_facet(pd.concat([scores, refit_scores]), refits)]),
)
