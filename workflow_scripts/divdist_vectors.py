"""Adapter: rule divdist_vectors -> biasbench.models.extract.encode_transformer."""

import numpy as np

from biasbench.io import read_tsv, write_npz
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.extract import encode_transformer
from biasbench.models.load import load_transformer

sm = snakemake  # noqa: F821
start_job(sm)
_spec, model, tokenizer, is_decoder = load_job_model(sm, load_transformer)
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
