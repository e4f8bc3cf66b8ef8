"""Adapter: rule figure -> biasbench.figures."""

from biasbench.figures import FIGURES
from biasbench.io import log_to, read_tsv

sm = snakemake  # noqa: F821
log_to(sm.log[0])
FIGURES[sm.wildcards.figure](read_tsv(sm.input.scores), sm.output.png, sm.output.pdf)
