"""The inference behind the null-model verdicts: the floor of a test's p-value on hand cases,
the cluster-aware interval's coverage on simulated clustered null p-values (where the
cell-level interval fails), the number of clusters a verdict needs, and the verdict's three
outcomes on synthetic p-values."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from biasbench import rows
from biasbench.inference import word_permutation_tests_mean_difference, word_sign_flip_tests
from biasbench.stats import (
    binomial_floor,
    permutation_test_mean_difference,
    permutation_tests,
    wilcoxon_floor,
)
from biasbench.studies import calibration as cal

# --- floors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("per_side", "one_sided", "two_sided"),
    [(1, 1 / 2, 1.0), (2, 1 / 6, 2 / 6), (3, 1 / 20, 2 / 20)],
)
def test_the_floor_of_an_exact_test_by_hand(per_side, one_sided, two_sided):
    """n words a side, every split enumerated: C(2n, n) splits, the observed one among them;
    two-sided, its mirror (the sides swapped) ties it. 1 v 1 cannot reach 0.5 two-sided, 3
    v 3 not 0.05: a CEAT cell of 3 names a side can never be significant at 0.05."""
    values = np.arange(2 * per_side, 0, -1.0)  # X holds the largest: the most extreme split
    kw = {"exact_max": 10_000, "n_samples": 1000, "seed": 0}
    greater = permutation_test_mean_difference(values, per_side, **kw)
    both = permutation_test_mean_difference(values, per_side, alternative="two-sided", **kw)
    assert greater.exact and greater.n_partitions == math.comb(2 * per_side, per_side)
    assert greater.floor == pytest.approx(one_sided) and greater.p_value == greater.floor
    assert both.floor == pytest.approx(two_sided) and both.p_value == both.floor
    # the same through the word-level tests (one item per word) and the split tests
    words = [f"w{i}" for i in range(2 * per_side)]
    word = word_permutation_tests_mean_difference(
        values, words, words[:per_side], ("greater", "two-sided"), **kw
    )
    assert [r.floor for r in word] == pytest.approx([one_sided, two_sided])
    split = permutation_tests(
        lambda s: values[s].mean(axis=1, keepdims=True) - 0.0,  # a statistic of any form
        2 * per_side,
        per_side,
        ("greater",),
        **kw,
    )
    assert split[0].floor == pytest.approx(one_sided)


def test_unequal_sides_have_no_mirror():
    """2 against 3: C(5, 2) = 10 splits and no split's mirror is a split: 1/10 both ways."""
    values = np.array([5.0, 4, 3, 2, 1])
    kw = {"exact_max": 10_000, "n_samples": 1000, "seed": 0}
    for alternative in ("greater", "two-sided"):
        res = permutation_test_mean_difference(values, 2, alternative=alternative, **kw)
        assert res.floor == pytest.approx(1 / 10)


def test_the_floor_of_a_sampled_test_is_one_over_samples_plus_one():
    values = np.random.default_rng(0).normal(size=40)  # C(40, 20) splits: sampled
    res = permutation_test_mean_difference(values, 20, exact_max=100, n_samples=999, seed=1)
    assert not res.exact and res.floor == pytest.approx(1 / 1000)
    words = [f"w{i // 2}" for i in range(40)]  # 20 words of two contexts: C(20, 10) splits
    (word,) = word_permutation_tests_mean_difference(
        values, words, {f"w{i}" for i in range(10)}, exact_max=100, n_samples=499, seed=1
    )
    assert not word.exact and word.floor == pytest.approx(1 / 500)
    assert word.p_value >= word.floor


def test_the_floor_of_sign_flips_binomial_and_wilcoxon_by_hand():
    # 3 word pairs: 2^3 sign vectors; all flipped ties the observed two-sided
    values, words = np.array([1.0, 2, 3, 4]), ["a", "a", "b", "c"]
    kw = {"exact_max": 100, "n_samples": 100, "seed": 0}
    two, greater = word_sign_flip_tests(values, words, ("two-sided", "greater"), **kw)
    assert (two.floor, greater.floor) == (2 / 8, 1 / 8)
    assert two.p_value == two.floor  # every value positive: the most extreme
    assert binomial_floor(10) == pytest.approx(2 * 0.5**10)
    assert binomial_floor(1) == 1.0 and math.isnan(binomial_floor(0))
    assert wilcoxon_floor(5) == pytest.approx(2 / 2**5)  # exact: all 5 ranks positive
    assert wilcoxon_floor(5) == pytest.approx(sps.wilcoxon([1, 2, 3, 4, 5]).pvalue)


@settings(max_examples=40, deadline=None)
@given(
    n_x=st.integers(1, 6),
    n_y=st.integers(1, 6),
    alternative=st.sampled_from(["greater", "two-sided"]),
    seed=st.integers(0, 2**16),
)
def test_no_p_value_is_below_its_floor(n_x, n_y, alternative, seed):
    values = np.random.default_rng(seed).normal(size=n_x + n_y)
    res = permutation_test_mean_difference(
        values, n_x, exact_max=500, n_samples=200, seed=seed, alternative=alternative
    )
    assert res.floor <= res.p_value <= 1


# --- the cluster-aware interval ------------------------------------------------------------


def _clustered_null(rng, clusters, share, icc, copies=(4, 9)):
    """Cells of ``clusters`` test designs, each with 4-8 seeded copies: a design's rejection
    probability drawn from a beta of mean ``share`` and intra-cluster correlation ``icc``
    (the copies of a design reject together), each copy rejecting with it."""
    ab = (1 - icc) / icc
    p = rng.beta(share * ab, (1 - share) * ab, clusters)
    sizes = rng.integers(*copies, clusters)
    labels = np.repeat(np.arange(clusters), sizes)
    rejected = rng.random(len(labels)) < np.repeat(p, sizes)
    return rejected, labels


@pytest.mark.parametrize(
    ("clusters", "share", "icc"),
    [(26, 0.05, 0.5), (26, 0.05, 0.9), (60, 0.01, 0.5), (100, 0.05, 0.3)],
)
def test_the_cluster_aware_interval_covers_where_the_cell_level_one_does_not(clusters, share, icc):
    """In 1,000 simulated null studies (seeded) the interval over clusters covers the true
    share >= 93% of the time; the cell-level binomial interval, which counts each copy as a
    confirmation, covers < 90%."""
    rng = np.random.default_rng(20261126)
    runs, aware, naive = 1000, 0, 0
    for _ in range(runs):
        rejected, labels = _clustered_null(rng, clusters, share, icc)
        _, low, high, n = cal.cluster_share(rejected, labels)
        assert n == clusters
        aware += low <= share <= high
        low, high = cal.clopper_pearson(int(rejected.sum()), len(rejected))
        naive += low <= share <= high
    assert aware / runs >= 0.93
    assert naive / runs < 0.90


def test_cluster_share_by_hand():
    rejected = np.array([1, 1, 1, 0, 0, 0, 0, 1], bool)
    labels = np.array(["a", "a", "a", "b", "b", "c", "c", "c"])
    share, low, high, n = cal.cluster_share(rejected, labels)
    # clusters a: 3/3, b: 0/2, c: 1/3 -> mean (1 + 0 + 1/3) / 3; interval over 3 trials
    assert n == 3 and share == pytest.approx(4 / 9)
    assert (low, high) == pytest.approx(cal.clopper_pearson(4 / 3, 3))
    assert cal.cluster_share(np.array([], bool), np.array([]))[3] == 0


# --- the clusters a verdict needs, and the verdict -------------------------------------------


def _miscalibration_power(clusters: int, alpha: float, ratio: float) -> float:
    """By brute force: P(lower bound of the interval over ``clusters`` trials > alpha) when
    each trial rejects with ratio x alpha."""
    return sum(
        sps.binom.pmf(k, clusters, ratio * alpha)
        for k in range(clusters + 1)
        if cal.clopper_pearson(k, clusters)[0] > alpha
    )


@pytest.mark.parametrize(("alpha", "needed"), [(0.05, 67), (0.01, 340)])
def test_the_clusters_a_verdict_needs_come_from_the_power(alpha, needed):
    assert cal.min_clusters(alpha) == needed
    assert _miscalibration_power(needed, alpha, cal.DETECT_RATIO) >= cal.POWER
    assert _miscalibration_power(needed - 1, alpha, cal.DETECT_RATIO) < cal.POWER


def _verdict_of(p_values: np.ndarray, labels: np.ndarray, alpha: float) -> str:
    _share, low, high, n = cal.cluster_share(p_values < alpha, labels)
    return cal.verdict(low, high, n, alpha)


def test_the_verdict_has_three_outcomes_on_synthetic_p_values():
    rng = np.random.default_rng(7)
    labels = np.repeat(np.arange(300), 5)  # 300 clusters of 5 copies
    # uniform p-values, independent copies: ~5% at 0.05, the upper bound below 0.10 (each
    # cluster one trial: 100 clusters would leave it at ~0.11, undetermined)
    uniform = rng.random(1500)
    assert _verdict_of(uniform, labels, 0.05) == "calibrated"
    # a third of the designs reject in every copy: miscalibrated
    biased = np.where(np.repeat(np.arange(300) % 3 == 0, 5), 0.001, uniform)
    assert _verdict_of(biased, labels, 0.05) == "miscalibrated"
    # 30 clusters: too few to call it calibrated, however clean
    few = rng.random(150)
    assert _verdict_of(few, np.repeat(np.arange(30), 5), 0.05) == (
        "undetermined (30 clusters; 67 needed)"
    )
    # enough clusters, but the upper bound above 2 x alpha: undetermined
    assert cal.verdict(0.01, 0.12, 80, 0.05) == "undetermined (80 clusters)"
    assert cal.verdict(float("nan"), float("nan"), 0, 0.05) == "n/a"


@pytest.mark.parametrize(("clusters", "alpha", "chance"), [(67, 0.05, 0.1456), (340, 0.01, 0.1455)])
def test_the_chance_that_an_exact_test_is_called_calibrated_by_hand(clusters, alpha, chance):
    """67 clusters at 0.05: Clopper-Pearson's upper bound is at most 0.10 for 0 or 1 rejecting
    clusters only, so the chance is P(Binomial(67, 0.05) <= 1) = 0.95^67 + 67 x 0.05 x
    0.95^66 = 0.1456; one cluster fewer and the rule calls nothing calibrated."""
    assert cal.chance_calibrated(clusters, alpha) == pytest.approx(chance, abs=1e-4)
    assert cal.chance_calibrated(clusters - 1, alpha) == 0.0
    by_hand = 0.95**67 + 67 * 0.05 * 0.95**66
    assert cal.chance_calibrated(67, 0.05) == pytest.approx(by_hand)


def test_the_chance_of_calibrated_matches_the_verdicts_of_simulated_exact_tests():
    """Clusters that reject with probability exactly alpha: the share of simulated studies
    the verdict calls calibrated matches chance_calibrated (within 3 binomial SEs), at the
    clusters needed for 80% the share is near 80%, and a test at 2 x alpha is called
    calibrated in at most 2.5% (the bound's own tail) at any cluster count: the verdict's
    two errors, separately."""
    rng = np.random.default_rng(11)
    for clusters in (67, 120, cal.clusters_for_verdict(0.05)):
        expected = cal.chance_calibrated(clusters, 0.05)
        called = 0
        for _ in range(2000):
            k = rng.binomial(clusters, 0.05)
            low, high = cal.clopper_pearson(k, clusters)
            called += cal.verdict(low, high, clusters, 0.05) == "calibrated"
        assert abs(called / 2000 - expected) <= 3 * math.sqrt(expected * (1 - expected) / 2000)
        bounds = (cal.clopper_pearson(rng.binomial(clusters, 0.10), clusters) for _ in range(2000))
        twice = sum(cal.verdict(*b, clusters, 0.05) == "calibrated" for b in bounds)
        assert twice / 2000 <= 0.025 + 3 * math.sqrt(0.025 * 0.975 / 2000)
    assert cal.chance_calibrated(cal.clusters_for_verdict(0.05), 0.05) >= cal.POWER


# --- boundaries ------------------------------------------------------------------------------


def test_a_verdict_at_exactly_the_clusters_it_needs():
    """At 67 clusters (min_clusters at 0.05) a clean share is called calibrated; one cluster
    fewer, the same share is undetermined."""
    assert cal.verdict(0.0, 0.09, 67, 0.05) == "calibrated"
    assert cal.verdict(0.0, 0.09, 66, 0.05) == "undetermined (66 clusters; 67 needed)"
    assert cal.verdict(0.0, 0.10, 67, 0.05) == "calibrated"  # the bound may equal 2 x alpha
    assert cal.verdict(0.0, 0.1001, 67, 0.05) == "undetermined (67 clusters)"
    assert cal.verdict(0.0501, 0.2, 10, 0.05) == "miscalibrated"  # few clusters, still found


def test_a_floor_exactly_at_alpha_cannot_reject():
    """3 words against 3, one-sided: 20 splits, floor 1/20 = 0.05. p < 0.05 is impossible, so
    at 0.05 the cell cannot reject and is counted apart; at 0.051 it can."""
    cells = pd.DataFrame({"p_value": [0.05, 0.3], "p_floor": [1 / 20, 0.001]})
    assert cal.can_reject(cells, "p_value", 0.05).tolist() == [False, True]
    assert cal.can_reject(cells, "p_value", 0.051).tolist() == [True, True]
    assert rows.cannot_reject(cells["p_value"], cells["p_floor"], 0.05).tolist() == [True, False]
