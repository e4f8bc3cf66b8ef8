"""Adapter: rule injected_scores -> biasbench.studies.groundtruth.surgery.study_models + the
data-set measures (biasbench.scoring.score) on the items of the injected category (gender), for
every study model of every mean and the refits of some (the test-retest facet; the frozen lower
layers computed once for all, each data set read and sampled once for all), and again on
complementary halves of the items (the league's split-half reliability; the engine remembers
every item)."""

from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from biasbench import rows
from biasbench.data.datasets import dataset_items
from biasbench.io import load_tensors, read_json, signature_of, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import log_model, start_model_job
from biasbench.models.logprobs import Engine
from biasbench.models.logprobs.engine import RememberingEngine
from biasbench.scoring import DatasetItems, score
from biasbench.scoring.datasets import OUTCOME_COLUMNS, WITH_OUTCOMES
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies.groundtruth.every_method import (
    HALVES_COLUMNS,
    dataset_halves,
    refit_facet,
)
from biasbench.studies.groundtruth.states import load_study_lm
from biasbench.studies.groundtruth.surgery import study_models
from biasbench.studies.groundtruth.truth import INJECTED_CATEGORY

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
base, tokenizer = load_study_lm(str(Path(sm.input.model).parent), **compute)
log_model(base)
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring)
items = {
    d: dataset_items(
        d,
        dict(sm.params.files[d]),
        sm.params.limits.get(d),
        sm.params.seed,
        category=INJECTED_CATEGORY,
    )[0]
    for d in sm.params.datasets
}
frozen = {}  # the frozen lower layers' states: the same for every model of every mean


def score_mean(records_file, weights_file, out_scores, out_robustness, out_outcomes):
    """Every study model of one mean (its files in, its three files out)."""
    weights = load_tensors(weights_file)
    records = read_json(records_file)["models"]
    signature = signature_of(
        [weights_file, *sm.input.files, sm.input.model],
        f"limits:{sorted(sm.params.limits.items())} category:{INJECTED_CATEGORY}",
    )
    frames, refit_frames, halves, outcomes = [], [], [], []
    names = [r["name"] for r in records]  # every model: the league's filter is a sensitivity row
    refits = {r["refit"]: r["name"] for r in records if r.get("refit")}
    every = names + list(refits)
    models = study_models(base, weights, every, frozen)
    for name, model in tqdm(models, total=len(every), desc="study models"):
        engine = RememberingEngine(Engine(model, tokenizer, True, sm.params.batch))
        for dataset in sm.params.datasets:
            found = []  # the items' outcomes of a study model (the paired-comparison check)
            wanted = dataset in WITH_OUTCOMES and name not in refits
            (refit_frames if name in refits else frames).append(
                score(
                    DatasetItems(
                        dataset=dataset,
                        engine=engine,
                        items=items[dataset],
                        outcomes=found if wanted else None,
                    ),
                    model=name,
                    settings=settings,
                    signature=signature,
                )
            )
            outcomes += [f.assign(dataset=dataset).assign(model=name) for f in found]
        if name in refits:  # a refit's whole scores only: the test-retest facet
            continue
        halves += dataset_halves(
            engine,
            items,
            model=name,
            settings=settings,
            splits=sm.params.splits,
        )
    write_tsv(out_scores, pd.concat(frames, ignore_index=True) if frames else rows.frame([]))
    write_tsv(
        out_outcomes,
        pd.concat(outcomes, ignore_index=True)[["model", "dataset", *OUTCOME_COLUMNS]]
        if outcomes
        else pd.DataFrame(columns=["model", "dataset", *OUTCOME_COLUMNS]),
    )
    facet = refit_facet(pd.concat(frames + refit_frames), refits) if frames else None
    write_tsv(out_robustness, pd.concat([pd.DataFrame(halves, columns=HALVES_COLUMNS), facet]))


o = sm.output
for files in zip(
    sm.input.records, sm.input.weights, o.scores, o.robustness, o.outcomes, strict=True
):
    score_mean(*files)
