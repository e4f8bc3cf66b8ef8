"""Adapter: rule template_sensitivity -> biasbench.studies.delobelle2022."""

from pathlib import Path

import yaml

from biasbench.io import write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import log_model, start_model_job
from biasbench.models.load import load_transformer
from biasbench.models.specs import ModelSpec
from biasbench.studies import delobelle2022 as study

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
model, tokenizer, is_decoder = load_transformer(spec, Path(sm.input.model).parent, **compute)
log_model(model)
templates = yaml.safe_load(Path(sm.input.templates).read_text(encoding="utf-8"))["templates"]
lists = yaml.safe_load(Path(sm.input.lists).read_text(encoding="utf-8"))
frame = study.sensitivity_table(
    model,
    tokenizer,
    is_decoder,
    templates,
    lists,
    n_subsets=sm.params.study["subsets"],
    size=sm.params.study["subset_size"],
    extraction=sm.params.extraction,
)
write_tsv(sm.output[0], frame)
