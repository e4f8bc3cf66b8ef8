"""Adapter: rule elmo_tokens -> biasbench.models.elmo.tokenize."""

import pandas as pd

from biasbench.io import read_tsv, write_json
from biasbench.jobs import start_job
from biasbench.models.elmo import tokenize

sm = snakemake  # noqa: F821
start_job(sm)
contexts = pd.concat([read_tsv(p) for p in sm.input.contexts], ignore_index=True)
sentences = list(dict.fromkeys(contexts["sentence"]))
tokens, offsets = tokenize(sentences)
write_json(sm.output[0], {"sentences": sentences, "tokens": tokens, "offsets": offsets})
