"""ELMo (Peters et al., 2018) for the HDF5 contract of ``biasbench.models.extract``.

AllenNLP, which runs ELMo, does not install beside this library's torch and Python, so ELMo runs
in its own environment (``envs/elmo.yaml``) and does one thing there: a list of token lists in,
the three layers of every token out (``workflow_scripts/elmo_layers.py``). This module does the
rest in the main environment: it tokenises the contexts (words and punctuation, with character
offsets, as ELMo expects a list of tokens: passing a whole string, the bug Husse & Spitz found
in the SEAT code, embeds its characters) and pools the layers as the paper does: a word is the
sum over the three layers of its tokens' vectors (mean over its tokens for ``word/mean``, the
first and last token for ``word/first`` / ``word/last``); a sentence is the mean over its
tokens, summed over the layers (``sent/mean``). ``layer`` 0, 1 or 2 takes one layer instead.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from biasbench.encodings import WORD_ENCODINGS
from biasbench.io import read_npz

ELMO_TOKEN = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]")
LAYERS, DIM = 3, 1024


def tokenize(sentences: list[str]) -> tuple[list[list[str]], list[list[tuple[int, int]]]]:
    """Tokens of each sentence and their character ranges."""
    tokens, offsets = [], []
    for sentence in sentences:
        found = list(ELMO_TOKEN.finditer(sentence))
        tokens.append([m.group() for m in found])
        offsets.append([(m.start(), m.end()) for m in found])
    return tokens, offsets


def pool(
    contexts: pd.DataFrame,
    sentences: list[str],
    offsets: list[list[tuple[int, int]]],
    layers: list[np.ndarray],
    layer: int = -1,
) -> dict[str, np.ndarray]:
    """The encodings of every context row from the per-sentence layer outputs (each
    (3, tokens, dim)): see the module doc; ``valid`` is False where no token covers the span."""
    if any(a.ndim != 3 or a.shape[0] != LAYERS for a in layers):
        raise ValueError(
            f"ELMo layers must be (3, tokens, dim) per sentence, got {layers[0].shape}"
        )
    combined = [a.sum(axis=0) if layer == -1 else a[layer] for a in layers]  # (tokens, dim)
    index = {s: i for i, s in enumerate(sentences)}
    dim = combined[0].shape[1] if combined else DIM
    out = {k: np.zeros((len(contexts), dim), np.float32) for k in ("sent/mean", *WORD_ENCODINGS)}
    valid = np.zeros(len(contexts), bool)
    for r, row in enumerate(contexts.itertuples(index=False)):
        i = index[row.sentence]
        vectors = combined[i]
        if len(vectors):
            out["sent/mean"][r] = vectors.mean(axis=0)
        span = [k for k, (a, b) in enumerate(offsets[i]) if a < row.end and b > row.start]
        if span:
            valid[r] = True
            out["word/mean"][r] = vectors[span].mean(axis=0)
            out["word/first"][r] = vectors[span[0]]
            out["word/last"][r] = vectors[span[-1]]
    out["valid"] = valid
    return out


def read_layers(path) -> list[np.ndarray]:
    """The per-sentence (3, tokens, dim) layers the ELMo environment wrote
    (``workflow_scripts/elmo_layers.py``: all tokens in order, and each sentence's length)."""
    data = read_npz(path)
    flat, lengths = data["layers"], data["lengths"]
    if flat.ndim != 3 or flat.shape[1] != LAYERS or int(lengths.sum()) != len(flat):
        raise ValueError(f"{path}: not ELMo layers ({flat.shape}, {int(lengths.sum())} tokens)")
    return [a.transpose(1, 0, 2) for a in np.split(flat, np.cumsum(lengths)[:-1])]


def single_token_stimuli(stimuli) -> list[str]:
    """The stimuli ELMo reads as one token (the reduced target sets)."""
    return sorted(s for s in set(stimuli) if len(ELMO_TOKEN.findall(s)) == 1)
