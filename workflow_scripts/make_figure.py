"""Adapter: rule figure -> biasbench.figures."""

from biasbench.figures import FIGURES
from biasbench.io import log_to

sm = snakemake  # noqa: F821
log_to(sm.log[0])
FIGURES[sm.wildcards.figure](list(sm.input), sm.output.png, sm.output.pdf, sm.params.alpha)
