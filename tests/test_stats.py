import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.stats import (
    holm_bonferroni,
    n_partitions,
    permutation_test_mean_difference,
    permutation_tests,
)


def brute_force_p(values, n_x):
    """Reference: enumerate every X_i with itertools, score with the WEAT sum statistic."""
    values = list(values)
    observed = sum(values[:n_x]) - sum(values[n_x:])
    hits = total = 0
    for idx in itertools.combinations(range(len(values)), n_x):
        chosen = set(idx)
        s = sum(values[i] for i in chosen) - sum(v for i, v in enumerate(values) if i not in chosen)
        hits += s >= observed - 1e-9
        total += 1
    return hits / total


def test_hand_computed_exact_p():
    # values 3,2 | 1,0 : six splits, sums of the first half: 5 4 3 3 2 1; observed 5 -> p = 1/6
    res = permutation_test_mean_difference(
        np.array([3.0, 2.0, 1.0, 0.0]), 2, exact_max=10, n_samples=100, seed=0
    )
    assert res.exact and res.n_partitions == 6
    assert res.p_value == pytest.approx(1 / 6)
    # observed split {2,1}: sums >= 3 are 5,4,3,3 -> p = 4/6 (ties count, '>=')
    res = permutation_test_mean_difference(
        np.array([2.0, 1.0, 3.0, 0.0]), 2, exact_max=10, n_samples=100, seed=0
    )
    assert res.p_value == pytest.approx(4 / 6)


small_sets = st.integers(1, 5).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-20, 20).map(lambda v: v / 4), min_size=2 * n, max_size=2 * n),
        st.just(n),
    )
)


@settings(max_examples=200, deadline=None)
@given(small_sets)
def test_exact_p_equals_brute_force(case):
    values, n_x = case
    res = permutation_test_mean_difference(
        np.array(values), n_x, exact_max=10_000, n_samples=100, seed=1
    )
    assert res.exact
    assert res.n_partitions == math.comb(2 * n_x, n_x)
    assert res.p_value == pytest.approx(brute_force_p(values, n_x), abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=4, max_size=12), st.integers(0, 2**31))
def test_p_value_is_a_probability_and_seeded(values, seed):
    n_x = len(values) // 2
    a = permutation_test_mean_difference(
        np.array(values), n_x, exact_max=1, n_samples=200, seed=seed
    )
    b = permutation_test_mean_difference(
        np.array(values), n_x, exact_max=1, n_samples=200, seed=seed
    )
    assert a == b
    assert 0 < a.p_value <= 1


def test_sampled_p_approximates_exact_p():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(0.4, 1, 8), rng.normal(0, 1, 8)])
    exact = permutation_test_mean_difference(values, 8, exact_max=10**6, n_samples=100, seed=0)
    sampled = permutation_test_mean_difference(values, 8, exact_max=1, n_samples=5000, seed=0)
    assert exact.exact and not sampled.exact
    assert sampled.n_partitions == 5000
    # binomial standard error at p ~ 0.1 with 5000 draws is ~0.004
    assert abs(sampled.p_value - exact.p_value) < 0.02


def test_sampled_partitions_are_distinct():
    from biasbench.stats import _sampled_subsets

    rows = _sampled_subsets(10, 5, 200, 0, distinct=True)
    assert len({r.tobytes() for r in rows}) == 200
    assert rows.shape == (200, 5)


def test_distinct_partitions_are_the_first_distinct_draws():
    """Dropping repeats keeps the first draw of each subset and tops up from the same stream:
    the first 200 distinct rows of the plain draws, in draw order."""
    from biasbench.stats import _sampled_subsets

    plain = _sampled_subsets(10, 5, 5000, 4, distinct=False)
    _, first = np.unique(plain, axis=0, return_index=True)
    expected = plain[np.sort(first)][:200]
    np.testing.assert_array_equal(_sampled_subsets(10, 5, 200, 4, distinct=True), expected)


def test_subset_sums_are_the_plain_gather_to_the_bit():
    from biasbench.stats import _sampled_subsets, _subset_sums

    values = np.random.default_rng(0).normal(size=300)
    subsets = _sampled_subsets(300, 150, 3000, 0, distinct=False)  # several blocks
    np.testing.assert_array_equal(_subset_sums(values, subsets), values[subsets].sum(axis=1))


def test_statistics_tested_together_as_one_at_a_time():
    def split_stats(subsets):
        sums = values[subsets].sum(axis=1)
        return np.column_stack([sums, sums - values.sum() / 2])

    values = np.random.default_rng(1).normal(size=12)
    kw = dict(exact_max=10, n_samples=300, seed=3)  # sampled: C(12, 6) = 924 splits
    both = permutation_tests(split_stats, 12, 6, ("greater", "two-sided"), **kw)
    for j, alternative in enumerate(("greater", "two-sided")):
        column = functools.partial(lambda s, j: split_stats(s)[:, [j]], j=j)
        assert permutation_tests(column, 12, 6, [alternative], **kw) == [both[j]]
    assert not both[0].exact and both[0].n_partitions == 300


def test_fewer_partitions_than_samples_enumerates():
    res = permutation_test_mean_difference(np.arange(6.0), 3, exact_max=1, n_samples=1000, seed=0)
    assert res.exact and res.n_partitions == n_partitions(3, 3) == 20


def test_empty_group_rejected():
    with pytest.raises(ValueError, match="non-empty"):
        permutation_test_mean_difference(np.arange(3.0), 3, exact_max=10, n_samples=10, seed=0)


def test_holm_hand_computed():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> running max 0.06
    np.testing.assert_allclose(holm_bonferroni(p), [0.03, 0.06, 0.06, 0.02])
    out = holm_bonferroni(np.array([np.nan, 0.5, 0.9]))
    assert np.isnan(out[0])
    np.testing.assert_allclose(out[1:], [1.0, 1.0])


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_bounds(p):
    p = np.array(p)
    adj = holm_bonferroni(p)
    assert np.all(adj >= p - 1e-15)
    assert np.all(adj <= 1)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= -1e-15)
