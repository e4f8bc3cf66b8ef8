"""Adapter: rule collect_scores -> one sorted tidy table."""

import pandas as pd

from biasbench.io import log_to, read_tsv, write_tsv
from biasbench.rows import sort_rows

sm = snakemake  # noqa: F821
log_to(sm.log[0])
write_tsv(sm.output[0], sort_rows(pd.concat([read_tsv(p) for p in sm.input], ignore_index=True)))
