"""How reliable each method's score is: split-half reliability per facet (the words, the
templates, a data set's items), the generalizability question none of the four papers asked.

Each study model scores every method on both halves of a random split of a facet
(``groundtruth.every_method``); across the models, the Pearson correlation of the two halves'
scores is the reliability of a half-length measure, and Spearman-Brown's prophecy
``2 r / (1 + r)`` steps it up to the full length. A correlation between two measures can be
no larger than the square root of the product of their reliabilities; dividing by it
(:func:`disattenuate`, Spearman 1904) estimates the correlation of what they measure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: the facets a split-half reliability is computed over, as the halves' ``resample`` says
FACETS = ("words", "templates", "items")
MIN_MODELS = 4


def spearman_brown(r: float, k: float = 2.0) -> float:
    """The reliability of a measure k times as long as one of reliability r."""
    if not np.isfinite(r) or 1 + (k - 1) * r == 0:
        return float("nan")
    return float(k * r / (1 + (k - 1) * r))


def disattenuate(r: float, reliability_a: float, reliability_b: float) -> float:
    """r / sqrt(reliability_a * reliability_b), clipped to [-1, 1]; NaN where a reliability
    is not positive (the correction is then undefined)."""
    if not (reliability_a > 0 and reliability_b > 0) or not np.isfinite(r):
        return float("nan")
    return float(np.clip(r / np.sqrt(reliability_a * reliability_b), -1.0, 1.0))


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < MIN_MODELS or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def split_half(halves: pd.DataFrame) -> pd.DataFrame:
    """Per method and facet (``halves``: model, method, resample, split, half 0/1,
    effect_size): the models with both halves, the correlation of the halves across the
    models (the mean over splits), and its Spearman-Brown reliability (0 where the halves
    correlate negatively: they share nothing a longer score could accumulate)."""
    rows = []
    for (method, facet), frame in halves.groupby(["method", "resample"], sort=True):
        wide = frame.pivot_table(
            index=["split", "model"], columns="half", values="effect_size", aggfunc="first"
        )
        wide = wide.reindex(columns=[0, 1]).dropna()
        per_split = [
            _pearson(part[0].to_numpy(float), part[1].to_numpy(float))
            for _, part in wide.groupby(level="split")
        ]
        per_split = [r for r in per_split if np.isfinite(r)]
        r = float(np.mean(per_split)) if per_split else float("nan")
        models = wide.index.get_level_values("model").nunique()
        rows.append(
            {
                "method": method,
                "facet": facet,
                "models": models,
                "half_r": r,
                "reliability": spearman_brown(max(r, 0.0)) if np.isfinite(r) else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=["method", "facet", "models", "half_r", "reliability"])


def by_method(table: pd.DataFrame) -> pd.DataFrame:
    """One row per method: ``reliability_<facet>`` for each facet, and ``reliability`` the
    lowest of them (the facet that moves the score most: what a correction should assume)."""
    wide = table.pivot_table(index="method", columns="facet", values="reliability")
    wide = wide.reindex(columns=list(FACETS))
    out = wide.rename(columns=lambda f: f"reliability_{f}")
    out["reliability"] = wide.min(axis=1, skipna=True)
    return out.reset_index()
