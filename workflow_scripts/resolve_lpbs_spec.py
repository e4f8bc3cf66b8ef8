"""Adapter: rule lpbs_spec -> biasbench.wordsets.load_lpbs_spec."""

from pathlib import Path

from biasbench.data.wordsets import load_lpbs_spec
from biasbench.io import log_to, write_text

sm = snakemake  # noqa: F821
log_to(sm.log[0])
spec = load_lpbs_spec(sm.input.yaml, lambda i: Path("results/external") / i)
write_text(sm.output[0], spec.to_json() + "\n")
