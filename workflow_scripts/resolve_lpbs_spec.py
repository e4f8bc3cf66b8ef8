"""Adapter: rule lpbs_spec -> biasbench.wordsets.load_lpbs_spec."""

from biasbench import paths
from biasbench.data.wordsets import load_lpbs_spec
from biasbench.io import write_sealed
from biasbench.jobs import start_job

sm = snakemake  # noqa: F821
start_job(sm)
spec = load_lpbs_spec(sm.input.yaml, paths.external)
write_sealed(sm.output[0], spec.to_json() + "\n")
