"""Direct Bias (Bolukbasi et al., 2016; Schröder et al. eq. 9).

The bias direction g is the first principal component of the defining pairs, each pair centred
on its mean ({w - mu_i : w in D_i}; for a pair this is +-(a - b)/2); the pairs are the attribute
words of A and B taken in order (A[i], B[i]). Then, over the words N = X u Y,

    DB_c(N) = mean_N |cos(w, g)|^c,   in [0, 1], 0 the "no bias" value.

Word level (c = 1): |cos(w, g)|. The reference code of Schröder et al. keeps k components and
computes (sum_k |cos(w, g_k)|)^c: ``components`` > 1 does that. DB is a magnitude (swapping X
and Y, or A and B, leaves it unchanged) and has no significance test.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import ContextVectors, Method, Settings
from biasbench.methods.embedding.vectors import set_items, unit_rows
from biasbench.rows import Score


def pair_centred(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each defining pair's unit vectors minus the pair's mean (pairs: rows in order)."""
    n = min(len(a), len(b))
    if n == 0:
        raise ValueError("Direct Bias needs at least one defining pair")
    a, b = unit_rows(a[:n], "A"), unit_rows(b[:n], "B")
    mid = (a + b) / 2
    return np.concatenate([a - mid, b - mid])


def directions(a: np.ndarray, b: np.ndarray, components: int = 1) -> np.ndarray:
    """The first ``components`` principal directions of the centred pairs (rows, unit)."""
    centred = pair_centred(a, b)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return vt[:components]


def word_bias(w: np.ndarray, a: np.ndarray, b: np.ndarray, c: float = 1.0, components: int = 1):
    """(sum_k |cos(w, g_k)|)^c per row of ``w``."""
    cos = np.abs(unit_rows(w, "targets") @ directions(a, b, components).T)
    return cos.sum(axis=1) ** c


def score(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    items = {r: set_items(list(inputs.groups[r]), settings.unit) for r in "XYAB"}
    words = np.concatenate([items["X"], items["Y"]])
    return Score(
        float(word_bias(words, items["A"], items["B"]).mean()),
        sizes={r: len(items[r]) for r in "XYAB"},
        note="Direct Bias has no significance test",
    )


DIRECT_BIAS = Method(
    "Direct Bias",
    "Bolukbasi et al. (2016)",
    "embedding",
    ContextVectors,
    score,
    encodings=("word/mean",),
    swap="keeps",
    description="Mean |cos(w, g)| of the target words with the first principal direction g "
    "of the attribute pairs (A[i], B[i]).",
)
