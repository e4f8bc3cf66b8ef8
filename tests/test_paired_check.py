"""The paired comparison held against the study's known differences: the pairs, and the count of
differences found with and against the truth, on hand-built study models."""

import numpy as np
import pandas as pd

from biasbench.scoring.datasets import OUTCOME_COLUMNS
from biasbench.studies.groundtruth.paired_check import COLUMNS, adjacent_pairs, paired_check


def record(mu, sigma=0.1, repeat=0, refit=None, stereotype=None):
    name = f"gt-mu{mu:.2f}-sd{sigma:.2f}-r{repeat}" + ("-refit" if refit else "")
    share = mu if stereotype is None else stereotype
    return {
        "name": name,
        "mu": mu,
        "sigma": sigma,
        "alignment": 0.0,
        "repeat": repeat,
        "refit": refit,
        "injected": {"stereotype": share},
    }


def test_pairs_share_everything_but_the_mean_and_are_adjacent():
    records = [record(0.7), record(0.3), record(0.5), record(0.3, sigma=0.2), record(0.5, 0.2)]
    records.append(record(0.5, refit="gt-mu0.50-sd0.10-r0"))  # a refit's own record
    records[0]["refit"] = records[0]["name"] + "-refit"  # refitted: it stays
    pairs = [(a["name"], b["name"]) for a, b in adjacent_pairs(records)]
    assert pairs == [
        ("gt-mu0.30-sd0.10-r0", "gt-mu0.50-sd0.10-r0"),
        ("gt-mu0.50-sd0.10-r0", "gt-mu0.70-sd0.10-r0"),
        ("gt-mu0.30-sd0.20-r0", "gt-mu0.50-sd0.20-r0"),
    ]


def test_a_latin_hypercubes_pairs_are_adjacent_means_in_the_same_sub_stratum():
    drawn = [
        record(0.42, 0.13, 1) | {"alignment": 0.05},
        record(0.31, 0.27, 0) | {"alignment": 0.11},
        record(0.36, 0.22, 1) | {"alignment": 0.17},
        record(0.47, 0.18, 0) | {"alignment": 0.02},
        record(0.55, 0.11, 0) | {"alignment": 0.09},
    ]
    pairs = [(a["mu"], b["mu"]) for a, b in adjacent_pairs(drawn, "latin-hypercube")]
    assert pairs == [(0.31, 0.47), (0.47, 0.55), (0.36, 0.42)]
    assert adjacent_pairs(drawn) == []  # on a grid's key no two share spread and alignment


def outcomes_of(name, preferred, units):
    return pd.DataFrame(
        {
            "model": name,
            "dataset": "crows_pairs",
            "method": "CrowS-Pairs",
            "encoding": "mlm-pll",
            "variant": "full",
            "item": [f"pair {i}" for i in range(len(preferred))],
            "unit": units,
            "category": "gender",
            "more": np.asarray(preferred, float),
            "less": 0.5,
            "preferred": preferred,
            "tie": 0,
        }
    )[["model", "dataset", *OUTCOME_COLUMNS]]


def test_a_measure_that_follows_the_truth_is_counted_with_it():
    units = [f"swap{i}" for i in range(10)]
    records = [
        record(0.3, stereotype=0.5),
        record(0.5, stereotype=0.6),
        record(0.7, stereotype=0.9),
        record(0.3, sigma=0.2, stereotype=0.5),
        record(0.5, sigma=0.2, stereotype=0.7),
    ]
    # the share preferred rises with the mean, except on the second spread, where it falls
    shares = {0.3: 2, 0.5: 6, 0.7: 10}
    frames = [
        outcomes_of(r["name"], [1] * shares[r["mu"]] + [0] * (10 - shares[r["mu"]]), units)
        for r in records[:3]
    ]
    frames += [
        outcomes_of(records[3]["name"], [1] * 10, units),
        outcomes_of(records[4]["name"], [0] * 10, units),
    ]
    table = paired_check(pd.concat(frames), records, alpha=0.05, seed=1)
    (row,) = table.to_dict("records")
    assert list(table.columns) == list(COLUMNS)
    assert (row["pairs"], row["truth_quantity"], row["items"]) == (3, "stereotype", 10)
    # +40 points over 4 swaps moved alone: 2 / 16 (not found); -100 over 10: 2 / 1024 (found)
    assert (row["found"], row["found_with_truth"], row["found_against_truth"]) == (1, 0, 1)
    # differences +40, +40, -100 against truth differences +0.1, +0.3, +0.2: ranks (2.5, 2.5,
    # 1) against (1, 3, 2), deviations (0.5, 0.5, -1) and (-1, 1, 0): no covariance
    assert row["spearman"] == 0
    assert row["median_difference"] == 40
