"""Adapter: rule dataset_scores -> biasbench.models.logprobs.Engine + biasbench.scoring.datasets."""

from pathlib import Path

from biasbench.io import signature_of, write_json, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import log_model, start_model_job
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.models.specs import ModelSpec
from biasbench.scoring.datasets import score_dataset
from biasbench.scoring.settings import ScoreSettings

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
model, tokenizer, masked = load_language_model(spec, Path(sm.input.model).parent, **compute)
log_model(model)
frame, coverage = score_dataset(
    Engine(model, tokenizer, masked, batch=sm.params.batch),
    sm.wildcards.dataset,
    dict(sm.params.files),
    sm.params.limit,
    model=spec.name,
    settings=ScoreSettings(seed=sm.params.seed, **sm.params.scoring).for_source("templates"),
    seed=sm.params.seed,
    signature=signature_of([*sm.input.files, sm.input.model], f"limit:{sm.params.limit}"),
)
write_tsv(sm.output.scores, frame)
write_json(sm.output.coverage, coverage, sort_keys=True)
