"""WEAT (Caliskan et al., 2017), the statistic behind WEAT, s-SEAT and w-SEAT.

s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b)
d = (mean_x s(x) - mean_y s(y)) / std_{w in X u Y} s(w)

The standard deviation uses the *sample* convention (``ddof=1``) as in the SEAT code of
May et al. (2019); Caliskan et al. leave it unstated. With population std (``ddof=0``) and
|X| = |Y| the effect size lies in [-2, 2]; the sample convention only shrinks it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biasbench.stats import permutation_test_mean_difference


def unit_rows(m: np.ndarray, name: str = "vectors") -> np.ndarray:
    """Rows scaled to unit length; a zero row has no direction and is an error."""
    m = np.asarray(m, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise ValueError(f"{name}: zero-length or non-finite vector, cosine is undefined")
    return m / norms


def association(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """s(w, A, B) for every row of ``w``."""
    wu = unit_rows(w, "targets")
    return (wu @ unit_rows(a, "A").mean(axis=0)) - (wu @ unit_rows(b, "B").mean(axis=0))


def effect_size(s_x: np.ndarray, s_y: np.ndarray, ddof: int = 1) -> float:
    """Cohen's-d style WEAT effect size from per-target associations."""
    pooled = np.concatenate([s_x, s_y])
    sd = float(np.std(pooled, ddof=ddof))
    if not sd > 0:
        raise ValueError("all target associations are equal: the effect size is undefined")
    return float((np.mean(s_x) - np.mean(s_y)) / sd)


@dataclass(frozen=True)
class WeatResult:
    effect_size: float
    p_value: float
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    n_partitions: int
    exact: bool


def weat(
    x: np.ndarray,
    y: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    *,
    exact_max: int = 200_000,
    n_samples: int = 100_000,
    seed: int = 0,
    ddof: int = 1,
) -> WeatResult:
    """Effect size and one-sided permutation p-value of X vs Y towards A vs B.

    Rows of each matrix are the set's items (words, or sentences for SEAT).
    """
    for name, m in (("X", x), ("Y", y), ("A", a), ("B", b)):
        if len(m) == 0:
            raise ValueError(f"set {name} is empty")
    s = association(np.concatenate([x, y]), a, b)
    s_x, s_y = s[: len(x)], s[len(x) :]
    perm = permutation_test_mean_difference(
        s, len(x), exact_max=exact_max, n_samples=n_samples, seed=seed
    )
    return WeatResult(
        effect_size=effect_size(s_x, s_y, ddof=ddof),
        p_value=perm.p_value,
        n_x=len(x),
        n_y=len(y),
        n_a=len(a),
        n_b=len(b),
        n_partitions=perm.n_partitions,
        exact=perm.exact,
    )
