"""Adapter: rule collect_scores -> one sorted tidy table."""

import pandas as pd

from biasbench.io import read_tsv, write_tsv
from biasbench.jobs import start_job
from biasbench.rows import sort_rows

sm = snakemake  # noqa: F821
start_job(sm)
write_tsv(sm.output[0], sort_rows(pd.concat([read_tsv(p) for p in sm.input], ignore_index=True)))
