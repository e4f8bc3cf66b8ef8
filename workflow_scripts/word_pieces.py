"""Adapter: rule word_pieces -> biasbench.models.word_pieces."""

from pathlib import Path

import pandas as pd
from transformers import AutoTokenizer

from biasbench.io import read_tsv, write_tsv
from biasbench.jobs import start_job
from biasbench.models.load import transformer_location
from biasbench.models.specs import ModelSpec
from biasbench.models.word_pieces import COLUMNS, stimulus_pieces

sm = snakemake  # noqa: F821
start_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
tokenizer = AutoTokenizer.from_pretrained(transformer_location(spec, Path(sm.input.model).parent))
frames = [
    stimulus_pieces(tokenizer, read_tsv(path)).assign(test=test, descriptor=descriptor)
    for test, descriptors in sm.params.tests.items()
    for descriptor, path in descriptors.items()
]
write_tsv(sm.output[0], pd.concat(frames, ignore_index=True)[COLUMNS])
