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
from dataclasses import dataclass

import numpy as np
import pandas as pd

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


#: the units a null source can randomize: nothing a test exchanges (None); each word's
#: vector direction, drawn i.i.d. (random static copies); the words' sets (a reassignment)
UNITS = (None, "directions", "words")
#: the verdict of a test that exchanges exactly what its null randomizes: its p is uniform
#: under that null whatever the method computes, so its share checks the machinery and
#: cannot fail as a test; never "calibrated"
BY_CONSTRUCTION = "exact by construction"
#: the level at which a source's known-bad test must be called miscalibrated (detection)
DETECTION_ALPHA = 0.05


@dataclass(frozen=True)
class KnownBad:
    """A test known to be miscalibrated on a null source: ``method``'s ``design`` on the
    cells that ``where`` selects (column -> value). A source on which this test is not
    called miscalibrated could not have failed a test either: it gives no verdict."""

    method: str
    design: str
    where: Mapping[str, str]
    why: str

    def cells(self, cells: pd.DataFrame) -> pd.Series:
        """Per cell: it is one of this test's cells."""
        mask = cells["method"].astype(str) == self.method
        for column, value in self.where.items():
            mask &= cells[column].astype(str) == value
        return mask


@dataclass(frozen=True)
class NullSource:
    """Where null cells come from. ``randomizes``: the unit its draws randomize (one of
    :data:`UNITS`); a test that exchanges that unit is exact there by construction
    (:func:`exact_by_construction`) and never counts toward a share. ``known_bad``: the test
    its detection check must call miscalibrated (None: no test is known to fail there, so
    the source gives no verdict)."""

    key: str
    label: str
    randomizes: str | None
    known_bad: KnownBad | None


#: s-SEAT's paper test takes every template sentence as an exchangeable unit, though a
#: word's sentences share its vector: pseudo-replication wherever words differ at all
_SENTENCES = KnownBad(
    "s-SEAT",
    "paper",
    {"source": "templates"},
    "s-SEAT's paper test on templates (every sentence an exchangeable unit, though a word's "
    "sentences share that word)",
)
#: every declared source of null cells, in the tables' order
SOURCES = (
    NullSource("papers-random", "the papers' designs on random weights", None, _SENTENCES),
    NullSource(
        "generated-random",
        "generated designs on random weights",
        None,
        KnownBad(
            "s-SEAT",
            "word",
            {"descriptor": "pieces"},
            "s-SEAT's word test without strata where X and Y are classes of word-piece count "
            "(random weights pool a word's pieces, so the classes differ whatever was learned)",
        ),
    ),
    NullSource("papers-static", "the papers' designs on random static vectors", "directions", None),
    NullSource(
        "generated-static",
        "generated designs on random static vectors of character n-grams",
        None,
        KnownBad(
            "WEAT",
            "word",
            {"descriptor": "ending"},
            "WEAT's word test where X and Y are classes of the last two letters (their words "
            "share their last character n-grams, so their vectors share a direction whatever "
            "was learned)",
        ),
    ),
    NullSource("reassigned", "trained weights, words reassigned", "words", _SENTENCES),
)
SOURCE_BY_KEY = {s.key: s for s in SOURCES}


def _method_traits() -> pd.DataFrame:
    """Per registered method: whether it reads directions only, what its word test
    exchanges, and its unit."""
    from biasbench.methods.registry import REGISTRY

    return pd.DataFrame(
        {
            "scale_free": [m.scale_free for m in REGISTRY],
            "permutes": [m.permutes for m in REGISTRY],
            "unit": [m.unit for m in REGISTRY],
        },
        index=[m.name for m in REGISTRY],
    )


def exact_by_construction(
    cells: pd.DataFrame, design: str, randomizes: str | None, paired: Iterable[str] = ()
) -> pd.Series:
    """Per cell: whether ``design``'s test exchanges what the null randomizes, so its p is
    uniform there whatever the method.

    A test exchanges words where it is a word-level design (``word``, ``strata``: uniform
    within strata too) or the paper's test where every item is a word (source ``words`` or
    unit ``stimulus``), unless it combines sampled contexts (CEAT, p-CEAT: a z-test over
    samples, no exchange). ``directions`` (i.i.d. directions, the base's norms kept): such a
    test of a method that reads directions alone (``Method.scale_free``) is exact, since
    every word's vector is then exchangeable. ``words`` (targets shuffled freely, attributes
    too or, in a test of definitional pairs (``paired``: its name), each pair flipped by a
    coin): exact where the test exchanges what was shuffled freely, the targets always, the
    attributes only outside ``paired`` (SAME re-splits A and B freely: not exact on flipped
    pairs)."""
    if randomizes is None:
        return pd.Series(False, index=cells.index)
    if randomizes not in UNITS:
        raise ValueError(f"unknown randomized unit {randomizes!r}")
    traits = _method_traits().reindex(cells["method"].astype(str))
    sampled = (traits["unit"] == "sampled context").to_numpy()
    unit = cells["unit"].astype(str) if "unit" in cells else pd.Series("", index=cells.index)
    on_words = (cells["source"].astype(str) == "words") | (unit == "stimulus")
    if design in ("word", "strata"):
        exchanges = pd.Series(True, index=cells.index)
    else:
        exchanges = on_words & ~sampled
    if randomizes == "directions":
        return exchanges & traits["scale_free"].fillna(False).astype(bool).to_numpy()
    permutes = traits["permutes"].to_numpy()
    in_pairs = cells["test"].astype(str).isin(set(paired)).to_numpy()
    free = (permutes == "targets") | ((permutes == "attributes") & ~in_pairs)
    return exchanges & free


def why_no_verdict(method: str, clusters: int, needed: int) -> str:
    """Why a method's share has too few clusters for a verdict (empty where it has enough):
    what one independent design of it is, and why the run has no more."""
    if clusters >= needed:
        return ""
    from biasbench.methods.contract import ContextVectors
    from biasbench.methods.registry import get

    try:
        declared = get(method)
    except KeyError:
        return f"{clusters} of the {needed} independent designs a verdict needs"
    if declared.consumes is ContextVectors:
        one = (
            "one design is a test and descriptor on a base (the papers' tests) or a generated "
            "design: null_calibration.designs adds them"
        )
    elif declared.unit == "sampled context":
        one = (
            "one design is an LPBS test's pairs in one corpus on a base: only the LPBS tests "
            "(null_calibration.lpbs_tests) with corpus pairs make designs"
        )
    elif declared.family == "probability" and declared.unit == "attribute":
        one = (
            "one design is an LPBS test and descriptor on a base (its templates and words "
            "shared by every copy) or a generated design on a copy of its own: "
            "null_calibration.lpbs_designs adds them"
        )
    else:
        one = (
            "one design is a data set on a base (its seeded copies score the same sampled "
            "items) or an item design (a disjoint sample on a copy of its own): "
            "null_calibration.item_designs adds them, as many as the data set's items allow"
        )
    return f"{clusters} of the {needed} independent designs a verdict needs: {one}"


def exact_cells(
    cells: pd.DataFrame, design: str, randomizes: str | None | pd.Series, paired: Iterable[str]
) -> pd.Series:
    """:func:`exact_by_construction` where each cell may come from another source
    (``randomizes`` per cell: a Series beside ``cells``)."""
    if not isinstance(randomizes, pd.Series):
        return exact_by_construction(cells, design, randomizes, paired)
    out = pd.Series(False, index=cells.index)
    for unit in randomizes.dropna().unique():
        mine = randomizes == unit
        out[mine] = exact_by_construction(cells[mine], design, unit, paired)
    return out


def one_context(cells: pd.DataFrame, design: str) -> pd.Series:
    """Per cell: the paper's test of a method that combines sampled contexts (CEAT) scored
    on one context per word (source ``words``). Every sample is then the same set of
    vectors, the samples' effects agree exactly and the combined z grows without bound:
    p goes to 0 by the method's construction, whatever the model. Such cells are counted
    apart (``one_context``), in no share."""
    if design != "paper" or "source" not in cells:
        return pd.Series(False, index=cells.index)
    traits = _method_traits().reindex(cells["method"].astype(str))
    sampled = (traits["unit"] == "sampled context").to_numpy()
    return pd.Series(sampled, index=cells.index) & (cells["source"].astype(str) == "words")


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
    ``ratio`` x alpha and whose lower bound does not call it miscalibrated first); 0 below
    :func:`min_clusters`, where the rule calls nothing calibrated.
    What an "undetermined" means: at 67 clusters and 0.05 an exact test has a 15% chance."""
    from scipy import stats as sps

    if clusters < min_clusters(alpha):
        return 0.0
    k = np.arange(clusters + 1)
    low, high = clopper_pearson(k, clusters, level)
    called = (low <= alpha) & (high <= ratio * alpha)  # "miscalibrated" is decided first
    return float(sps.binom.pmf(k[called], clusters, alpha).sum())


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
    base, and so is a copy that holds one design of its own
    (:data:`biasbench.models.null.ONE_DESIGN_COPY`: its weights and its items are its alone)."""
    from biasbench.models.null import ONE_DESIGN_COPY

    bases = dict(null_bases)
    model = cells["model"].astype(str)
    own = model.str.fullmatch(ONE_DESIGN_COPY).astype(bool)
    base = model.where(own, model.map(lambda m: bases.get(m, m)))
    return base + "|" + cells["test"].astype(str) + "|" + cells["descriptor"].astype(str)


def calibration(
    cells: pd.DataFrame,
    null_models: Iterable[str],
    null_bases: Mapping[str, str],
    alphas: Iterable[float] = ALPHAS,
    designs: Mapping[str, str] = DESIGNS,
    level: float = LEVEL,
    randomizes: str | None | pd.Series = None,
    paired: Iterable[str] = (),
) -> pd.DataFrame:
    """Per method and test design (``designs``: name -> p column): the null cells with that
    p-value (``cells_null``; the paper's test of CEAT on one context per word is counted
    apart as ``one_context``: :func:`one_context`), of which ``by_construction`` exchange
    what the null ``randomizes`` (one unit, or one per cell; ``paired``: the tests of
    definitional pairs; :func:`exact_by_construction`: left out of the shares while any other
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
    by_construction = {d: exact_cells(cells, d, randomizes, paired) for d in designs}
    rows = []
    for method in sorted(cells.loc[any_p, "method"].unique()):
        mine = cells["method"] == method
        for design, column in designs.items():
            values = p[design]
            single = mine & values.notna() & one_context(cells, design)
            tested = mine & values.notna() & ~single
            exact = tested & null & by_construction[design]
            only_exact = bool(exact.any()) and not bool((tested & null & ~exact).any())
            row = {
                "method": method,
                "design": design,
                "p": column,
                "cells_null": int((tested & null).sum()),
                "one_context": int((single & null).sum()),
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
                    f"why_{a:g}": why_no_verdict(method, n_clusters, min_clusters(a))
                    if n_clusters
                    else "",
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
    per_alpha = (
        "cannot",
        "cells",
        "clusters",
        "null",
        "null_low",
        "null_high",
        "needed",
        "chance",
        "why",
    )
    columns = ["method", "design", "p", "cells_null", "one_context", "by_construction"]
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
    design, base model, test and descriptor whose design cannot give p below alpha,
    with the floor and the number of cells."""
    null = cells[cells["model"].isin(set(null_models))]
    bases = dict(null_bases)
    base = null["model"].astype(str).map(lambda m: bases.get(m, m))
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
                    "base": base.loc[out.index],
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


def source_of(
    cells: pd.DataFrame,
    null_models: Iterable[str],
    null_bases: Mapping[str, str],
    kinds: Mapping[str, str],
    trained_draws: Iterable[str] = (),
) -> pd.Series:
    """Per cell, the key of its null source (:data:`SOURCES`; None: a real model's cell): a
    random copy of a static base is random static vectors, of any other random weights; a
    copy of a generated design (``<base>-null-g<i>``) holds a generated design; a draw of a
    trained-weight null is the reassignment."""
    from biasbench.models.null import GENERATED_COPY

    model = cells["model"].astype(str)
    base = model.map(lambda m: null_bases.get(m, m))
    static = base.map(lambda b: kinds.get(b) == "static").astype(bool)
    generated = model.str.fullmatch(GENERATED_COPY).astype(bool)
    null = model.isin(set(null_models))
    out = pd.Series(None, index=cells.index, dtype=object)
    out[null & ~static & ~generated] = "papers-random"
    out[null & ~static & generated] = "generated-random"
    out[null & static & ~generated] = "papers-static"
    out[null & static & generated] = "generated-static"
    out[model.isin(set(trained_draws))] = "reassigned"
    return out


def detection(
    cells: pd.DataFrame,
    sources: pd.Series,
    bases: Mapping[str, str],
    paired: Iterable[str] = (),
    alpha: float = DETECTION_ALPHA,
) -> pd.DataFrame:
    """Per declared source: its known-bad test's false-positive share on the source's cells
    (those that can reach ``alpha``, none exact by construction), with its cluster-aware
    interval and verdict; ``passes`` where that verdict is "miscalibrated". A source with no
    known-bad test, or one it does not catch, cannot tell a bad test from a good one: its
    verdicts are withheld (:func:`withhold`)."""
    rows = []
    for source in SOURCES:
        row = {
            "source": source.key,
            "label": source.label,
            "randomizes": source.randomizes or "nothing a test exchanges",
        }
        bad = source.known_bad
        mine = sources == source.key
        if bad is None:
            rows.append(row | {"known_bad": "none", "cells": int(mine.sum()), "passes": False})
            continue
        column = DESIGNS[bad.design]
        values = p_column(cells, column)
        exact = exact_by_construction(cells, bad.design, source.randomizes, paired)
        on = mine & bad.cells(cells) & values.notna() & can_reject(cells, column, alpha) & ~exact
        share, low, high, n = cluster_share(
            (values[on] < alpha).to_numpy(), null_clusters(cells[on], bases).to_numpy()
        )
        call = verdict(low, high, n, alpha)
        rows.append(
            row
            | {
                "known_bad": bad.why,
                "cells": int(on.sum()),
                "clusters": n,
                f"share_{alpha:g}": share,
                f"low_{alpha:g}": low,
                f"high_{alpha:g}": high,
                "verdict": call,
                "passes": call == "miscalibrated",
            }
        )
    return pd.DataFrame(rows)


#: what a withheld source prints where its verdict would say "calibrated" or "undetermined"
WITHHELD = "no verdict (its known-bad test is not caught here)"


def withhold(table: pd.DataFrame) -> pd.DataFrame:
    """A source's rows whose detection check failed: a "miscalibrated" verdict stands (the
    test failed even where failing is hard), as do "exact by construction" and "n/a"; any
    other verdict is :data:`WITHHELD`."""
    out = table.copy()
    for column in [c for c in out.columns if c.startswith("verdict_")]:
        keep = out[column].astype(str).isin(["miscalibrated", BY_CONSTRUCTION, "n/a"])
        out.loc[~keep, column] = WITHHELD
    return out


def by_source(
    cells: pd.DataFrame,
    sources: pd.Series,
    bases: Mapping[str, str],
    alphas: Iterable[float] = ALPHAS,
    paired: Iterable[str] = (),
    designs: Mapping[str, str] = DESIGNS,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the calibration table by source, its detection checks): :func:`calibration` on each
    source's cells alone (``source``: its key), verdicts withheld where its detection check
    failed, then ``pooled`` over the sources where it passed, every cell's exact label from
    its own source (exact cells never count toward a share). The real models' cells (no
    source) give each row's ``real_<alpha>``."""
    alphas = list(alphas)
    checks = detection(cells, sources, bases, paired)
    passing = set(checks.loc[checks["passes"].astype(bool), "source"])
    real = sources.isna()
    units = sources.map({s.key: s.randomizes for s in SOURCES})
    frames = []
    for source in SOURCES:
        mine = sources == source.key
        if not mine.any():
            continue
        models = sorted(set(cells.loc[mine, "model"]))
        table = calibration(
            cells[mine | real],
            models,
            bases,
            alphas,
            designs,
            randomizes=source.randomizes,
            paired=paired,
        )
        table = table if source.key in passing else withhold(table)
        frames.append(table.assign(source=source.key))
    pooled = sources.isin(passing)
    if pooled.any():
        keep = pooled | real
        models = sorted(set(cells.loc[pooled, "model"]))
        table = calibration(
            cells[keep], models, bases, alphas, designs, randomizes=units[keep], paired=paired
        )
        frames.append(table.assign(source="pooled: " + " + ".join(sorted(passing))))
    if not frames:
        frames = [calibration(cells[real], [], bases, alphas, designs).assign(source="")]
    out = pd.concat(frames, ignore_index=True)
    return out[["source", *(c for c in out.columns if c != "source")]], checks


def pooled_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The pooled rows of :func:`by_source` (none: no source passed its detection check)."""
    return table[table["source"].astype(str).str.startswith("pooled")].drop(columns="source")
