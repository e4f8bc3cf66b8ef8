"""Adapter: rule dataset_scores -> biasbench.models.logprobs.Engine + biasbench.scoring.datasets."""

import json
from pathlib import Path

import torch

from biasbench.io import log_to, signature_of, write_text, write_tsv
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.models.specs import ModelSpec
from biasbench.scoring.datasets import score_dataset
from biasbench.scoring.settings import ScoreSettings

sm = snakemake  # noqa: F821
log_to(sm.log[0])
torch.set_num_threads(sm.threads)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
model, tokenizer, masked = load_language_model(spec, Path(sm.input.model).parent)
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
write_text(sm.output.coverage, json.dumps(coverage, sort_keys=True) + "\n")
