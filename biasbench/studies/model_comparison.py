"""Did the second model move? Two models' per-item outcomes on the same data sets, compared
item by item (:mod:`biasbench.studies.paired` holds the tests): CrowS-Pairs (per encoding) and
StereoSet's SS per item (per scoring and task; its unit the item's target term).

A preference share (CrowS-Pairs: the pairs whose more stereotyping sentence the model scores
higher) differs between two models only through the discordant pairs. The pairs are not
independent units: pairs that swap the same words ("women | men") share what a model reads in
those words, so the decision rests on the sign-flip test that exchanges the two models' outcomes
on every pair of one swap together (exact under "the two models are exchangeable on every
swap"), and the interval resamples the swaps. McNemar's exact and mid-p tests, which take every
pair as independent, are printed beside it: on models that read the swapped words alone they
reject too often (tests/test_model_comparison.py measures it).

Fixed before any run: the decision p is ``p_value`` (the swap-level test) after Holm's correction
over every measure of the comparison, at ``alpha``; ``detectable`` is the smallest difference
(in points) each measure finds with 80% power at alpha over the measures compared (Bonferroni's
level, which Holm's first step equals), from the spread of its swaps' differences; ``stderr``
is the difference's standard error over the swaps (the same spread over the root of their
number).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasbench.errors import InputError
from biasbench.stats import derived_seed, holm_bonferroni
from biasbench.studies.paired import (
    detectable_difference,
    discordant,
    mcnemar,
    paired_interval,
    paired_permutation,
)

#: one row per measure both models have (the comparison's table); ``family``: data set,
#: embedding or probability, ``dataset`` the data set or the test
COLUMNS = (
    "family",
    "dataset",
    "method",
    "encoding",
    "variant",
    "base",
    "against",
    "items",
    "units",
    "base_score",
    "against_score",
    "difference",
    "low",
    "high",
    "stderr",
    "base_only",
    "against_only",
    "p_mcnemar",
    "p_mcnemar_mid",
    "p_value",
    "p_floor",
    "p_holm",
    "detectable",
    "significant",
)


def paired_outcomes(base: pd.DataFrame, against: pd.DataFrame) -> pd.DataFrame:
    """Both models' outcome rows of one (method, encoding) joined on the item; an item one
    model lacks, or that the two files give different units, is an error naming it."""
    joined = base.merge(against, on="item", how="outer", suffixes=("_base", "_against"))
    missing = joined[joined["unit_base"].isna() | joined["unit_against"].isna()]
    if len(missing):
        raise InputError(
            f"paired comparison: {len(missing)} item(s) scored for one model only, e.g. "
            f"{missing['item'].iloc[0]!r}: compare models scored on the same items "
            "(the same datasets.limits and seed)"
        )
    differ = joined[joined["unit_base"] != joined["unit_against"]]
    if len(differ):
        raise InputError(f"paired comparison: item {differ['item'].iloc[0]!r} has two units")
    return joined


#: what names one measure in an outcome table
MEASURE = ["method", "encoding", "variant"]


def _measure(frame: pd.DataFrame, key: tuple) -> pd.DataFrame:
    return frame[(frame[MEASURE] == pd.Series(key, index=MEASURE)).all(axis=1)]


def share_rows(
    base: pd.DataFrame,
    against: pd.DataFrame,
    *,
    dataset: str,
    names: tuple[str, str],
    seed: int,
    n_perm: int = 9_999,
    n_boot: int = 2_000,
) -> list[dict]:
    """One data set's rows: for every (method, encoding) both outcome tables hold (columns
    of :data:`biasbench.scoring.datasets.OUTCOME_COLUMNS`; a measure is a method, encoding and
    variant), the share of items on which each
    model prefers the more stereotyping sentence (percent), the difference ``against - base``
    with its 95% interval over the units, the discordant counts, McNemar's p (exact, mid-p),
    the swap-level p with its floor, and the spread of the units' differences (``spread``:
    the standard deviation of a unit's summed difference times the units per item, what the
    detectable difference scales)."""
    shared = sorted(
        set(map(tuple, base[MEASURE].astype(str).values))
        & set(map(tuple, against[MEASURE].astype(str).values))
    )
    out = []
    for method, encoding, variant in shared:
        key = (method, encoding, variant)
        joined = paired_outcomes(_measure(base, key), _measure(against, key))
        first = 100.0 * joined["preferred_base"].to_numpy(float)
        second = 100.0 * joined["preferred_against"].to_numpy(float)
        units = joined["unit_base"].to_numpy()
        part_seed = derived_seed(seed, dataset, method, encoding, variant, *names)
        p_value, floor = paired_permutation(second - first, units, seed=part_seed, n_perm=n_perm)
        difference, low, high = paired_interval(
            second, first, units, np.mean, np.random.default_rng(part_seed), n_boot
        )
        only_base, only_against = discordant(joined["preferred_base"], joined["preferred_against"])
        totals = pd.Series(second - first).groupby(units).sum()
        spread = (
            float(totals.std(ddof=1)) * len(totals) / len(joined) if len(totals) > 1 else np.nan
        )
        out.append(
            {
                "dataset": dataset,
                "method": method,
                "encoding": encoding,
                "variant": variant,
                "base": names[0],
                "against": names[1],
                "items": len(joined),
                "units": len(totals),
                "base_score": float(first.mean()),
                "against_score": float(second.mean()),
                "difference": difference,
                "low": low,
                "high": high,
                "base_only": only_base,
                "against_only": only_against,
                "p_mcnemar": mcnemar(only_base, only_against),
                "p_mcnemar_mid": mcnemar(only_base, only_against, mid_p=True),
                "p_value": p_value,
                "p_floor": floor,
                "spread": spread,
            }
        )
    return out


def _exchanged_row(family: str, row: dict) -> dict:
    """An embedding or probability measure's row (:mod:`biasbench.studies.unit_exchange`) in
    the table's columns: no discordant counts or McNemar's test (its outcome is no
    preference), the spread its bootstrap standard error over the units gives (so the
    detectable difference scales it as a data set's)."""
    return {
        "family": family,
        **row,
        "base_only": np.nan,
        "against_only": np.nan,
        "p_mcnemar": np.nan,
        "p_mcnemar_mid": np.nan,
        "spread": row["stderr"] * np.sqrt(row["units"]),
    }


def compare_models(
    outcomes: dict[str, tuple[pd.DataFrame, pd.DataFrame]],
    *,
    names: tuple[str, str],
    seed: int,
    alpha: float = 0.05,
    n_perm: int = 9_999,
    n_boot: int = 2_000,
    embedding: list[dict] = (),
    probability: list[dict] = (),
) -> pd.DataFrame:
    """The comparison's table (:data:`COLUMNS`) of two models (``names``: base, against) over
    the data sets in ``outcomes`` (data set -> the two models' outcome tables), the
    ``embedding`` measures' rows (:mod:`biasbench.studies.embedding_comparison`) and the
    ``probability`` ones (LPBS, p-CEAT: :mod:`biasbench.studies.probability_comparison`): the
    rows of
    :func:`share_rows`, Holm's adjustment over all of them, the decision at ``alpha``, and
    the difference each measure detects with 80% power at alpha over the measures."""
    rows = [
        {"family": "data set", **row}
        for dataset, (base, against) in outcomes.items()
        for row in share_rows(
            base, against, dataset=dataset, names=names, seed=seed, n_perm=n_perm, n_boot=n_boot
        )
    ]
    rows += [_exchanged_row("embedding", row) for row in embedding]
    rows += [_exchanged_row("probability", row) for row in probability]
    if not rows:
        raise InputError(
            f"paired comparison of {names[0]} and {names[1]}: no measure both models have "
            "(per-item outcomes of a data set, vectors of a test, or LPBS log-probabilities)"
        )
    frame = pd.DataFrame(rows)
    frame["p_holm"] = holm_bonferroni(frame["p_value"].to_numpy())
    frame["significant"] = frame["p_holm"] < alpha
    frame["stderr"] = frame["spread"] / np.sqrt(frame["units"])
    frame["detectable"] = [
        detectable_difference(s, n, alpha / len(frame))
        for s, n in zip(frame["spread"], frame["units"], strict=True)
    ]
    return frame[list(COLUMNS)]
