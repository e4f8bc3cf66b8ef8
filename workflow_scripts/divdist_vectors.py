"""Adapter: rule divdist_vectors -> biasbench.models.extract.encode_transformer."""

from pathlib import Path

import numpy as np

from biasbench.io import read_tsv, write_npz
from biasbench.jobs import start_job
from biasbench.models.device import log_model, start_model_job
from biasbench.models.extract import encode_transformer
from biasbench.models.load import load_transformer
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
model, tokenizer, is_decoder = load_transformer(spec, Path(sm.input.model).parent, **compute)
log_model(model)
# only the word vectors are kept: a decoder need not read past the word
encoded = encode_transformer(
    model,
    tokenizer,
    read_tsv(sm.input.contexts),
    prefix_only=is_decoder,
    **sm.params.extraction,
)
vectors = np.where(encoded["valid"][:, None], encoded["word/mean"], np.nan).astype(np.float32)
write_npz(sm.output[0], {"vectors": vectors})
