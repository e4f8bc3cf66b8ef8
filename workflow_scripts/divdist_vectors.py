"""Adapter: rule divdist_vectors -> biasbench.models.extract.encode_transformer."""

from pathlib import Path

import numpy as np
import torch

from biasbench.io import atomic_path, log_to, read_tsv
from biasbench.models.extract import encode_transformer
from biasbench.models.load import load_transformer
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
log_to(sm.log[0])
torch.set_num_threads(sm.threads)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
model, tokenizer, is_decoder = load_transformer(spec, Path(sm.input.model).parent)
# only the word vectors are kept: a decoder need not read past the word
encoded = encode_transformer(
    model,
    tokenizer,
    read_tsv(sm.input.contexts),
    prefix_only=is_decoder,
    **sm.params.extraction,
)
vectors = np.where(encoded["valid"][:, None], encoded["word/mean"], np.nan).astype(np.float32)
with atomic_path(sm.output[0]) as tmp, open(tmp, "wb") as fh:
    np.save(fh, vectors)
