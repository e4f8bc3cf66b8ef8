"""Adapter: rule prepare_model -> biasbench.models.prepare_model."""

from pathlib import Path

import torch

from biasbench.jobs import start_job
from biasbench.models.prepare import prepare_model
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
start_job(sm)
torch.set_num_threads(sm.threads)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
prepare_model(spec, Path(sm.output[0]).parent)
