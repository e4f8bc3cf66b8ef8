"""Agreement between methods: which measures agree, as the rank correlation of two methods'
scores over the cells both score (:mod:`biasbench.studies.cells`), on one scale (a signed score
against a magnitude enters as its distance from its neutral point), with an interval from a
crossed bootstrap of models and tests, corrected for the two methods' reliability.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from biasbench.studies.cells import CELL
from biasbench.studies.validity import interval, spearman, weighted_spearman

#: the fewest distinct levels of a resampled factor (models; tests, where there are several)
#: behind an interval: 3 models give 10 distinct multisets, a "95% interval" over which is
#: no interval; 5 give 126
MIN_LEVELS = 5


def resamplable(models: int, tests: int) -> bool:
    """Whether the crossed bootstrap has enough distinct models and tests to give an interval:
    :data:`MIN_LEVELS` of each factor it resamples (a factor of one level is not resampled,
    and needs no more)."""
    return all(levels == 1 or levels >= MIN_LEVELS for levels in (models, tests))


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


def crossed_weights(rows: np.ndarray, columns: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One resample of a crossed design: as many rows (models) as there are drawn with
    replacement, and as many columns (tests) independently; each cell's weight is how often
    its row was drawn times how often its column was."""
    row_codes, row_names = pd.factorize(np.asarray(rows))
    column_codes, column_names = pd.factorize(np.asarray(columns))
    row_counts = rng.multinomial(len(row_names), np.full(len(row_names), 1 / len(row_names)))
    column_counts = rng.multinomial(
        len(column_names), np.full(len(column_names), 1 / len(column_names))
    )
    return row_counts[row_codes] * column_counts[column_codes]


def crossed_bootstrap(
    x: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
    columns: np.ndarray,
    rng: np.random.Generator,
    n_boot: int = 1000,
) -> np.ndarray:
    """Spearman's rho of x and y on ``n_boot`` resamples of a crossed design
    (:func:`crossed_weights`): a cell shares its model with the model's other tests and its
    test with the test's other models, which resampling cells ignores (in
    ``tests/test_agreement.py`` the cells' bootstrap covers under 85%, this one over 90%)."""
    weights = np.stack([crossed_weights(rows, columns, rng) for _ in range(n_boot)])
    return weighted_spearman(x, y, weights)


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
    crossed bootstrap (models and tests resampled, seeded; none under :data:`MIN_LEVELS`
    models or tests: :func:`resamplable`), the rho corrected for the two
    methods' ``reliability`` (:func:`biasbench.studies.reliability.disattenuate`, unclipped,
    ``corrected_beyond_1`` where it is no correlation; NaN without both), the share of shared
    cells with the same sign, and the share with the same significance verdict (p < alpha;
    over the cells where both have a p-value)."""
    from biasbench.studies.reliability import beyond_one, disattenuate

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
            rho = spearman(x, y)
            low = high = float("nan")
            if np.isfinite(rho) and resamplable(models.nunique(), tests.nunique()):
                low, high = interval(crossed_bootstrap(x, y, models, tests, rng, n_boot), 0.95)
            pp = p.reindex(both.index)[[a, b]].dropna() if a in p and b in p else pd.DataFrame()
            corrected = disattenuate(rho, reliability.get(a, np.nan), reliability.get(b, np.nan))
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
                    "spearman_corrected": corrected,
                    "corrected_beyond_1": beyond_one(corrected),
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
    columns += ["corrected_beyond_1"]
    columns += ["sign_agreement", "n_tested", "significance_agreement"]
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
