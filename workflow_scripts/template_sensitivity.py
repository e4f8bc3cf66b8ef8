"""Adapter: rule template_sensitivity -> biasbench.studies.delobelle2022."""

from pathlib import Path

import yaml

from biasbench.io import write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.load import load_transformer
from biasbench.studies import delobelle2022 as study

sm = snakemake  # noqa: F821
start_job(sm)
_spec, model, tokenizer, is_decoder = load_job_model(sm, load_transformer)
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
