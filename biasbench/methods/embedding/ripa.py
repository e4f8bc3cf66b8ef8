"""RIPA, the relational inner product association (Ethayarajh et al., 2019).

The relation vector b is the first principal component of the pair differences a_i - b_i
(the word set's definitional pairs (A[i], B[i]), each word its mean vector over its contexts;
for one pair, (a - b)/||a - b||), oriented towards A; a test that declares no pairs gets
"n/a" with the reason (Direct Bias' rule). A word's
association is the inner product with its raw vector (not normalised: RIPA scales with ||w||,
which Ethayarajh et al. argue is the word's frequency signal):

    RIPA(w) = <w, b>.

Set level: mean_X RIPA - mean_Y RIPA, with a two-sided permutation p over splits of X u Y.

``p_word``: the same statistic and two-sided test with the stimulus word as the unit. The
paper's test is a two-sample permutation of the items of X u Y; where the items are contexts
(unit ``context`` on templates), a word's contexts share its vector's position along b (its
frequency, its norm), so the word-level test splits whole words, every context moving with
its word (the relation b, from the pairs, is the same in every split). Items already words
(static vectors, unit ``stimulus``): ``p_word`` is ``p_value``.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import ON_STUDY, WHY_TEST, ContextVectors, Method, Settings, Truth
from biasbench.methods.embedding.vectors import pair_vectors, set_items, target_difference
from biasbench.rows import Score


def relation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The unit relation vector of the pairs (A[i], B[i]), pointing from B to A."""
    n = min(len(a), len(b))
    if n == 0:
        raise ValueError("RIPA needs at least one pair")
    diffs = np.asarray(a[:n], np.float64) - np.asarray(b[:n], np.float64)
    if n == 1:
        norm = np.linalg.norm(diffs[0])
        if not norm > 0:
            raise ValueError("RIPA: the pair's vectors are equal")
        return diffs[0] / norm
    _, _, vt = np.linalg.svd(diffs, full_matrices=False)
    direction = vt[0]
    return direction if diffs.sum(axis=0) @ direction >= 0 else -direction


def word_association(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray(w, np.float64) @ relation(a, b)


def score(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    a, b = pair_vectors(inputs)
    items = {r: set_items(list(inputs.groups[r]), settings.unit) for r in "XY"}
    values = word_association(np.concatenate([items["X"], items["Y"]]), a, b)
    sizes = {"X": len(items["X"]), "Y": len(items["Y"]), "A": len(a), "B": len(b)}
    return target_difference(values, len(items["X"]), inputs, settings, seed, sizes)


RIPA = Method(
    "RIPA",
    "Ethayarajh et al. (2019)",
    "embedding",
    ContextVectors,
    score,
    reads=("unit", "exact_max", "n_samples"),
    encodings=("word/mean",),
    permutes="targets",
    description="Inner product of the raw word vectors with the relation vector of the "
    "word set's definitional pairs; mean over X minus mean over Y; n/a without them.",
    truth=Truth("difference", ON_STUDY, WHY_TEST),
)
