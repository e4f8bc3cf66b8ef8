"""Adapter: rule provenance -> biasbench.reports.provenance."""

from biasbench.io import read_json, read_tsv, write_text
from biasbench.jobs import start_job
from biasbench.models.device import compute_environment
from biasbench.reports.provenance import provenance_page

sm = snakemake  # noqa: F821
start_job(sm)
models = [read_json(p) for p in sm.input.models]
config = dict(sm.params.config)
compute = compute_environment(config["compute"]["device"])
write_text(sm.output[0], provenance_page(read_tsv(sm.input.scores), models, config, compute))
