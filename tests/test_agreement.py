"""Agreement on one scale (biasbench.studies.agreement) and the extrinsic proxy
(biasbench.studies.validity.extrinsic): hand cases that tell each estimator from the others,
and the crossed bootstrap's coverage against the cells' bootstrap by simulation."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from biasbench.studies import agreement as agr
from biasbench.studies.validity import extrinsic, interval

from .conftest import score_row


def test_one_scale_by_hand():
    signed = np.array([-3.0, -1.0, 0.5, 2.0])
    magnitude = np.array([3.0, 1.0, 0.5, 2.0])
    x, y, scale = agr.one_scale(signed, magnitude, (False, True), (0.0, 0.0))
    assert scale == "|signed| vs magnitude" and list(x) == [3.0, 1.0, 0.5, 2.0]
    x, y, scale = agr.one_scale(magnitude, signed + 50, (True, False), (0.0, 50.0))
    assert scale == "magnitude vs |signed|" and list(y) == [3.0, 1.0, 0.5, 2.0]
    x, y, scale = agr.one_scale(signed, signed, (False, False), (0.0, 0.0))
    assert scale == "signed" and list(x) == list(signed)


def _cells(values: dict[str, list[float]], models: list[str], tests: list[str]) -> pd.DataFrame:
    rows = [
        score_row(method=m, model=model, test=test, descriptor="", effect_size=v, p_value=0.5)
        for m, vs in values.items()
        for v, (model, test) in zip(vs, [(a, b) for a in models for b in tests], strict=True)
    ]
    return pd.DataFrame(rows)


def test_agreement_on_one_scale_and_corrected_by_hand():
    """A signed score and a magnitude of the same bias: raw Spearman is low (the sign says
    the side, the magnitude does not), on one scale it is 1; corrected for reliabilities 0.64
    and 1 it is rho / 0.8 = 1.25, printed as computed and flagged as no correlation; n counts
    2 models x 3 tests."""
    signed = [-3.0, -2.0, -1.0, 1.0, 2.5, 3.5]
    cells = _cells(
        {"SEAT": signed, "SAME": [abs(v) ** 2 for v in signed], "RND": [v**3 for v in signed]},
        ["m1", "m2"],
        ["t1", "t2", "t3"],
    )
    pairs = agr.agreement(
        cells,
        0.05,
        n_boot=50,
        magnitude={"SAME": True},
        reliability={"SEAT": 0.64, "RND": 1.0},
    ).set_index(["method_a", "method_b"])
    same_seat = pairs.loc[("SAME", "SEAT")]
    assert same_seat["scale"] == "magnitude vs |signed|" and same_seat["spearman"] == 1.0
    assert sps.spearmanr([abs(v) ** 2 for v in signed], signed)[0] < 0.6  # the raw rho
    assert (same_seat["n"], same_seat["models"], same_seat["tests"]) == (6, 2, 3)
    rnd_seat = pairs.loc[("RND", "SEAT")]  # monotone, not linear: Spearman 1
    assert rnd_seat["scale"] == "signed" and rnd_seat["spearman"] == pytest.approx(1.0)
    assert np.corrcoef(signed, [v**3 for v in signed])[0, 1] < 0.97  # Pearson would not be
    assert rnd_seat["spearman_corrected"] == pytest.approx(1.25)  # 1 / 0.8, not clipped
    assert rnd_seat["corrected_beyond_1"]
    assert np.isnan(same_seat["spearman_corrected"])  # SAME's reliability unknown
    assert not same_seat["corrected_beyond_1"]


def test_a_crossed_resample_draws_whole_models_and_tests():
    """3 models x 4 tests: each cell's weight is its model's count times its test's; the
    counts sum to the numbers of models and tests, so a full grid always has 12 cells."""
    rows, columns = np.repeat(["a", "b", "c"], 4), np.tile(["w", "x", "y", "z"], 3)
    rng = np.random.default_rng(0)
    for _ in range(50):
        weight = agr.crossed_weights(rows, columns, rng).reshape(3, 4)
        assert weight.sum() == 12
        row, column = weight.sum(axis=1), weight.sum(axis=0)
        assert np.array_equal(weight * 12, np.outer(row, column))  # rank one: an outer product


def test_the_crossed_bootstrap_covers_where_the_cells_bootstrap_does_not():
    """600 simulated 8 x 8 grids with model and test effects shared by the two measures (x =
    a_model + b_test + e, y = a_model + b_test + f, all variances 1: Pearson 2/3, population
    Spearman (6/pi) asin(1/3)): the crossed bootstrap's 95% interval covers it in >= 93%, the
    bootstrap of cells as if independent in < 85%. At 600 draws a true 88% coverage passes
    the 93% bar with probability ~1e-4 (at 150 draws and a 90% bar: 27%)."""
    target = 6 / np.pi * np.arcsin(1 / 3)
    hits = {"crossed": 0, "cells": 0}
    reps = 600
    models, tests = np.repeat(np.arange(8), 8), np.tile(np.arange(8), 8)
    for seed in range(reps):
        rng = np.random.default_rng(seed)
        shared = np.repeat(rng.normal(size=8), 8) + np.tile(rng.normal(size=8), 8)
        x, y = shared + rng.normal(size=64), shared + rng.normal(size=64)
        low, high = interval(agr.crossed_bootstrap(x, y, models, tests, rng, 200), 0.95)
        hits["crossed"] += low <= target <= high
        low, high = interval(
            agr.crossed_bootstrap(x, y, np.arange(64), np.zeros(64), rng, 200), 0.95
        )
        hits["cells"] += low <= target <= high
    assert hits["crossed"] / reps >= 0.93
    assert hits["cells"] / reps < 0.85


def test_extrinsic_by_hand():
    """Four models: a method's mean score per model rises with the proxy's, but not linearly
    (rho 1, Pearson < 1); another falls with it at one model (rho 0.8); one shares 3 models."""
    proxy = [1.0, 2.0, 3.0, 4.0]
    rows = [
        score_row(method=m, model=f"m{i}", test="t", descriptor="", effect_size=v)
        for m, values in {
            "WinoBias F1 gap": proxy,
            "CEAT": [np.exp(v) for v in proxy],
            "SAME": [1.0, 3.0, 2.0, 4.0],
        }.items()
        for i, v in enumerate(values)
    ]
    rows.append(score_row(method="CEAT", model="m0", test="t2", descriptor="", effect_size=np.e))
    rows += [
        score_row(method="MAC", model=f"m{i}", test="t", descriptor="", effect_size=float(i))
        for i in range(3)
    ]
    out = extrinsic(pd.DataFrame(rows)).set_index("method")
    assert out.loc["CEAT", "extrinsic_spearman"] == pytest.approx(1.0)  # its mean per model
    assert out.loc["SAME", "extrinsic_spearman"] == pytest.approx(0.8)  # 1 - 6 * 2 / 60
    assert out.loc["MAC", "models_with_proxy"] == 3
    assert np.isnan(out.loc["MAC", "extrinsic_spearman"])  # under 4 models: none


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=4, max_size=12),
    st.integers(0, 2**32 - 1),
)
def test_weighted_spearman_is_spearman_on_the_repeated_cells(values, seed):
    """Ties and zero weights included: the vectorised weighted rho equals scipy's on the
    cells repeated by their weights."""
    rng = np.random.default_rng(seed)
    x = np.asarray(values, float)
    y = x + rng.integers(-2, 3, size=len(x))
    weights = rng.integers(0, 3, size=(5, len(x)))
    got = agr.weighted_spearman(x, y, weights)
    for row, value in zip(weights, got, strict=True):
        keep = np.repeat(np.arange(len(x)), row)
        if len(keep) < 4 or np.ptp(x[keep]) == 0 or np.ptp(y[keep]) == 0:
            assert np.isnan(value)
        else:
            assert value == pytest.approx(sps.spearmanr(x[keep], y[keep])[0])


def test_no_interval_from_too_few_models_to_resample():
    """3 models x 6 tests: rho, but no interval (10 distinct model multisets); 5 models x 6
    tests: an interval; 5 models on one test (not resampled): an interval too; so one model
    on 5 tests."""
    rng = np.random.default_rng(1)

    def pairs_over(models, tests):
        values = rng.normal(size=len(models) * len(tests))
        cells = _cells({"a": values, "b": values + rng.normal(size=len(values))}, models, tests)
        return agr.agreement(cells, 0.05, n_boot=100).iloc[0]

    few = pairs_over(["m1", "m2", "m3"], [f"t{i}" for i in range(6)])
    assert np.isfinite(few["spearman"]) and np.isnan(few["ci_low"]) and np.isnan(few["ci_high"])
    enough = pairs_over([f"m{i}" for i in range(5)], [f"t{i}" for i in range(6)])
    assert np.isfinite(enough["ci_low"]) and enough["ci_low"] <= enough["ci_high"]
    one_test = pairs_over([f"m{i}" for i in range(5)], ["t1"])
    assert np.isfinite(one_test["ci_low"])
    cases = ((4, 9), (5, 4), (5, 1), (1, 5), (5, 5), (2, 1))
    assert [agr.resamplable(m, t) for m, t in cases] == [False, False, True, True, True, False]
