"""Adapter: rule elmo_tokens -> biasbench.models.elmo.tokenize."""

import json

import pandas as pd

from biasbench.io import log_to, read_tsv, write_text
from biasbench.models.elmo import tokenize

sm = snakemake  # noqa: F821
log_to(sm.log[0])
contexts = pd.concat([read_tsv(p) for p in sm.input.contexts], ignore_index=True)
sentences = list(dict.fromkeys(contexts["sentence"]))
tokens, offsets = tokenize(sentences)
write_text(sm.output[0], json.dumps({"sentences": sentences, "tokens": tokens, "offsets": offsets}))
