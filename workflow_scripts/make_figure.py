"""Adapter: rule figure -> biasbench.figures."""

import pandas as pd

from biasbench.figures import FIGURES
from biasbench.io import log_to, read_tsv

sm = snakemake  # noqa: F821
log_to(sm.log[0])
scores = pd.concat([read_tsv(p) for p in sm.input.scores], ignore_index=True)
FIGURES[sm.wildcards.figure](scores, sm.output.png, sm.output.pdf)
