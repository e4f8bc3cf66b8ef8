"""Adapter: rule template_kl -> biasbench.studies.delobelle2022 on the log-probability engine."""

from pathlib import Path

import yaml

from biasbench.io import write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.studies import delobelle2022 as study

sm = snakemake  # noqa: F821
start_job(sm)
_spec, model, tokenizer, masked = load_job_model(sm, load_language_model)
templates = yaml.safe_load(Path(sm.input.templates).read_text(encoding="utf-8"))["templates"]
gendered = yaml.safe_load(Path(sm.input.lists).read_text(encoding="utf-8"))["gendered"]
frame = study.template_kl(
    Engine(model, tokenizer, masked),
    templates,
    gendered["female"] + gendered["male"],
    candidates=sm.params.study["kl_candidates"],
)
write_tsv(sm.output[0], frame)
