"""The comparison across the four papers: which measures agree (rank correlation over the
cells two methods share, with bootstrap intervals), how each fares against injected ground
truth, the census and the extrinsic proxy, what it finds on null models (random weights), and
what it costs.

A *cell* is one (model, test, descriptor) of a method's primary rows (its default encoding and
variant); where a method has primary rows on several context sources for one cell, the source
its paper's tables show (the registry's ``context``) is taken, else the first.

Calibration: a cell has two p-values, the paper's (``p_value``) and the word-level test's
(``p_word``: every context of a stimulus word moves with it). On the null models (random
weights) a calibrated test calls about alpha of its cells significant; the share's exact
(Clopper-Pearson) binomial interval says whether alpha is consistent with it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from biasbench.models.word_pieces import is_tokenization_file  # noqa: F401 (the reports')

CELL = ["model", "test", "descriptor"]
MIN_CELLS = 4  # fewer shared cells: no correlation


def primary_cells(scores: pd.DataFrame, context: Mapping[str, str]) -> pd.DataFrame:
    """One row per (method, cell): the primary score, on the method's own context source
    where it has one; rows without an effect size are left out."""
    rows = scores[scores["primary"].astype(bool) & scores["effect_size"].notna()].copy()
    rows[CELL] = rows[CELL].astype(object).fillna("")  # an empty descriptor reads back as NaN
    rows["own"] = rows["method"].map(context).eq(rows["source"])
    rows = rows.sort_values(
        ["method", *CELL, "own", "source"], ascending=[True] * 4 + [False, True]
    )
    return rows.drop_duplicates(["method", *CELL]).drop(columns="own").reset_index(drop=True)


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy import stats as sps  # lazily: planning the DAG imports the report modules

    if len(a) < MIN_CELLS or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(sps.spearmanr(a, b)[0])


def model_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """One cell per (method, model): the mean primary effect size over the model's tests (the
    data-set measures: their overall row), for agreement across models."""
    overall = cells[(cells["family"] != "probability") | (cells["descriptor"] == "all")]
    mean = overall.groupby(["method", "model"], as_index=False)["effect_size"].mean()
    return mean.assign(test="(mean over tests)", descriptor="", p_value=np.nan)


def one_scale(
    x: np.ndarray, y: np.ndarray, magnitude: tuple[bool, bool], neutral: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, str]:
    """Two methods' scores on one scale: where exactly one is a magnitude (its value keeps
    when X and Y swap: MAC, SAME, Direct Bias), the signed one becomes its distance from its
    neutral point, |score - neutral|, which a magnitude measures; otherwise both as they are.
    A signed score against a magnitude would correlate low by construction: the signed
    score's sign says which side, the magnitude's value does not."""
    if magnitude[0] == magnitude[1]:
        return x, y, "magnitudes" if magnitude[0] else "signed"
    if magnitude[0]:
        return x, np.abs(y - neutral[1]), "magnitude vs |signed|"
    return np.abs(x - neutral[0]), y, "|signed| vs magnitude"


def crossed_bootstrap(
    x: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
    columns: np.ndarray,
    rng: np.random.Generator,
    n_boot: int = 1000,
) -> np.ndarray:
    """Spearman's rho of x and y on ``n_boot`` resamples of a crossed design: the rows
    (models) and the columns (tests) resampled independently, each cell weighted by how
    often its model and its test were drawn (a cell shares its model with the model's other
    tests and its test with the test's other models; resampling cells ignores both)."""
    from scipy import stats as sps

    row_codes, row_names = pd.factorize(np.asarray(rows))
    column_codes, column_names = pd.factorize(np.asarray(columns))
    out = np.full(n_boot, np.nan)
    for i in range(n_boot):
        weight = (
            rng.multinomial(len(row_names), np.full(len(row_names), 1 / len(row_names)))[row_codes]
            * rng.multinomial(len(column_names), np.full(len(column_names), 1 / len(column_names)))[
                column_codes
            ]
        )
        keep = np.repeat(np.arange(len(x)), weight)
        if len(keep) >= MIN_CELLS and np.ptp(x[keep]) > 0 and np.ptp(y[keep]) > 0:
            out[i] = sps.spearmanr(x[keep], y[keep])[0]
    return out


def agreement(
    cells: pd.DataFrame,
    alpha: float,
    n_boot: int = 1000,
    seed: int = 0,
    magnitude: Mapping[str, bool] | None = None,
    neutral: Mapping[str, float] | None = None,
    reliability: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Per pair of methods: the shared cells n, over how many models and tests, Spearman rho
    of their effect sizes on one scale (:func:`one_scale`: ``magnitude`` and ``neutral`` per
    method; absent: every score signed, neutral 0) with a 95% percentile interval from the
    crossed bootstrap (models and tests resampled, seeded), the rho corrected for the two
    methods' ``reliability`` (:func:`biasbench.studies.reliability.disattenuate`; NaN
    without both), the share of shared cells with the same sign, and the share with the same
    significance verdict (p < alpha; over the cells where both have a p-value)."""
    from biasbench.studies.reliability import disattenuate

    magnitude, neutral, reliability = magnitude or {}, neutral or {}, reliability or {}
    value = cells.pivot_table(index=CELL, columns="method", values="effect_size", aggfunc="first")
    p = cells.pivot_table(index=CELL, columns="method", values="p_value", aggfunc="first")
    methods = list(value.columns)
    rng = np.random.default_rng(seed)
    rows = []
    for i, a in enumerate(methods):
        for b in methods[i + 1 :]:
            both = value[[a, b]].dropna()
            raw_a, raw_b = both[a].to_numpy(), both[b].to_numpy()
            x, y, scale = one_scale(
                raw_a,
                raw_b,
                (magnitude.get(a, False), magnitude.get(b, False)),
                (neutral.get(a, 0.0), neutral.get(b, 0.0)),
            )
            n = len(both)
            models = both.index.get_level_values("model")
            tests = (
                both.index.get_level_values("test")
                + "|"
                + both.index.get_level_values("descriptor")
            )
            rho = _spearman(x, y)
            low = high = float("nan")
            if np.isfinite(rho):
                low, high = _percentiles(crossed_bootstrap(x, y, models, tests, rng, n_boot))
            pp = p.reindex(both.index)[[a, b]].dropna() if a in p and b in p else pd.DataFrame()
            rows.append(
                {
                    "method_a": a,
                    "method_b": b,
                    "scale": scale,
                    "n": n,
                    "models": models.nunique(),
                    "tests": tests.nunique(),
                    "spearman": rho,
                    "ci_low": low,
                    "ci_high": high,
                    "reliability_a": reliability.get(a, np.nan),
                    "reliability_b": reliability.get(b, np.nan),
                    "spearman_corrected": disattenuate(
                        rho, reliability.get(a, np.nan), reliability.get(b, np.nan)
                    ),
                    "sign_agreement": (
                        float(np.mean(np.sign(raw_a) == np.sign(raw_b))) if n else np.nan
                    ),
                    "n_tested": len(pp),
                    "significance_agreement": (
                        float(np.mean((pp[a] < alpha) == (pp[b] < alpha))) if len(pp) else np.nan
                    ),
                }
            )
    columns = ["method_a", "method_b", "scale", "n", "models", "tests", "spearman", "ci_low"]
    columns += ["ci_high", "reliability_a", "reliability_b", "spearman_corrected"]
    columns += ["sign_agreement", "n_tested", "significance_agreement"]
    return pd.DataFrame(rows, columns=columns)


def _percentiles(draws: np.ndarray) -> tuple[float, float]:
    draws = draws[np.isfinite(draws)]
    if not len(draws):
        return float("nan"), float("nan")
    low, high = np.percentile(draws, [2.5, 97.5])
    return float(low), float(high)


def correlation_matrix(pairs: pd.DataFrame, methods: Iterable[str]) -> pd.DataFrame:
    methods = list(methods)
    out = pd.DataFrame(np.eye(len(methods)), index=methods, columns=methods)
    for r in pairs.itertuples():
        out.loc[r.method_a, r.method_b] = out.loc[r.method_b, r.method_a] = r.spearman
    return out


def cluster_order(matrix: pd.DataFrame) -> list[str]:
    """Methods ordered by average-linkage clustering on 1 - rho (an unknown rho counts as 0)."""
    from scipy.cluster import hierarchy

    if len(matrix) < 3:
        return list(matrix.index)
    distance = 1 - matrix.fillna(0).to_numpy()
    np.fill_diagonal(distance, 0)
    condensed = distance[np.triu_indices(len(matrix), 1)].clip(0, 2)
    leaves = hierarchy.leaves_list(hierarchy.linkage(condensed, "average"))
    return [matrix.index[i] for i in leaves]


#: the test designs of a cell (their p columns): the paper's test, the word-level one, and the
#: word-level one exchanging target words only within their number of word pieces
DESIGNS = {"paper": "p_value", "word": "p_word", "strata": "p_word_strata"}
#: each p column's floor: the smallest p its design can give (``biasbench.rows``)
FLOORS = {"p_value": "p_floor", "p_word": "p_word_floor", "p_word_strata": "p_word_strata_floor"}
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


def clopper_pearson(k: float, n: float, level: float = LEVEL) -> tuple[float, float]:
    """The exact (Clopper-Pearson) binomial interval of k successes in n trials, from the
    beta quantiles (so a fractional k, a sum of shares, is read the same way); (NaN, NaN)
    without a trial."""
    from scipy import stats as sps

    if n <= 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2
    low = float(sps.beta.ppf(tail, k, n - k + 1)) if k > 0 else 0.0
    high = float(sps.beta.ppf(1 - tail, k + 1, n - k)) if k < n else 1.0
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

    tail = (1 - level) / 2
    for g in range(2, 100_000):
        k = np.arange(1, g + 1)
        low = sps.beta.ppf(tail, k, g - k + 1)
        if sps.binom.pmf(k[low > alpha], g, ratio * alpha).sum() >= power:
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
) -> pd.DataFrame:
    """Per method and test design (``designs``: name -> p column): the null cells with that
    p-value (``cells_null``); for each alpha, those whose design cannot reach it
    (``cannot_<alpha>``, left out: :func:`can_reject`), the cells that can (``cells_<alpha>``)
    and their clusters (``clusters_<alpha>``), the false-positive share with its
    cluster-aware interval (``null_<alpha>``, ``null_low_<alpha>``, ``null_high_<alpha>``:
    :func:`cluster_share`), the clusters a verdict needs (``needed_<alpha>``) and the
    ``verdict_<alpha>`` (:func:`verdict`); and the share of cells below alpha on the real
    models that can reach it (``real_<alpha>``, of ``cells_real``). Every method with a
    p-value in any design gets a row for each design (a design it lacks: 0 cells, n/a)."""
    alphas = list(alphas)
    null = cells["model"].isin(set(null_models))
    cluster = null_clusters(cells, null_bases)
    p = {design: p_column(cells, column) for design, column in designs.items()}
    any_p = np.logical_or.reduce([v.notna().to_numpy() for v in p.values()])
    able_to = {(c, a): can_reject(cells, c, a) for c in designs.values() for a in alphas}
    rows = []
    for method in sorted(cells.loc[any_p, "method"].unique()):
        mine = cells["method"] == method
        for design, column in designs.items():
            values = p[design]
            tested = mine & values.notna()
            row = {
                "method": method,
                "design": design,
                "p": column,
                "cells_null": int((tested & null).sum()),
            }
            for a in alphas:
                able = able_to[column, a]
                on_null = tested & null & able
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
                    f"verdict_{a:g}": verdict(low, high, n_clusters, a),
                }
            on_real = tested & ~null
            row["cells_real"] = int(on_real.sum())
            for a in alphas:
                real = values[on_real & able_to[column, a]]
                row[f"real_{a:g}"] = float(np.mean(real < a)) if len(real) else np.nan
            rows.append(row)
    per_alpha = ("cannot", "cells", "clusters", "null", "null_low", "null_high", "needed")
    columns = ["method", "design", "p", "cells_null"]
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


#: |mean pieces of X words - of Y words| below this: the targets are balanced in word pieces
#: (the tokenization table's column; the null control reads every PIECE_THRESHOLDS)
BALANCED_GAP = 0.5
#: the thresholds of the piece-balance sensitivity analysis (synthesis_null_pieces)
PIECE_THRESHOLDS = (0.25, 0.5, 1.0)
PIECE_GROUPS = ("balanced", "imbalanced")
#: the gap a method's cells are split by: that of the words its tests exchange
GAP_OF = {"targets": "dXY", "attributes": "dAB"}


def piece_gaps(pieces: pd.DataFrame) -> pd.DataFrame:
    """Per (tokenizer, test, descriptor) of the tokenization tables (``pieces``: columns
    tokenizer, test, descriptor, role, word, pieces): dXY and dAB, the mean number of word
    pieces of the X words minus the Y words and of A minus B (NaN without both roles), the
    share of X and of Y words of more than one piece, the numbers of X and Y words, and
    ``pieces``: balanced where |dXY| < BALANCED_GAP, else imbalanced."""
    keys = ["tokenizer", "test", "descriptor"]
    frame = pieces.assign(multi=pieces["pieces"] > 1)
    grouped = frame.groupby([*keys, "role"], sort=True)
    mean = grouped["pieces"].mean().unstack("role")
    multi = grouped["multi"].mean().unstack("role")
    count = grouped["pieces"].size().unstack("role")
    for table in (mean, multi, count):
        for role in "XYAB":
            if role not in table:
                table[role] = np.nan
    out = pd.DataFrame(
        {
            "dXY": mean["X"] - mean["Y"],
            "dAB": mean["A"] - mean["B"],
            "multi_X": multi["X"],
            "multi_Y": multi["Y"],
            "words_X": count["X"].fillna(0).astype(int),
            "words_Y": count["Y"].fillna(0).astype(int),
        }
    )
    out["pieces"] = np.where(out["dXY"].abs() < BALANCED_GAP, *PIECE_GROUPS)
    out.loc[out["dXY"].isna(), "pieces"] = "n/a"
    return out.reset_index()


def piece_gap(
    cells: pd.DataFrame,
    null_bases: Mapping[str, str],
    gaps: pd.DataFrame,
    permutes: Mapping[str, str | None],
) -> np.ndarray:
    """Per cell: how far the words its method's tests exchange (``permutes``: method ->
    targets | attributes | None) differ in mean word pieces under the cell's base tokenizer
    (|dXY| or |dAB| of :func:`piece_gaps`); NaN for any other cell (a real model, a static
    model's copy: no tokenizer; a method that exchanges no words)."""
    keys = ["tokenizer", "test", "descriptor"]
    left = pd.DataFrame(
        {
            "tokenizer": cells["model"].map(dict(null_bases)).to_numpy(),
            "test": cells["test"].to_numpy(),
            "descriptor": cells["descriptor"].to_numpy(),
        }
    )
    right = (
        gaps[[*keys, *GAP_OF.values()]]
        if len(gaps)
        else pd.DataFrame(columns=[*keys, "dXY", "dAB"])
    )
    merged = left.merge(right, on=keys, how="left")
    words = cells["method"].map(dict(permutes)).to_numpy()
    gap = np.full(len(cells), np.nan)
    for which, column in GAP_OF.items():
        mine = words == which
        gap[mine] = pd.to_numeric(merged.loc[mine, column], errors="coerce").abs()
    return gap


def piece_balance(
    cells: pd.DataFrame,
    null_bases: Mapping[str, str],
    gaps: pd.DataFrame,
    permutes: Mapping[str, str | None],
    threshold: float = BALANCED_GAP,
) -> pd.Series:
    """Per cell: ``balanced`` where :func:`piece_gap` is below ``threshold``, ``imbalanced``
    where it is not, n/a where the cell has none."""
    return _balance(piece_gap(cells, null_bases, gaps, permutes), threshold, cells.index)


def _balance(gap: np.ndarray, threshold: float, index: pd.Index) -> pd.Series:
    out = np.where(gap < threshold, PIECE_GROUPS[0], PIECE_GROUPS[1]).astype(object)
    out[np.isnan(gap)] = "n/a"
    return pd.Series(out, index=index)


def piece_sensitivity(
    cells: pd.DataFrame,
    null_models: Iterable[str],
    null_bases: Mapping[str, str],
    gaps: pd.DataFrame,
    permutes: Mapping[str, str | None],
    thresholds: Iterable[float] = PIECE_THRESHOLDS,
    alphas: Iterable[float] = ALPHAS,
    designs: Mapping[str, str] = DESIGNS,
    level: float = LEVEL,
) -> pd.DataFrame:
    """:func:`calibration` of a transformer's null cells split by piece balance
    (:func:`piece_balance`), once per threshold: per threshold, method, design and group
    (balanced, imbalanced), the cells that can reach each alpha, their clusters, the
    cluster-aware share and interval, and the verdict. The threshold was chosen after the
    word test was seen to reject on imbalanced targets; the other thresholds show how much
    the claim leans on it."""
    alphas = list(alphas)
    null = cells[cells["model"].isin(set(null_models))]
    gap = piece_gap(null, null_bases, gaps, permutes)
    out = []
    for threshold in thresholds:
        balance = _balance(gap, threshold, null.index)
        for group in PIECE_GROUPS:
            part = null[balance == group]
            if part.empty:
                continue
            table = calibration(part, null_models, null_bases, alphas, designs, level)
            out.append(table.assign(threshold=threshold, pieces=group))
    keep = ["threshold", "pieces", "method", "design"]
    keep += [
        f"{c}_{a:g}"
        for a in alphas
        for c in ("cells", "clusters", "null", "null_low", "null_high", "verdict")
    ]
    if not out:
        return pd.DataFrame(columns=keep)
    frame = pd.concat(out, ignore_index=True)
    frame = frame[frame[[f"cells_{a:g}" for a in alphas]].sum(axis=1) > 0]
    return frame[keep].sort_values(["method", "design", "threshold", "pieces"], ignore_index=True)


def tokenization(
    cells: pd.DataFrame,
    null_bases: Mapping[str, str],
    gaps: pd.DataFrame,
    alphas: Iterable[float] = ALPHAS,
    column: str = "p_word",
    level: float = LEVEL,
) -> pd.DataFrame:
    """Per (test, descriptor, tokenizer) of ``gaps`` (:func:`piece_gaps`): its piece gaps and
    multi-piece shares, and on the null models with that tokenizer the cells of every method
    with a ``column`` p-value (``cells_word``) and the share below each alpha with its exact
    interval."""
    alphas = list(alphas)
    p = p_column(cells, column)
    tested = pd.DataFrame(
        {
            "tokenizer": cells["model"].map(dict(null_bases)),
            "test": cells["test"],
            "descriptor": cells["descriptor"],
            "p": p,
        }
    )
    tested = tested[tested["tokenizer"].notna() & tested["p"].notna()]
    by_cell = {k: g["p"].to_numpy() for k, g in tested.groupby(["tokenizer", "test", "descriptor"])}
    rows = []
    for row in gaps.itertuples(index=False):
        values = by_cell.get((row.tokenizer, row.test, row.descriptor), np.array([]))
        out = {
            "test": row.test,
            "descriptor": row.descriptor,
            "tokenizer": row.tokenizer,
            "dXY": row.dXY,
            "dAB": row.dAB,
            "multi_X": row.multi_X,
            "multi_Y": row.multi_Y,
            "words_X": row.words_X,
            "words_Y": row.words_Y,
            "pieces": row.pieces,
            "cells_word": len(values),
        }
        rows.append(out | shares_below(values, alphas, level, "word"))
    columns = ["test", "descriptor", "tokenizer", "dXY", "dAB", "multi_X", "multi_Y"]
    columns += ["words_X", "words_Y", "pieces", "cells_word"]
    columns += [f"word{c}_{a:g}" for a in alphas for c in ("", "_low", "_high")]
    return pd.DataFrame(rows, columns=columns).sort_values(
        ["test", "descriptor", "tokenizer"], ignore_index=True
    )


#: the survival table's counts, in order
SURVIVAL = ["tested", "cannot_reject", "significant_paper", "word_cannot_reject", "word_tested"]
SURVIVAL += ["surviving", "strata_tested", "surviving_strata"]


def survival(cells: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Per method: of its cells with a paper p-value (``tested``), how many cannot reach
    alpha whatever the model (``cannot_reject``: the design's floor), how many the paper's
    test calls significant (p_value < alpha), how many of those have a word-level p-value
    whose design cannot reach alpha (``word_cannot_reject``, left out of the share) or can
    (``word_tested``), how many of those remain significant under it (p_word < alpha,
    ``surviving``) and that share of ``word_tested`` (NaN without one); the same under the
    word-level test within word-piece counts (``strata_tested``, ``surviving_strata``)."""
    paper, word = p_column(cells, "p_value"), p_column(cells, "p_word")
    strata = p_column(cells, "p_word_strata")
    significant = paper < alpha
    word_able = can_reject(cells, "p_word", alpha)
    strata_able = can_reject(cells, "p_word_strata", alpha)
    frame = pd.DataFrame(
        {
            "method": cells["method"],
            "tested": paper.notna(),
            "cannot_reject": paper.notna() & ~can_reject(cells, "p_value", alpha),
            "significant_paper": significant,
            "word_cannot_reject": significant & word.notna() & ~word_able,
            "word_tested": significant & word.notna() & word_able,
            "surviving": significant & word_able & (word < alpha),
            "strata_tested": significant & strata.notna() & strata_able,
            "surviving_strata": significant & strata_able & (strata < alpha),
        }
    )
    frame = frame[frame["tested"]]
    out = frame.groupby("method", sort=True)[SURVIVAL].sum().astype(int)
    out["survival_share"] = survival_share(out)
    return out.reset_index().reindex(columns=["method", *SURVIVAL, "survival_share"])


def survival_share(counts: pd.DataFrame) -> pd.Series:
    """surviving / word_tested per row of survival counts (NaN without a word-tested cell)."""
    return (counts["surviving"] / counts["word_tested"]).where(counts["word_tested"] > 0)


def extrinsic(scores: pd.DataFrame, proxy: str = "WinoBias F1 gap") -> pd.DataFrame:
    """Per method: Spearman rho across models of its mean primary effect size with the
    extrinsic proxy's (models with both)."""
    cells = scores[scores["primary"].astype(bool) & scores["effect_size"].notna()]
    per_model = cells.groupby(["method", "model"])["effect_size"].mean().unstack("method")
    if proxy not in per_model:
        return pd.DataFrame(columns=["method", "models_with_proxy", "extrinsic_spearman"])
    out = []
    for method in per_model.columns.drop(proxy):
        both = per_model[[method, proxy]].dropna()
        out.append(
            {
                "method": method,
                "models_with_proxy": len(both),
                "extrinsic_spearman": _spearman(both[method].to_numpy(), both[proxy].to_numpy()),
            }
        )
    return pd.DataFrame(out)
