"""Adapter: rule wordset -> biasbench.wordsets.load_wordset."""

from biasbench import paths
from biasbench.data.wordsets import load_wordset
from biasbench.io import write_sealed
from biasbench.jobs import start_job

sm = snakemake  # noqa: F821
start_job(sm)
wordset = load_wordset(sm.input.yaml, sm.wildcards.descriptor, paths.external)
write_sealed(sm.output[0], wordset.to_json() + "\n")
