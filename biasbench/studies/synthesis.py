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


def spearman_interval(
    x: np.ndarray, y: np.ndarray, rng: np.random.Generator, n_boot: int = 1000
) -> tuple[float, float, float]:
    """Spearman rho of x and y and its 95% percentile bootstrap interval (pairs resampled)."""
    rho, low, high = _spearman(x, y), float("nan"), float("nan")
    if np.isfinite(rho):
        draws = rng.integers(0, len(x), size=(n_boot, len(x)))
        boot = np.array([_spearman(x[d], y[d]) for d in draws])
        boot = boot[np.isfinite(boot)]
        if len(boot):
            low, high = (float(v) for v in np.percentile(boot, [2.5, 97.5]))
    return rho, low, high


def model_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """One cell per (method, model): the mean primary effect size over the model's tests (the
    data-set measures: their overall row), for agreement across models."""
    overall = cells[(cells["family"] != "probability") | (cells["descriptor"] == "all")]
    mean = overall.groupby(["method", "model"], as_index=False)["effect_size"].mean()
    return mean.assign(test="(mean over tests)", descriptor="", p_value=np.nan)


def agreement(cells: pd.DataFrame, alpha: float, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per pair of methods: the shared cells n, Spearman rho of their effect sizes with a
    percentile bootstrap interval (cells resampled, seeded), the share of shared cells with the
    same sign, and the share with the same significance verdict (p < alpha; over the cells
    where both have a p-value)."""
    value = cells.pivot_table(index=CELL, columns="method", values="effect_size", aggfunc="first")
    p = cells.pivot_table(index=CELL, columns="method", values="p_value", aggfunc="first")
    methods = list(value.columns)
    rng = np.random.default_rng(seed)
    rows = []
    for i, a in enumerate(methods):
        for b in methods[i + 1 :]:
            both = value[[a, b]].dropna()
            x, y = both[a].to_numpy(), both[b].to_numpy()
            n = len(both)
            rho, low, high = spearman_interval(x, y, rng, n_boot)
            pp = p.reindex(both.index)[[a, b]].dropna() if a in p and b in p else pd.DataFrame()
            rows.append(
                {
                    "method_a": a,
                    "method_b": b,
                    "n": n,
                    "spearman": rho,
                    "ci_low": float(low),
                    "ci_high": float(high),
                    "sign_agreement": float(np.mean(np.sign(x) == np.sign(y))) if n else np.nan,
                    "n_tested": len(pp),
                    "significance_agreement": (
                        float(np.mean((pp[a] < alpha) == (pp[b] < alpha))) if len(pp) else np.nan
                    ),
                }
            )
    columns = [
        "method_a",
        "method_b",
        "n",
        "spearman",
        "ci_low",
        "ci_high",
        "sign_agreement",
        "n_tested",
        "significance_agreement",
    ]
    return pd.DataFrame(rows, columns=columns)


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


#: the test designs of a cell: the paper's test and the word-level one (their p columns)
DESIGNS = {"paper": "p_value", "word": "p_word"}
#: the significance levels the calibration table shows
ALPHAS = (0.01, 0.05)
LEVEL = 0.95  # of the binomial intervals


def p_column(cells: pd.DataFrame, column: str) -> pd.Series:
    """A p-value column as numbers (NaN where absent: scores written before p_word, or a
    constructed row that leaves it blank)."""
    if column not in cells:
        return pd.Series(np.nan, index=cells.index, dtype=float)
    return pd.to_numeric(cells[column], errors="coerce").astype(float)


def clopper_pearson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The exact (Clopper-Pearson) binomial interval of k successes in n trials; (NaN, NaN)
    without a trial."""
    from scipy import stats as sps

    if n <= 0:
        return float("nan"), float("nan")
    ci = sps.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def shares_below(values: np.ndarray, alphas: Iterable[float], level: float, prefix: str) -> dict:
    """The share of ``values`` below each alpha, ``<prefix>_<alpha>``, with its exact interval
    ``<prefix>_low_<alpha>`` / ``<prefix>_high_<alpha>`` (no value: NaN)."""
    out = {}
    for a in alphas:
        k = int((values < a).sum())
        low, high = clopper_pearson(k, len(values), level)
        out[f"{prefix}_{a:g}"] = k / len(values) if len(values) else np.nan
        out[f"{prefix}_low_{a:g}"] = low
        out[f"{prefix}_high_{a:g}"] = high
    return out


def calibrated(alpha: float, low: float, high: float, n: int) -> str:
    """yes: alpha lies inside the share's interval; no: outside; too few cells: fewer than
    MIN_CELLS null cells; n/a: no null cell with this p-value."""
    if n == 0:
        return "n/a"
    if n < MIN_CELLS:
        return "too few cells"
    return "yes" if low <= alpha <= high else "no"


def calibration(
    cells: pd.DataFrame,
    null_models: Iterable[str],
    alphas: Iterable[float] = ALPHAS,
    designs: Mapping[str, str] = DESIGNS,
    level: float = LEVEL,
) -> pd.DataFrame:
    """Per method and test design (``designs``: name -> p column): the null cells with that
    p-value, the share of them with p < alpha (the false-positive share) for each alpha with
    its exact binomial interval and whether alpha lies inside (``calibrated``), and the same
    share on the real models. Every method with a p-value in any design gets a row for each
    design (a design it lacks: 0 cells, n/a)."""
    alphas = list(alphas)
    null = cells["model"].isin(set(null_models))
    p = {design: p_column(cells, column) for design, column in designs.items()}
    any_p = np.logical_or.reduce([v.notna().to_numpy() for v in p.values()])
    rows = []
    for method in sorted(cells.loc[any_p, "method"].unique()):
        mine = cells["method"] == method
        for design, column in designs.items():
            values = p[design]
            on_null = values[mine & null].dropna().to_numpy()
            on_real = values[mine & ~null].dropna().to_numpy()
            row = {
                "method": method,
                "design": design,
                "p": column,
                "cells_null": len(on_null),
            }
            row |= shares_below(on_null, alphas, level, "null")
            for a in alphas:
                low, high = row[f"null_low_{a:g}"], row[f"null_high_{a:g}"]
                row[f"calibrated_{a:g}"] = calibrated(a, low, high, len(on_null))
            row["cells_real"] = len(on_real)
            for a in alphas:
                row[f"real_{a:g}"] = float(np.mean(on_real < a)) if len(on_real) else np.nan
            rows.append(row)
    columns = ["method", "design", "p", "cells_null"]
    columns += [
        f"{c}_{a:g}" for a in alphas for c in ("null", "null_low", "null_high", "calibrated")
    ]
    columns += ["cells_real", *(f"real_{a:g}" for a in alphas)]
    return pd.DataFrame(rows, columns=columns)


#: |mean pieces of X words - of Y words| below this: the targets are balanced in word pieces
BALANCED_GAP = 0.5
PIECE_GROUPS = ("balanced", "imbalanced")


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


def piece_balance(
    cells: pd.DataFrame, null_bases: Mapping[str, str], gaps: pd.DataFrame
) -> pd.Series:
    """Per cell: ``balanced`` or ``imbalanced`` (:func:`piece_gaps`) for a null model's cell
    whose base model's tokenizer has the cell's (test, descriptor); n/a for any other (a real
    model, a static model's copy: no tokenizer)."""
    keys = ["tokenizer", "test", "descriptor"]
    left = pd.DataFrame(
        {
            "tokenizer": cells["model"].map(dict(null_bases)).to_numpy(),
            "test": cells["test"].to_numpy(),
            "descriptor": cells["descriptor"].to_numpy(),
        }
    )
    right = gaps[[*keys, "pieces"]] if len(gaps) else pd.DataFrame(columns=[*keys, "pieces"])
    merged = left.merge(right, on=keys, how="left")
    return pd.Series(merged["pieces"].fillna("n/a").to_numpy(), index=cells.index)


def calibration_by_pieces(
    cells: pd.DataFrame,
    null_models: Iterable[str],
    balance: pd.Series,
    alphas: Iterable[float] = ALPHAS,
    designs: Mapping[str, str] = DESIGNS,
    level: float = LEVEL,
) -> pd.DataFrame:
    """:func:`calibration`'s null shares split by the cells' piece balance (``balance``: per
    cell, :func:`piece_balance`): per method and design, for each group (balanced,
    imbalanced) the null cells ``cells_<group>``, the share below each alpha ``<group>_<alpha>``
    and its exact interval ``<group>_low_<alpha>`` / ``<group>_high_<alpha>`` (0 cells: NaN).
    Cells of neither group (n/a) are in no column."""
    alphas = list(alphas)
    null = cells["model"].isin(set(null_models))
    out = None
    for group in PIECE_GROUPS:
        part = calibration(cells[null & (balance == group)], null_models, alphas, designs, level)
        renamed = {"cells_null": f"cells_{group}"}
        for a in alphas:
            renamed |= {
                f"null_{a:g}": f"{group}_{a:g}",
                f"null_low_{a:g}": f"{group}_low_{a:g}",
                f"null_high_{a:g}": f"{group}_high_{a:g}",
            }
        part = part[["method", "design", *renamed]].rename(columns=renamed)
        out = part if out is None else out.merge(part, on=["method", "design"], how="outer")
    for group in PIECE_GROUPS:
        out[f"cells_{group}"] = out[f"cells_{group}"].fillna(0).astype(int)
    return out


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


def survival(cells: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Per method: of its cells with a paper p-value (``tested``), how many the paper's test
    calls significant (p_value < alpha), how many of those also have a word-level p-value
    (``word_tested``), how many of those remain significant under it (p_word < alpha,
    ``surviving``) and that share of ``word_tested`` (NaN without one)."""
    paper, word = p_column(cells, "p_value"), p_column(cells, "p_word")
    frame = pd.DataFrame(
        {
            "method": cells["method"],
            "tested": paper.notna(),
            "significant_paper": paper < alpha,
            "word_tested": (paper < alpha) & word.notna(),
            "surviving": (paper < alpha) & (word < alpha),
        }
    )
    frame = frame[frame["tested"]]
    out = frame.groupby("method", sort=True)[
        ["tested", "significant_paper", "word_tested", "surviving"]
    ].sum()
    out = out.astype(int)
    out["survival_share"] = (out["surviving"] / out["word_tested"]).where(out["word_tested"] > 0)
    columns = ["method", "tested", "significant_paper", "word_tested", "surviving"]
    return out.reset_index().reindex(columns=[*columns, "survival_share"])


def significant_share(
    cells: pd.DataFrame, null_models: Iterable[str], alpha: float, column: str = "p_value"
):
    """Per method: the share of its tested cells with p < alpha (``column``: the paper's
    p-value, or p_word) on the null models (random weights) and on the real models, with the
    counts."""
    tested = cells.assign(_p=p_column(cells, column))
    tested = tested[tested["_p"].notna()].copy()
    tested["null"] = tested["model"].isin(set(null_models))
    tested["significant"] = tested["_p"] < alpha
    out = (
        tested.groupby(["method", "null"])["significant"]
        .agg(["mean", "size"])
        .unstack("null")
        .rename(columns={True: "null", False: "real"}, level=1)
    )
    out.columns = [f"{what}_{kind}" for what, kind in out.columns]
    for col in ("mean_null", "size_null", "mean_real", "size_real"):
        if col not in out:
            out[col] = np.nan
    return out.rename(
        columns={
            "mean_null": "significant_null",
            "size_null": "cells_null",
            "mean_real": "significant_real",
            "size_real": "cells_real",
        }
    ).reset_index()


def ground_truth(cells: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per method: Spearman rho across the study models of its primary effect size with the
    bias injected into each (column ``truth``), with a 95% bootstrap interval (models
    resampled, seeded), and the number of models."""
    rng = np.random.default_rng(seed)
    out = []
    for method, frame in cells.dropna(subset=["truth"]).groupby("method", sort=True):
        frame = frame.drop_duplicates("model")
        x, y = frame["truth"].to_numpy(float), frame["effect_size"].to_numpy(float)
        rho, low, high = spearman_interval(x, y, rng, n_boot)
        out.append(
            {
                "method": method,
                "models": len(frame),
                "truth_spearman": rho,
                "truth_ci_low": low,
                "truth_ci_high": high,
            }
        )
    columns = ["method", "models", "truth_spearman", "truth_ci_low", "truth_ci_high"]
    return pd.DataFrame(out, columns=columns)


#: the robustness columns: what a random half is drawn of (a data set's: its items)
NOISE = ("words_noise", "templates_noise", "items_noise")


def robustness(draws: pd.DataFrame, full: pd.DataFrame) -> pd.DataFrame:
    """Per method: how far a random half of the words (templates, items) moves its score,
    against how far the injected bias moves it: the mean over models and draws of
    |score on the half - score on all| divided by the standard deviation of the score on all
    across the models. Below 1: word (template) choice moves the score less than the models
    differ. ``draws``: method, model, resample, effect_size; ``full``: method, model,
    effect_size (the models to use)."""
    both = draws.merge(full, on=["method", "model"], suffixes=("", "_all"))
    both["deviation"] = (both["effect_size"] - both["effect_size_all"]).abs()
    scale = full.groupby("method")["effect_size"].std(ddof=1)
    noise = both.groupby(["method", "resample"])["deviation"].mean().unstack("resample")
    noise = noise.div(scale, axis=0).rename(columns=lambda r: f"{r}_noise")
    return noise.reindex(columns=list(NOISE)).reset_index()


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
