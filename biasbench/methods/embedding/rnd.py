"""Relative norm distance (Garg et al., 2018).

With v_A, v_B the means of the unit vectors of A and B, a word's relative distance is

    rnd(w) = ||ŵ - v_B|| - ||ŵ - v_A||      (> 0: w is nearer A)

Garg et al. sum it over a set of neutral words (occupations); as a test of X vs Y the set
level here is mean_X rnd - mean_Y rnd, with a two-sided permutation p over splits of X u Y.

``p_word``: the same statistic and two-sided test with the stimulus word as the unit. The
test is a two-sample permutation of the items of X u Y; where the items are contexts (unit
``context`` on templates) a word's contexts share the word's distance to v_A and v_B, so the
word-level test splits whole words, every context moving with its word (v_A and v_B, from
the attributes, are the same in every split). Items already words (static vectors, unit
``stimulus``): ``p_word`` is ``p_value``.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import ON_STUDY, WHY_TEST, ContextVectors, Method, Settings, Truth
from biasbench.methods.embedding.vectors import set_items, target_difference, unit_rows
from biasbench.rows import Score


def word_distance(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """rnd(w) per row of ``w``."""
    wu = unit_rows(w, "targets")
    v_a, v_b = unit_rows(a, "A").mean(axis=0), unit_rows(b, "B").mean(axis=0)
    return np.linalg.norm(wu - v_b, axis=1) - np.linalg.norm(wu - v_a, axis=1)


def score(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    items = {r: set_items(list(inputs.groups[r]), settings.unit) for r in "XYAB"}
    values = word_distance(np.concatenate([items["X"], items["Y"]]), items["A"], items["B"])
    sizes = {r: len(items[r]) for r in "XYAB"}
    return target_difference(values, len(items["X"]), inputs, settings, seed, sizes)


RND = Method(
    "RND",
    "Garg et al. (2018)",
    "embedding",
    ContextVectors,
    score,
    reads=("unit", "exact_max", "n_samples"),
    encodings=("word/mean",),
    permutes="targets",
    scale_free=True,
    description="Relative norm distance of the target words to the mean vectors of A and B; "
    "mean over X minus mean over Y.",
    truth=Truth("difference", ON_STUDY, WHY_TEST),
)
