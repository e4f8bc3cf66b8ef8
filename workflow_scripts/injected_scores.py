"""Adapter: rule injected_scores -> biasbench.studies.groundtruth.surgery.study_models + the
data-set scorers, for every study model of one mean that learned the bias (the frozen lower
layers computed once for all, each data set read and sampled once for all), and again on
random halves of the items (the league's robustness; the engine remembers every item)."""

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
from biasbench.scoring.datasets import SCORERS
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies.groundtruth.every_method import dataset_halves
from biasbench.studies.groundtruth.states import load_study_lm
from biasbench.studies.groundtruth.surgery import study_models

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
base, tokenizer = load_study_lm(str(Path(sm.input.model).parent), **compute)
log_model(base)
weights = load_tensors(sm.input.weights)
records = read_json(sm.input.records)["models"]
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring).for_source("templates")
signature = signature_of(
    [sm.input.weights, *sm.input.files, sm.input.model],
    f"limits:{sorted(sm.params.limits.items())}",
)
items = {
    d: dataset_items(d, dict(sm.params.files[d]), sm.params.limits.get(d), sm.params.seed)[0]
    for d in sm.params.datasets
}
frames, halves = [], []
names = [r["name"] for r in records if r["kept"]]  # those that learned the bias
for name, model in tqdm(study_models(base, weights, names), total=len(names), desc="study models"):
    engine = RememberingEngine(Engine(model, tokenizer, True, sm.params.batch))
    for dataset in sm.params.datasets:
        frames.append(
            SCORERS[dataset](
                engine,
                items[dataset],
                model=name,
                settings=settings,
                seed=sm.params.seed,
                signature=signature,
            )
        )
    halves += dataset_halves(
        engine,
        items,
        {d: SCORERS[d] for d in sm.params.datasets},
        model=name,
        settings=settings,
        seed=sm.params.seed,
        draws=sm.params.draws,
    )
write_tsv(sm.output.scores, pd.concat(frames, ignore_index=True) if frames else rows.frame([]))
columns = ["model", "method", "resample", "draw", "effect_size"]
write_tsv(sm.output.robustness, pd.DataFrame(halves, columns=columns))
