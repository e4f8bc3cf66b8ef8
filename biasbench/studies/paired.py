"""Two models scored on the same units, compared unit by unit: the paired tests and the paired
interval a comparison of a model with its debiased version needs.

The four papers compare models by putting two scores side by side, each with its own interval:
an unpaired comparison of paired data, which throws away that both models read the same items
(and so share each item's difficulty) and is far less powerful. Here every test takes the
per-unit outcomes of both models:

- :func:`mcnemar`: a preference share (CrowS-Pairs' "prefers the stereotype" per pair, a
  WinoBias item right or wrong): only the discordant units carry information, b (the first
  model only) against c (the second only); exact two-sided binomial test of b ~ Bin(b + c,
  1/2), or its mid-p form (less conservative, not exact).
- :func:`sign_test`: any per-unit score, by the signs of the differences (ties dropped); the
  same binomial test.
- :func:`paired_permutation`: the per-item differences, their signs flipped unit by unit
  (the word-level sign-flip test of :mod:`biasbench.inference`: all 2^n flips where there
  are few, seeded draws otherwise): exact under "the two models are exchangeable on every
  unit"; the floor is returned with p.
- :func:`paired_interval`: a percentile interval for the difference of a statistic, from a
  bootstrap that resamples the independent unit (an item, or a cluster of items that share a
  target term or template) jointly for both models: the same draw for both, so each unit's
  shared part cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from biasbench.inference import word_sign_flip_tests
from biasbench.studies.validity import interval, resample_clusters

N_PERM = 9_999
N_BOOT = 2_000
#: flips enumerated rather than drawn up to this many units (2^16 = 65,536 arrangements)
EXACT_UNITS = 16


def _binomial_two_sided(k: int, n: int, mid_p: bool) -> float:
    """Two-sided binomial p of k of n at 1/2: twice the smaller tail (capped at 1); mid-p
    counts half the probability of the observed count."""
    from scipy import stats as sps

    if n == 0:
        return 1.0
    low = min(k, n - k)
    tail = sps.binom.cdf(low, n, 0.5)
    if mid_p:
        tail -= 0.5 * sps.binom.pmf(low, n, 0.5)
    return float(min(1.0, 2 * tail))


def mcnemar(b: int, c: int, mid_p: bool = False) -> float:
    """McNemar's test of a paired binary outcome: ``b`` units where only the first model has
    it, ``c`` where only the second has; the exact binomial form (``mid_p``: its mid-p form).
    b = 8, c = 2: 2 x (1 + 10 + 45) / 1024 = 0.109; mid-p 2 x (56 - 22.5) / 1024 = 0.065."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be counts, got b={b}, c={c}")
    return _binomial_two_sided(int(b), int(b) + int(c), mid_p)


def discordant(first: np.ndarray, second: np.ndarray) -> tuple[int, int]:
    """(b, c) of two boolean outcomes on the same units: first only, second only."""
    first, second = np.asarray(first, bool), np.asarray(second, bool)
    if first.shape != second.shape:
        raise ValueError(f"paired outcomes of different lengths: {first.shape}, {second.shape}")
    return int((first & ~second).sum()), int((~first & second).sum())


def sign_test(differences: np.ndarray) -> float:
    """The exact two-sided sign test of per-unit differences (zeros dropped)."""
    d = np.asarray(differences, float)
    d = d[np.isfinite(d) & (d != 0)]
    return _binomial_two_sided(int((d > 0).sum()), len(d), mid_p=False)


def paired_permutation(
    differences: np.ndarray,
    units: Sequence[Hashable] | None = None,
    *,
    seed: int = 0,
    n_perm: int = N_PERM,
) -> tuple[float, float]:
    """(p, floor): the two-sided sign-flip test of the per-item differences, the items of one
    ``units`` entry (a target term, a template; None: every item its own) flipped together:
    :func:`biasbench.inference.word_sign_flip_tests`, exact under "the two models are
    exchangeable on every unit". Every flip is enumerated up to :data:`EXACT_UNITS` units
    (floor 2 / 2^n: a flip and its mirror tie); beyond, ``n_perm`` seeded flips (floor
    1 / (n_perm + 1))."""
    d = np.asarray(differences, float)
    units = list(range(len(d))) if units is None else list(units)
    (result,) = word_sign_flip_tests(
        d, units, ("two-sided",), exact_max=1 << EXACT_UNITS, n_samples=n_perm, seed=seed
    )
    return result.p_value, result.floor


def paired_interval(
    first: np.ndarray,
    second: np.ndarray,
    units: np.ndarray,
    statistic: Callable[[np.ndarray], float],
    rng: np.random.Generator,
    n_boot: int = N_BOOT,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """(difference, low, high): ``statistic`` of the first model's per-item outcomes minus
    that of the second's, and its percentile interval from a bootstrap that draws the
    ``units`` (one per item, or a cluster of items that share a term) with replacement and
    takes every item of each drawn unit for both models alike."""
    first, second = np.asarray(first, float), np.asarray(second, float)
    units = np.asarray(units)
    if not (len(first) == len(second) == len(units)):
        raise ValueError("paired outcomes and their units must have one entry per item")
    difference = statistic(first) - statistic(second)
    if len(set(units.tolist())) < 2:
        return float(difference), float("nan"), float("nan")
    draws = np.array(
        [statistic(first[p]) - statistic(second[p]) for p in resample_clusters(units, rng, n_boot)]
    )
    low, high = interval(draws, level)
    return float(difference), low, high


def detectable_difference(sd: float, n: int, alpha: float, power: float = 0.8) -> float:
    """The smallest mean per-unit difference a two-sided paired test at ``alpha`` finds with
    ``power`` on ``n`` independent units whose differences have standard deviation ``sd``
    (the normal approximation: (z_(1-alpha/2) + z_power) sd / sqrt(n)); NaN under 2 units."""
    from scipy import stats as sps

    if n < 2 or not np.isfinite(sd):
        return float("nan")
    return float((sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(power)) * sd / np.sqrt(n))
