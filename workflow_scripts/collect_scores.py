"""Adapter: rule collect_scores -> one sorted tidy table, each row whose permutation test
cannot reach the tables' alpha noted (biasbench.rows.p_floor_notes)."""

import pandas as pd

from biasbench.io import read_tsv, write_tsv
from biasbench.jobs import start_job
from biasbench.rows import p_floor_notes, sort_rows

sm = snakemake  # noqa: F821
start_job(sm)
scores = pd.concat([read_tsv(p) for p in sm.input], ignore_index=True)
write_tsv(sm.output[0], sort_rows(p_floor_notes(scores, sm.params.alpha)))
