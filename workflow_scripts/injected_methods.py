"""Adapter: rule injected_methods -> biasbench.studies.groundtruth.every_method, for every study
model of every mean (the frozen lower layers computed once for all of them) and the refits of
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
frozen = {}  # the frozen lower layers' states: the same for every model of every mean
data = read_data(i.occupations, i.train, i.test, i.pairs, i.professions)
templates = load_templates(i.templates, paths.external)
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring)


def score(weights_file, weights, names, splits):
    """The study models ``names`` of one mean's file, scored (on halves too: ``splits``)."""
    return score_study_models(
        tqdm(study_models(base, weights, names, frozen), total=len(names), desc="study models"),
        tokenizer,
        data,
        templates,
        settings=settings,
        signature=signature_of(
            [
                weights_file,
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


o = sm.output
for records_file, weights_file, out_scores, out_robustness in zip(
    i.records, i.weights, o.scores, o.robustness, strict=True
):
    weights = load_tensors(weights_file)
    # every model: the learned-bias filter (Schröder et al.'s R² bar) is the league's
    # sensitivity row
    records = read_json(records_file)["models"]
    refits = {r["refit"]: r["name"] for r in records if r.get("refit")}
    scores, robustness = score(
        weights_file, weights, [r["name"] for r in records], sm.params.study["reliability_splits"]
    )
    # the refits: whole scores, no halves
    refit_scores, _ = score(weights_file, weights, list(refits), 0)
    write_tsv(out_scores, scores)
    write_tsv(
        out_robustness,
        pd.concat([robustness, refit_facet(pd.concat([scores, refit_scores]), refits)]),
    )
