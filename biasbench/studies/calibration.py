"""Null-model calibration: what each test design finds on models that hold no learned
association (random weights, or real vectors with the words reassigned).

A cell has a p-value per test design: the paper's (``p_value``), the word-level test's
(``p_word``: every context of a stimulus word moves with it) and the word-level test's within
word-piece counts (``p_word_strata``). On the null models a calibrated test calls about alpha of
its cells significant; the share, each cluster of copies counted once, has an exact
(Clopper-Pearson) interval that says whether alpha is consistent with it, and the verdict's rule
is fixed before any run (:func:`verdict`). A cell whose design cannot give p below alpha is
counted apart (:func:`can_reject`). The null cells themselves are scored by
:mod:`biasbench.studies.null_calibration`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from biasbench.nulls import TRAINED_NULLS
from biasbench.rows import TEST_DESIGNS

#: the test designs of a cell by name, each its p column (:data:`biasbench.rows.TEST_DESIGNS`)
DESIGNS = {d.name: d.p for d in TEST_DESIGNS}
#: each p column's floor: the smallest p its design can give
FLOORS = {d.p: d.floor for d in TEST_DESIGNS}
#: the significance levels the calibration table shows
ALPHAS = (0.01, 0.05)
LEVEL = 0.95  # of the intervals
#: the verdict, fixed before any run: "calibrated" needs the upper bound of the share's
#: interval at most CALIBRATED_RATIO x alpha, on at least min_clusters(alpha) clusters
CALIBRATED_RATIO = 2.0
#: min_clusters: the fewest clusters at which a false-positive share of DETECT_RATIO x alpha
#: is called miscalibrated with probability POWER, each cluster counting once
DETECT_RATIO = 3.0
POWER = 0.8


#: what each null kind randomizes, declared with the kind: the random-weight copies hold no
#: association at all but randomize no unit a test exchanges (None); each trained-weight null
#: kind declares its own (:mod:`biasbench.nulls`: the reassigned draws, the words
#: of every role)
RANDOMIZES = {"random weights": None, **{k.label: k.randomizes for k in TRAINED_NULLS}}
#: the verdict of a test that exchanges exactly what its null randomizes: its p is uniform
#: under that null whatever the method computes, so its share checks the machinery and
#: cannot fail as a test; never "calibrated"
BY_CONSTRUCTION = "exact by construction"


def exact_by_construction(cells: pd.DataFrame, design: str, randomizes: str | None) -> pd.Series:
    """Per cell: whether ``design``'s test exchanges what the null randomizes. Under a null
    that reassigns words: the word-level designs (``word``, ``strata``: a uniform
    reassignment is uniform within strata too) and the paper's test where every item is a
    word (one context per stimulus, source ``words``, or unit ``stimulus``); the paper's
    tests over contexts or sampled contexts are not, and can fail."""
    if randomizes is None:
        return pd.Series(False, index=cells.index)
    if randomizes != "words":
        raise ValueError(f"unknown randomized unit {randomizes!r}")
    if design in ("word", "strata"):
        return pd.Series(True, index=cells.index)
    return (cells["source"].astype(str) == "words") | (cells["unit"].astype(str) == "stimulus")


def p_column(cells: pd.DataFrame, column: str) -> pd.Series:
    """A p-value (or floor) column as numbers (NaN where absent: a constructed row that
    leaves it blank)."""
    if column not in cells:
        return pd.Series(np.nan, index=cells.index, dtype=float)
    return pd.to_numeric(cells[column], errors="coerce").astype(float)


def can_reject(cells: pd.DataFrame, column: str, alpha: float) -> pd.Series:
    """Per cell: its ``column`` p-value could be below ``alpha`` (its design's floor, NaN
    read as 0, is below alpha). A cell that cannot reject is no evidence of calibration
    either way: it is counted apart, never in a share."""
    return ~(p_column(cells, FLOORS[column]).fillna(0.0) >= alpha)


def clopper_pearson(k, n: float, level: float = LEVEL):
    """The exact (Clopper-Pearson) binomial interval of k successes in n trials, from the
    beta quantiles (so a fractional k, a sum of shares, is read the same way); (NaN, NaN)
    without a trial. ``k`` a number gives floats; an array of counts gives arrays (every
    count's interval at once, as :func:`min_clusters` and :func:`chance_calibrated` need)."""
    from scipy import stats as sps

    if n <= 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2
    counts = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):  # the quantiles at k = 0 and k = n are replaced
        low = np.where(counts > 0, sps.beta.ppf(tail, counts, n - counts + 1), 0.0)
        high = np.where(counts < n, sps.beta.ppf(1 - tail, counts + 1, n - counts), 1.0)
    if counts.ndim == 0:
        return float(low), float(high)
    return low, high


def shares_below(values: np.ndarray, alphas: Iterable[float], level: float, prefix: str) -> dict:
    """The share of ``values`` below each alpha, ``<prefix>_<alpha>``, with its exact interval
    ``<prefix>_low_<alpha>`` / ``<prefix>_high_<alpha>`` (no value: NaN), every value counted
    as one trial."""
    out = {}
    for a in alphas:
        k = int((values < a).sum())
        low, high = clopper_pearson(k, len(values), level)
        out[f"{prefix}_{a:g}"] = k / len(values) if len(values) else np.nan
        out[f"{prefix}_low_{a:g}"] = low
        out[f"{prefix}_high_{a:g}"] = high
    return out


def cluster_share(
    rejected: np.ndarray, clusters: np.ndarray, level: float = LEVEL
) -> tuple[float, float, float, int]:
    """(share, low, high, clusters) of cells that reject, clusters counted once.

    A cluster is one test design on one tokenizer (:func:`null_clusters`): its seeded copies
    share the words, the templates and the word pieces, and reject or not together far more
    often than independent cells would. The share is the mean over clusters of the share of
    a cluster's cells that reject (each test design weighs the same, whatever its number of
    copies); its interval is Clopper-Pearson's over the clusters, the summed shares the
    successes: exact when a cluster's copies always agree, conservative when they vary (a
    share in [0, 1] varies less than a 0/1 outcome of the same mean). The cell-level
    interval (:func:`shares_below`) treats 6 agreeing copies as 6 confirmations: in the
    simulations of ``tests/test_calibration_inference.py`` (26-100 clusters, intra-cluster
    correlation 0.3-0.9) it covers under 90%, this one at least 93%."""
    rejected = np.asarray(rejected, bool)
    if not len(rejected):
        return float("nan"), float("nan"), float("nan"), 0
    frame = pd.DataFrame({"cluster": np.asarray(clusters), "rejected": rejected})
    per_cluster = frame.groupby("cluster", sort=False)["rejected"].mean()
    low, high = clopper_pearson(float(per_cluster.sum()), len(per_cluster), level)
    return float(per_cluster.mean()), low, high, len(per_cluster)


@functools.lru_cache(maxsize=16)
def min_clusters(
    alpha: float, ratio: float = DETECT_RATIO, power: float = POWER, level: float = LEVEL
) -> int:
    """The fewest clusters at which a test whose false-positive share is ``ratio`` x alpha is
    called miscalibrated (the lower bound of :func:`cluster_share`'s interval above alpha)
    with probability ``power``, each cluster one trial (its copies agreeing: the worst
    case). Fewer clusters and "calibrated" would be a failure to look, not a finding."""
    from scipy import stats as sps

    for g in range(2, 100_000):
        k = np.arange(1, g + 1)
        low, _high = clopper_pearson(k, g, level)
        if sps.binom.pmf(k[low > alpha], g, ratio * alpha).sum() >= power:
            return g
    raise ValueError(f"no number of clusters reaches power {power} at alpha {alpha}")


def chance_calibrated(
    clusters: int, alpha: float, ratio: float = CALIBRATED_RATIO, level: float = LEVEL
) -> float:
    """The probability that :func:`verdict` calls a test "calibrated" when its false-positive
    rate is exactly ``alpha``, on ``clusters`` clusters that each reject or not as one (the
    binomial sum over the rejection counts whose Clopper-Pearson upper bound is at most
    ``ratio`` x alpha); 0 below :func:`min_clusters`, where the rule calls nothing calibrated.
    What an "undetermined" means: at 67 clusters and 0.05 an exact test has a 15% chance."""
    from scipy import stats as sps

    if clusters < min_clusters(alpha):
        return 0.0
    k = np.arange(clusters + 1)
    _low, high = clopper_pearson(k, clusters, level)
    return float(sps.binom.pmf(k[high <= ratio * alpha], clusters, alpha).sum())


@functools.lru_cache(maxsize=16)
def clusters_for_verdict(alpha: float, power: float = POWER) -> int:
    """The fewest clusters at which a test calibrated exactly at ``alpha`` is called
    calibrated with probability ``power`` (:func:`chance_calibrated`): the designs a
    "calibrated" verdict needs to be likely when it is true (231 at 0.05, 1,233 at 0.01)."""
    for g in range(min_clusters(alpha), 1_000_000):
        if chance_calibrated(g, alpha) >= power:
            return g
    raise ValueError(f"no number of clusters reaches power {power} at alpha {alpha}")


def verdict(low: float, high: float, clusters: int, alpha: float) -> str:
    """The calibration verdict of a test on null models, fixed before any run:
    ``miscalibrated`` when the lower bound of the cluster-aware interval is above alpha;
    ``calibrated`` when its upper bound is at most CALIBRATED_RATIO x alpha on at least
    :func:`min_clusters` clusters; otherwise ``undetermined (<n> clusters ...)``; ``n/a``
    without a cluster."""
    if clusters == 0 or not np.isfinite(low):
        return "n/a"
    if low > alpha:
        return "miscalibrated"
    needed = min_clusters(alpha)
    if clusters >= needed and high <= CALIBRATED_RATIO * alpha:
        return "calibrated"
    if clusters < needed:
        return f"undetermined ({clusters} clusters; {needed} needed)"
    return f"undetermined ({clusters} clusters)"


def null_clusters(cells: pd.DataFrame, null_bases: Mapping[str, str]) -> pd.Series:
    """Per cell, its cluster: the base model (a null copy's architecture and tokenizer, or
    its static vectors), the test and the descriptor; a model that is no null copy is its own
    base."""
    bases = dict(null_bases)
    base = cells["model"].astype(str).map(lambda m: bases.get(m, m))
    return base + "|" + cells["test"].astype(str) + "|" + cells["descriptor"].astype(str)


def calibration(
    cells: pd.DataFrame,
    null_models: Iterable[str],
    null_bases: Mapping[str, str],
    alphas: Iterable[float] = ALPHAS,
    designs: Mapping[str, str] = DESIGNS,
    level: float = LEVEL,
    randomizes: str | None = None,
) -> pd.DataFrame:
    """Per method and test design (``designs``: name -> p column): the null cells with that
    p-value (``cells_null``), of which ``by_construction`` exchange what the null
    ``randomizes`` (:func:`exact_by_construction`: left out of the shares while any other
    cell is left; where none is, the share is over them and the verdict is
    :data:`BY_CONSTRUCTION`, or ``miscalibrated`` if even they reject too often); for each
    alpha, those whose design cannot reach it (``cannot_<alpha>``, left out:
    :func:`can_reject`), the cells that can (``cells_<alpha>``) and their clusters
    (``clusters_<alpha>``), the false-positive share with its cluster-aware interval
    (``null_<alpha>``, ``null_low_<alpha>``, ``null_high_<alpha>``: :func:`cluster_share`),
    the clusters a verdict needs (``needed_<alpha>``), the chance that a test calibrated
    exactly at alpha would be called so on these clusters (``chance_<alpha>``:
    :func:`chance_calibrated`) and the ``verdict_<alpha>``
    (:func:`verdict`); and the share of cells below alpha on the real models that can reach
    it (``real_<alpha>``, of ``cells_real``). Every method with a p-value in any design gets
    a row for each design (a design it lacks: 0 cells, n/a)."""
    alphas = list(alphas)
    null = cells["model"].isin(set(null_models))
    cluster = null_clusters(cells, null_bases)
    p = {design: p_column(cells, column) for design, column in designs.items()}
    any_p = np.logical_or.reduce([v.notna().to_numpy() for v in p.values()])
    able_to = {(c, a): can_reject(cells, c, a) for c in designs.values() for a in alphas}
    by_construction = {d: exact_by_construction(cells, d, randomizes) for d in designs}
    rows = []
    for method in sorted(cells.loc[any_p, "method"].unique()):
        mine = cells["method"] == method
        for design, column in designs.items():
            values = p[design]
            tested = mine & values.notna()
            exact = tested & null & by_construction[design]
            only_exact = bool(exact.any()) and not bool((tested & null & ~exact).any())
            row = {
                "method": method,
                "design": design,
                "p": column,
                "cells_null": int((tested & null).sum()),
                "by_construction": int(exact.sum()),
            }
            for a in alphas:
                able = able_to[column, a]
                on_null = tested & null & able & (exact if only_exact else ~exact)
                share, low, high, n_clusters = cluster_share(
                    (values[on_null] < a).to_numpy(), cluster[on_null].to_numpy(), level
                )
                row |= {
                    f"cannot_{a:g}": int((tested & null & ~able).sum()),
                    f"cells_{a:g}": int(on_null.sum()),
                    f"clusters_{a:g}": n_clusters,
                    f"null_{a:g}": share,
                    f"null_low_{a:g}": low,
                    f"null_high_{a:g}": high,
                    f"needed_{a:g}": min_clusters(a),
                    f"chance_{a:g}": chance_calibrated(n_clusters, a),
                    f"verdict_{a:g}": (
                        verdict(low, high, n_clusters, a)
                        if not only_exact or n_clusters == 0 or low > a
                        else BY_CONSTRUCTION
                    ),
                }
            on_real = tested & ~null
            row["cells_real"] = int(on_real.sum())
            for a in alphas:
                real = values[on_real & able_to[column, a]]
                row[f"real_{a:g}"] = float(np.mean(real < a)) if len(real) else np.nan
            rows.append(row)
    per_alpha = ("cannot", "cells", "clusters", "null", "null_low", "null_high", "needed", "chance")
    columns = ["method", "design", "p", "cells_null", "by_construction"]
    columns += [f"{c}_{a:g}" for a in alphas for c in (*per_alpha, "verdict")]
    columns += ["cells_real", *(f"real_{a:g}" for a in alphas)]
    return pd.DataFrame(rows, columns=columns)


def cannot_reject_cells(
    cells: pd.DataFrame,
    null_models: Iterable[str],
    null_bases: Mapping[str, str],
    alphas: Iterable[float] = ALPHAS,
    designs: Mapping[str, str] = DESIGNS,
) -> pd.DataFrame:
    """The null cells left out of :func:`calibration`'s shares, named: per alpha, method,
    design and cluster (base model, test, descriptor) whose design cannot give p below alpha,
    with the floor and the number of cells."""
    null = cells[cells["model"].isin(set(null_models))]
    cluster = null_clusters(null, null_bases).str.split("|", expand=True)
    rows = []
    for a in alphas:
        for design, column in designs.items():
            out = null[p_column(null, column).notna() & ~can_reject(null, column, a)]
            if out.empty:
                continue
            frame = pd.DataFrame(
                {
                    "alpha": a,
                    "method": out["method"],
                    "design": design,
                    "base": cluster.loc[out.index, 0],
                    "test": out["test"],
                    "descriptor": out["descriptor"],
                    "floor": p_column(out, FLOORS[column]),
                }
            )
            keys = ["alpha", "method", "design", "base", "test", "descriptor"]
            grouped = frame.groupby(keys, sort=True)["floor"].agg(["min", "size"])
            rows.append(grouped.rename(columns={"min": "floor", "size": "cells"}).reset_index())
    columns = ["alpha", "method", "design", "base", "test", "descriptor", "floor", "cells"]
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=columns)
