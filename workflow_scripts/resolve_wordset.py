"""Adapter: rule wordset -> biasbench.wordsets.load_wordset."""

from pathlib import Path

from biasbench.data.wordsets import load_wordset
from biasbench.io import log_to, write_text

sm = snakemake  # noqa: F821
log_to(sm.log[0])
wordset = load_wordset(
    sm.input.yaml, sm.wildcards.descriptor, lambda i: Path("results/external") / i
)
write_text(sm.output[0], wordset.to_json() + "\n")
