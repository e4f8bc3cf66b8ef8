"""Adapter: rule collect_scores -> one sorted tidy table of score files with the schema's
columns, each row whose test cannot reach the tables' alpha noted (biasbench.rows)."""

import pandas as pd

from biasbench.io import read_rows, write_tsv
from biasbench.jobs import start_job
from biasbench.rows import p_floor_notes, sort_rows

sm = snakemake  # noqa: F821
start_job(sm)
scores = pd.concat([read_rows(p) for p in sm.input], ignore_index=True)
write_tsv(sm.output[0], sort_rows(p_floor_notes(scores, sm.params.alpha)))
