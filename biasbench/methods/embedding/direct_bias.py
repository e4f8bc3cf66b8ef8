"""Direct Bias (Bolukbasi et al., 2016; Schröder et al. eq. 9).

The bias direction g is the first principal component of the defining pairs, each pair centred
on its mean ({w - mu_i : w in D_i}; for a pair this is +-(a - b)/2). The pairs are the word
set's definitional pairs (A[i], B[i]), declared with ``definitional_pairs: true``, each word
its mean vector over its contexts; a test that declares none (WEAT's pleasant/unpleasant lists
are not pairs) gets "n/a" with the reason. Then, over the words N = X u Y,

    DB_c(N) = mean_N |cos(w, g)|^c,   in [0, 1], 0 the "no bias" value.

With k components (``components``), as the current reference code of Schröder et al.
(HammerLabML/EmbeddingBiasScores, ``geometrical_bias/direct_bias.py``), a word's bias is the
length of its unit vector's projection onto the k-dimensional bias subspace, raised to c:
(sqrt(sum_k cos(w, g_k)^2))^c, again in [0, 1] (their earlier (sum_k |cos(w, g_k)|)^c could
exceed 1). DB is a magnitude (swapping X and Y, or A and B, leaves it unchanged) and has no
significance test.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import (
    ON_STUDY,
    WHY_MAGNITUDE,
    ContextVectors,
    Method,
    Settings,
    Truth,
)
from biasbench.methods.embedding.vectors import pair_vectors, set_items, unit_rows
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
    """(sqrt(sum_k cos(w, g_k)^2))^c per row of ``w``: |cos(w, g)|^c for one component."""
    cos = unit_rows(w, "targets") @ directions(a, b, components).T
    return np.sqrt((cos**2).sum(axis=1)) ** c


def score(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    a, b = pair_vectors(inputs)
    items = {r: set_items(list(inputs.groups[r]), settings.unit) for r in "XY"}
    words = np.concatenate([items["X"], items["Y"]])
    return Score(
        float(word_bias(words, a, b).mean()),
        sizes={"X": len(items["X"]), "Y": len(items["Y"]), "A": len(a), "B": len(b)},
        note="Direct Bias has no significance test",
    )


DIRECT_BIAS = Method(
    "Direct Bias",
    "Bolukbasi et al. (2016)",
    "embedding",
    ContextVectors,
    score,
    reads=("unit",),
    encodings=("word/mean",),
    swap="keeps",
    description="Mean |cos(w, g)| of the target words with the first principal direction g "
    "of the word set's definitional pairs (A[i], B[i]); n/a without them.",
    reference="HammerLabML/EmbeddingBiasScores: geometrical_bias/direct_bias.py; "
    "tolga-b/debiaswe: debiaswe/we.py",
    truth=Truth("magnitude", ON_STUDY, WHY_MAGNITUDE),
)
