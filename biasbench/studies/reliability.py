"""How reliable each method's score is: split-half reliability per facet (the words, the
templates, a data set's items), the generalizability question none of the four papers asked.

Each study model scores every method on both halves of a random split of a facet
(``groundtruth.every_method``); across the models, the Pearson correlation of the two halves'
scores is the reliability of a half-length measure, and Spearman-Brown's prophecy
``2 r / (1 + r)`` steps it up to the full length. A correlation between two measures can be
no larger than the square root of the product of their reliabilities; dividing by it
(:func:`disattenuate`, Spearman 1904) estimates the correlation of what they measure.

The fine-tuning seed is a facet of another kind: some models are fine-tuned twice from the
same draw (``refit``), so each copy is a whole measurement and a pair's difference is seed
error alone. Their reliability is the generalizability coefficient 1 - s_e^2 / s_x^2
(:func:`test_retest`): the seed's error variance (half the mean squared difference of the
pairs) over the variance of the score across all the study's models.

Each facet's reliability leaves the other facets' errors in what both halves share, so it is
1 - (that facet's error variance) / (the score's variance). A method's reliability over every
facet at once is the generalizability coefficient of variance components (Cronbach et al.
1972; Brennan 2001), the facets' errors independent: 1 - the sum of their error shares
(:func:`generalizability`), not their minimum, which counts one facet's error alone (the
minimum of three facets each at 0.90 is 0.90 in truth, the coefficient 0.70; and the minimum
of three noisy estimates is biased down besides).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

#: the facets a reliability is computed over, as the halves' ``resample`` says: split halves
#: of the words, templates and items; ``fit``: refits with another fine-tuning seed
FACETS = ("words", "templates", "items", "fit")
MIN_MODELS = 4
#: the reliability the D-study asks each method's length for (a common bar for research use)
TARGET = 0.8
#: the level of the reliability's and the D-study's intervals (their coverage is simulated in
#: tests/test_reliability.py)
LEVEL = 0.90


def spearman_brown(r: float, k: float = 2.0) -> float:
    """The reliability of a measure k times as long as one of reliability r."""
    if not np.isfinite(r) or 1 + (k - 1) * r == 0:
        return float("nan")
    return float(k * r / (1 + (k - 1) * r))


def length_needed(reliability: float, target: float = TARGET) -> float:
    """The D-study: the multiple of a measure's current length (its words, templates, items,
    or refits averaged) at which Spearman-Brown predicts ``target`` reliability, the k that
    solves spearman_brown(reliability, k) = target: target (1 - r) / (r (1 - target)).
    Below 1 a shorter measure would do; inf where the reliability is 0 (no length reaches
    it); NaN where it is unknown."""
    if not np.isfinite(reliability) or not 0 <= reliability <= 1:
        return float("nan")
    if reliability == 0:
        return float("inf")
    return float(target * (1 - reliability) / (reliability * (1 - target)))


def disattenuate(r: float, reliability_a: float, reliability_b: float) -> float:
    """r / sqrt(reliability_a * reliability_b), as computed: not clipped, so a value beyond
    [-1, 1] shows that the reliabilities are too low for this r (underestimated, or from
    another population than the r's; :func:`beyond_one` flags it); NaN where a reliability
    is not positive (the correction is then undefined)."""
    if not (reliability_a > 0 and reliability_b > 0) or not np.isfinite(r):
        return float("nan")
    return float(r / np.sqrt(reliability_a * reliability_b))


def beyond_one(corrected: float) -> bool:
    """Whether a corrected correlation is impossible as a correlation (|value| > 1): the
    correction's inputs disagree, and the value is no estimate of a correlation."""
    return bool(np.isfinite(corrected) and abs(corrected) > 1)


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < MIN_MODELS or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def error_ratio(scores: np.ndarray, first: np.ndarray, again: np.ndarray) -> float:
    """s_e^2 / s_x^2: ``scores`` one measurement of every model (its variance s_x^2 across
    them, ddof 1), ``first`` and ``again`` two independent measurements of some of them
    (s_e^2 = mean((first - again)^2) / 2, the error variance of one measurement). NaN with
    fewer than two pairs or no spread."""
    scores, first, again = (np.asarray(a, float) for a in (scores, first, again))
    if len(first) < 2 or len(scores) < MIN_MODELS or np.ptp(scores) == 0:
        return float("nan")
    error = float(np.mean((first - again) ** 2)) / 2
    return error / float(np.var(scores, ddof=1))


def test_retest(scores: np.ndarray, first: np.ndarray, again: np.ndarray) -> float:
    """1 - :func:`error_ratio`, clipped to [0, 1]: the generalizability coefficient over
    fine-tuning seeds (NaN where the ratio is)."""
    ratio = error_ratio(scores, first, again)
    return float(np.clip(1 - ratio, 0.0, 1.0)) if np.isfinite(ratio) else float("nan")


def _refits(frame: pd.DataFrame) -> dict:
    """The ``fit`` facet's row of one method: its pairs (``models``), the models with a score
    (``scored``), the error ratio s_e^2 / s_x^2 (unclipped) and the test-retest reliability."""
    wide = frame.pivot_table(index="model", columns="half", values="effect_size", aggfunc="first")
    wide = wide.reindex(columns=[0, 1])
    measured = wide[0].dropna().to_numpy(), *wide.dropna().to_numpy().T
    return {
        "models": len(measured[1]),
        "scored": len(measured[0]),
        "error_ratio": error_ratio(*measured),
        "reliability": test_retest(*measured),
    }


def split_half(halves: pd.DataFrame) -> pd.DataFrame:
    """Per method and facet (``halves``: model, method, resample, split, half 0/1,
    effect_size): the models with both halves, the correlation of the halves across the
    models (the mean over splits), and its Spearman-Brown reliability (0 where the halves
    correlate negatively: they share nothing a longer score could accumulate). The ``fit``
    facet: the refitted pairs as ``models``, no half_r, :func:`test_retest`'s reliability."""
    rows = []
    for (method, facet), frame in halves.groupby(["method", "resample"], sort=True):
        if facet == "fit":
            rows.append({"method": method, "facet": facet, "half_r": np.nan} | _refits(frame))
            continue
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
                "scored": models,
                "half_r": r,
                "error_ratio": np.nan,
                "reliability": spearman_brown(max(r, 0.0)) if np.isfinite(r) else np.nan,
            }
        )
    out = pd.DataFrame(rows, columns=list(FACET_COLUMNS))
    out["length_for_target"] = [length_needed(v) for v in out["reliability"]]
    bounds = [facet_interval(row, LEVEL) for row in out.itertuples()]
    out["reliability_low"] = [low for low, _ in bounds]
    out["reliability_high"] = [high for _, high in bounds]
    return out


#: a facet's row of :func:`split_half`, what :func:`facet_interval` reads
FACET_COLUMNS = ("method", "facet", "models", "scored", "half_r", "error_ratio", "reliability")


def facet_interval(row, level: float) -> tuple[float, float]:
    """An interval at ``level`` for one facet's reliability (a :func:`split_half` row), the
    models resampled as the population they are drawn from. Split halves: Fisher's z of the
    halves' r, standard error 1 / sqrt(models - 3), the ends stepped up by Spearman-Brown (r
    is the mean over splits, which varies less than one split's: the interval errs wide).
    Refits: the error ratio R = s_e^2 / s_x^2 over its true value is F(pairs, scored - 1)
    distributed for normal errors, so the reliability 1 - R lies in [1 - R / F_{a/2},
    1 - R / F_{1-a/2}] (the F interval of a ratio of variances). Clipped to [0, 1]; NaN ends
    where the facet has too few models."""
    from scipy import stats

    tail = (1 - level) / 2
    if row.facet == "fit":
        if not np.isfinite(row.error_ratio) or row.models < 1 or row.scored < 2:
            return float("nan"), float("nan")
        f_low, f_high = stats.f.ppf([tail, 1 - tail], row.models, row.scored - 1)
        ends = (1 - row.error_ratio / f_low, 1 - row.error_ratio / f_high)
        return tuple(float(np.clip(e, 0.0, 1.0)) for e in ends)
    if not np.isfinite(row.half_r) or row.models <= 3:
        return float("nan"), float("nan")
    z, half = np.arctanh(np.clip(row.half_r, -0.999999, 0.999999)), 1 / np.sqrt(row.models - 3)
    ends = np.tanh(z + np.array([-1, 1]) * stats.norm.ppf(1 - tail) * half)
    return tuple(spearman_brown(max(float(e), 0.0)) for e in ends)


#: the facet a method is made longer by in the D-study, the first it has: its data set's
#: items, its words, its templates (refits are not a length)
LENGTH_FACETS = ("items", "words", "templates")


def generalizability(facets: Mapping[str, float]) -> float:
    """The generalizability coefficient over every facet at once: 1 - sum of (1 - facet
    reliability), each facet's error share of the score's variance, clipped to [0, 1]; NaN
    without a facet or with an unknown one."""
    values = list(facets.values())
    if not values or not all(np.isfinite(values)):
        return float("nan")
    return float(np.clip(1 - sum(1 - v for v in values), 0.0, 1.0))


def facet_length_needed(facets: Mapping[str, float], facet: str, target: float = TARGET) -> float:
    """The D-study over variance components: the multiple of ``facet``'s length (its items or
    words, the other facets as they are) at which :func:`generalizability` reaches ``target``.
    With error shares e_g = 1 - reliability_g and true share t = 1 - sum e_g, the coefficient
    at k times the facet is t / (t + sum_{g != facet} e_g + e_facet / k), so
    k = e_facet / (t (1 / target - 1) - sum_{g != facet} e_g); inf where no length reaches
    it (the other facets' error alone is too large, or nothing is true score), NaN where a
    reliability is unknown. With one facet this is :func:`length_needed`."""
    values = dict(facets)
    if facet not in values or not all(np.isfinite(list(values.values()))):
        return float("nan")
    errors = {f: 1 - min(max(v, 0.0), 1.0) for f, v in values.items()}
    true = 1 - sum(errors.values())
    room = true * (1 / target - 1) - (sum(errors.values()) - errors[facet])
    if true <= 0 or room <= 0:
        return float("inf")
    return float(errors[facet] / room)


#: :func:`method_interval`'s ends
INTERVAL_COLUMNS = ("reliability_low", "reliability_high", "length_low", "length_high")


def method_interval(facets: pd.DataFrame, facet: str, level: float = LEVEL) -> dict[str, float]:
    """Intervals at ``level`` for one method (``facets``: its :func:`split_half` rows with a
    reliability) of its generalizability coefficient and of the D-study's multiple of
    ``facet``'s length. Both are monotone in every facet's reliability (the coefficient up,
    the length needed down), so each facet's interval at the Bonferroni level 1 - (1 -
    level) / facets holds every facet's true reliability at once with at least ``level``,
    and the coefficient and the length at that box's corners are the ends."""
    if facets.empty:
        return dict.fromkeys(INTERVAL_COLUMNS, np.nan)
    share = (1 - level) / len(facets)
    bounds = {row.facet: facet_interval(row, 1 - share) for row in facets.itertuples()}
    lows = {f: low for f, (low, _) in bounds.items()}
    highs = {f: high for f, (_, high) in bounds.items()}
    return {
        "reliability_low": generalizability(lows),
        "reliability_high": generalizability(highs),
        "length_low": facet_length_needed(highs, facet) if facet else np.nan,
        "length_high": facet_length_needed(lows, facet) if facet else np.nan,
    }


def by_method(table: pd.DataFrame) -> pd.DataFrame:
    """One row per method: ``reliability_<facet>`` for each facet, ``reliability`` the
    generalizability coefficient over all of them (:func:`generalizability`), the facet the
    D-study lengthens (``length_facet``: :data:`LENGTH_FACETS`) and ``length_for_target``:
    the multiple of its length for reliability 0.8 (:func:`facet_length_needed`), each with
    its interval at :data:`LEVEL` (:func:`method_interval`)."""
    wide = table.pivot_table(index="method", columns="facet", values="reliability")
    wide = wide.reindex(columns=list(FACETS))
    out = wide.rename(columns=lambda f: f"reliability_{f}")
    rows = [row.dropna().to_dict() for _method, row in wide.iterrows()]
    out["reliability"] = [generalizability(r) for r in rows]
    out["length_facet"] = [next((f for f in LENGTH_FACETS if f in r), "") for r in rows]
    out["length_for_target"] = [
        facet_length_needed(r, f) if f else np.nan
        for r, f in zip(rows, out["length_facet"], strict=True)
    ]
    known = table[table["reliability"].notna()]
    intervals = [
        method_interval(known[known["method"] == method], facet)
        for method, facet in zip(out.index, out["length_facet"], strict=True)
    ]
    out = out.join(pd.DataFrame(intervals, index=out.index, columns=list(INTERVAL_COLUMNS)))
    return out.reset_index()


def items_needed(multiple: float, scored: float) -> float:
    """The units a measure needs for the target: the D-study's ``multiple`` of the ``scored``
    units, rounded up (inf stays inf; NaN where either is unknown)."""
    if not (np.isfinite(scored) and multiple == multiple):
        return float("nan")
    return float(np.ceil(multiple * scored)) if np.isfinite(multiple) else float("inf")


#: :func:`reach`'s verdicts where both counts are known
REACHABLE, NOT_REACHABLE = "yes", "not with this data set"


def reach(needed: float, held: float) -> str:
    """Whether a data set holds the units a measure needs: :data:`REACHABLE`,
    :data:`NOT_REACHABLE` (it holds fewer: no sample of it reaches the target), or 'n/a'
    where either is unknown."""
    if needed != needed or not np.isfinite(held):
        return "n/a"
    return REACHABLE if needed <= held else NOT_REACHABLE
