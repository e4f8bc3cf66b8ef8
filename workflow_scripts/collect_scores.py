"""Adapter: rule collect_scores -> one sorted tidy table."""

import pandas as pd

from biasbench.io import log_to, read_tsv, write_tsv

sm = snakemake  # noqa: F821
log_to(sm.log[0])
frame = pd.concat([read_tsv(p) for p in sm.input], ignore_index=True)
keys = ["method", "model", "source", "test", "descriptor", "encoding"]
write_tsv(sm.output[0], frame.sort_values(keys, kind="stable").reset_index(drop=True))
