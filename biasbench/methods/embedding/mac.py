"""MAC, mean average cosine distance (Manzini et al., 2019), as Schröder et al. write it
(eqs. 7-8):

    S(t, A_j) = 1/|A_j| sum_{a in A_j} (1 - cos(t, a))
    MAC(T, A) = 1/(|T| |A|) sum_{t in T} sum_j S(t, A_j)

with T = X u Y and the attribute sets A_j = A, B. It lies in [0, 2], and 1 is its "no bias"
value: a word orthogonal to every attribute. MAC measures closeness to the attributes, not a
difference between them (Schröder et al.: with opposite attributes a_2 = -a_1 every word
scores exactly 1), so swapping X and Y leaves it unchanged, and it has no significance test.
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
from biasbench.methods.embedding.vectors import set_items, unit_rows
from biasbench.rows import Score


def mac_word(t: np.ndarray, attributes: list[np.ndarray]) -> np.ndarray:
    """Per row of ``t``: the mean over attribute sets of S(t, A_j)."""
    tu = unit_rows(t, "targets")
    return np.mean([1 - tu @ unit_rows(a, "attributes").mean(axis=0) for a in attributes], axis=0)


def score(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    items = {r: set_items(list(inputs.groups[r]), settings.unit) for r in "XYAB"}
    per_word = mac_word(np.concatenate([items["X"], items["Y"]]), [items["A"], items["B"]])
    return Score(
        float(per_word.mean()),
        sizes={r: len(items[r]) for r in "XYAB"},
        note="MAC has no significance test",
    )


MAC = Method(
    "MAC",
    "Manzini et al. (2019)",
    "embedding",
    ContextVectors,
    score,
    reads=("unit",),
    encodings=("word/mean",),
    swap="keeps",
    neutral=1.0,
    description="Mean average cosine distance of the targets to each attribute set (1: none).",
    truth=Truth("magnitude", ON_STUDY, WHY_MAGNITUDE),
)
