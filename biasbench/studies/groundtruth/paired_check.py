"""The paired comparison held against known differences: pairs of the ground-truth study's models
that differ only in the injected bias's mean (the same spread, alignment and repeat, adjacent
means), compared item by item on their data sets (:mod:`biasbench.studies.model_comparison`),
each difference set against the difference of the injected quantity its measure should follow
(its declared truth, ``Method.truth``).

A measure worth reading for "did my debiasing work" finds these differences, and in the
direction of the truth: per measure, how many pairs it calls different at alpha (Holm over the
measures of a pair), how many of those in the truth's direction and how many against it, and the
Spearman correlation of its differences with the truth's over the pairs; beside them the median
size of its differences and the median difference it could have detected (80% power): a measure
that finds nothing where its differences are far below what it can detect has too few items.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from biasbench.studies.groundtruth.data import REFIT
from biasbench.studies.groundtruth.truth import truth_of
from biasbench.studies.model_comparison import compare_models

COLUMNS = (
    "method",
    "encoding",
    "variant",
    "truth_quantity",
    "pairs",
    "found",
    "found_with_truth",
    "found_against_truth",
    "spearman",
    "median_difference",
    "median_detectable",
    "items",
)


def adjacent_pairs(records: Sequence[dict], design: str = "grid") -> list[tuple[dict, dict]]:
    """(lower mean, next higher mean) of every model pair that shares its spread, alignment and
    repeat on a grid; in a Latin hypercube, where no two models share a value, the pairs of
    adjacent means' models in the same sub-stratum of their mean (their ``repeat``): their
    means differ by about one stratum, their spreads and alignments by chance. A refit's own
    record is left out (it repeats a model's draw); the model it was refitted from (whose
    ``refit`` names it) stays."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        if record["name"].endswith(REFIT):
            continue
        key = (record["repeat"],)
        if design == "grid":
            key = (record["sigma"], record["alignment"], *key)
        groups.setdefault(key, []).append(record)
    out = []
    for key in sorted(groups):
        ordered = sorted(groups[key], key=lambda r: r["mu"])
        out += list(zip(ordered, ordered[1:], strict=False))
    return out


def paired_check(
    outcomes: pd.DataFrame,
    records: Sequence[dict],
    *,
    alpha: float,
    seed: int,
    design: str = "grid",
) -> pd.DataFrame:
    """The check's table (:data:`COLUMNS`): ``outcomes`` every study model's item outcomes (a
    ``model`` and a ``dataset`` column beside :data:`~biasbench.scoring.datasets.OUTCOME_COLUMNS`),
    ``records`` the study models (name, mu, sigma, alignment, repeat, refit, injected) placed
    by ``design`` (:func:`adjacent_pairs`)."""
    rows = []
    for low, high in adjacent_pairs(records, design):
        mine = {name: outcomes[outcomes["model"] == name] for name in (low["name"], high["name"])}
        if any(part.empty for part in mine.values()):
            continue
        pair = {
            dataset: (
                mine[low["name"]][mine[low["name"]]["dataset"] == dataset],
                mine[high["name"]][mine[high["name"]]["dataset"] == dataset],
            )
            for dataset in sorted(set(mine[low["name"]]["dataset"]))
        }
        table = compare_models(pair, names=(low["name"], high["name"]), seed=seed, alpha=alpha)
        for row in table.to_dict("records"):
            quantity = truth_of(row["method"]).quantity
            truth = high["injected"][quantity] - low["injected"][quantity]
            rows.append({**row, "truth_quantity": quantity, "truth_difference": truth})
    if not rows:
        return pd.DataFrame(columns=list(COLUMNS))
    frame = pd.DataFrame(rows)
    out = []
    for (method, encoding, variant), part in frame.groupby(
        ["method", "encoding", "variant"], sort=True
    ):
        found = part["significant"].astype(bool)
        same = np.sign(part["difference"]) == np.sign(part["truth_difference"])
        varies = part["difference"].nunique() > 1 and part["truth_difference"].nunique() > 1
        out.append(
            {
                "method": method,
                "encoding": encoding,
                "variant": variant,
                "truth_quantity": part["truth_quantity"].iloc[0],
                "pairs": len(part),
                "found": int(found.sum()),
                "found_with_truth": int((found & same).sum()),
                "found_against_truth": int((found & ~same).sum()),
                "spearman": float(
                    part["difference"].corr(part["truth_difference"], method="spearman")
                )
                if varies
                else np.nan,
                "median_difference": float(part["difference"].abs().median()),
                "median_detectable": float(part["detectable"].median()),
                "items": int(part["items"].max()),
            }
        )
    return pd.DataFrame(out, columns=list(COLUMNS))
