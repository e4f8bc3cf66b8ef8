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
    from biasbench.stats import sampled_subsets

    rows = sampled_subsets(10, 5, 200, 0, distinct=True)
    assert len({r.tobytes() for r in rows}) == 200
    assert rows.shape == (200, 5)


def test_distinct_partitions_are_the_first_distinct_draws():
    """Dropping repeats keeps the first draw of each subset and tops up from the same stream:
    the first 200 distinct rows of the plain draws, in draw order."""
    from biasbench.stats import sampled_subsets

    plain = sampled_subsets(10, 5, 5000, 4, distinct=False)
    _, first = np.unique(plain, axis=0, return_index=True)
    expected = plain[np.sort(first)][:200]
    np.testing.assert_array_equal(sampled_subsets(10, 5, 200, 4, distinct=True), expected)


def _smallest_by_sort(keys, k):
    """Reference: argpartition's k smallest positions of each row, sorted (the draw before)."""
    draw = keys.argpartition(k, axis=1)[:, :k].astype(np.int32)
    draw.sort(axis=1)
    return draw


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 300),
    rows=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_the_k_smallest_positions_are_argpartition_s_sorted(n, rows, seed, data):
    """The float32 shortcut selects exactly the k smallest float64 keys, in ascending
    position order: on uniform keys, and on keys squeezed so that many share a float32 (a
    tie at the boundary sends the row to float64) or even a float64 value (one distinct
    value per position, shuffled), and on keys with float64 ties (argpartition's own choice)."""
    from biasbench.stats import _smallest

    k = data.draw(st.integers(1, n - 1))
    rng = np.random.default_rng(seed)
    uniform = rng.random((rows, n))
    # n distinct doubles 1 ulp apart (all one float32), shuffled per row
    squeezed = 0.5 + np.arange(n) * np.spacing(0.5)
    squeezed = np.take_along_axis(
        np.broadcast_to(squeezed, (rows, n)),
        rng.permuted(np.tile(np.arange(n), (rows, 1)), axis=1),
        1,
    )
    mixed = np.where(rng.random((rows, 1)) < 0.5, uniform, squeezed)
    tied = rng.integers(0, 3, (rows, n)).astype(np.float64)
    for keys in (uniform, squeezed, mixed, tied):
        got = _smallest(np.ascontiguousarray(keys), k)
        assert got.dtype == np.int32 and got.shape == (rows, k)
        np.testing.assert_array_equal(got, _smallest_by_sort(keys, k))


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(513, 3000),
    rows=st.integers(1, 30),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_the_kth_smallest_of_a_long_row_is_the_partition_s(n, rows, seed, data):
    """Above 512 keys a row's (k+1)-th smallest comes from a window of its sorted keys: the
    same value as a partition of the whole row on uniform keys, on keys the window misses
    (squared: not uniform, every row partitioned whole), on a mix of both and on ties."""
    from biasbench.stats import _kth_smallest

    k = data.draw(st.integers(1, n - 1))
    rng = np.random.default_rng(seed)
    uniform = rng.random((rows, n)).astype(np.float32)
    squared = uniform**2
    mixed = np.where(rng.random((rows, 1)) < 0.5, uniform, squared)
    tied = rng.integers(0, 4, (rows, n)).astype(np.float32) / 4
    for keys in (uniform, squared, mixed, tied):
        np.testing.assert_array_equal(
            _kth_smallest(keys, k), np.partition(keys, k, axis=1)[:, k], strict=True
        )


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 60),
    rows=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_a_stratum_s_draw_marks_argpartition_s_choice(n, rows, seed, data):
    """The stratified splits mark each row's k smallest keys: argpartition's k, on distinct
    keys and on keys with ties at the boundary (argpartition's own choice then)."""
    from biasbench.inference import _smallest_mask

    k = data.draw(st.integers(1, n))
    rng = np.random.default_rng(seed)
    for keys in (rng.random((rows, n)), rng.integers(0, 3, (rows, n)).astype(np.float64)):
        expected = np.zeros((rows, n), dtype=bool)
        np.put_along_axis(expected, np.argpartition(keys, k - 1, axis=1)[:, :k], True, axis=1)
        np.testing.assert_array_equal(_smallest_mask(keys, k), expected)


def test_sampled_partitions_are_the_draws_of_before_to_the_bit():
    """The subsets drawn for a large test (n in the thousands, where the draw was 40% of a
    study job) are those of argpartition and a sort on the same key stream."""
    from biasbench.stats import sampled_subsets

    n, k, m, seed = 1680, 1316, 300, 11
    keys = np.random.default_rng(seed).random((m, n))  # one chunk: the same stream
    np.testing.assert_array_equal(
        sampled_subsets.__wrapped__(n, k, m, seed, False), _smallest_by_sort(keys, k)
    )


def test_the_partition_cache_keeps_a_large_result_past_small_ones_within_its_bytes():
    """The most recent results stay, bounded in count and bytes: a large array survives the
    small calls made between two uses of it (the eviction that cost a study job half of its
    largest draws), the least recent go first, and one result over the byte bound is returned
    but not kept."""
    from biasbench.stats import _recent_arrays

    calls = []

    @_recent_arrays(max_entries=3, max_bytes=1000)
    def make(size, tag=0):
        calls.append((size, tag))
        return np.zeros(size, dtype=np.uint8)

    big = make(600)
    make(10), make(20)
    assert make(600) is big and calls == [(600, 0), (10, 0), (20, 0)]
    make(30)  # a fourth entry: the least recent (10) goes
    make(10)
    assert calls[-1] == (10, 0) and len(calls) == 5
    make(500)  # 600 + 500 > 1000 bytes: the least recent go until it fits
    make(600)
    assert calls[-1] == (600, 0)
    make(2000)  # alone over the bound: returned, not kept
    make(2000)
    assert calls[-2:] == [(2000, 0), (2000, 0)]
    assert make(5, tag=1) is make(5, tag=1) and calls[-1] == (5, 1)


def test_subset_sums_are_the_plain_gather_to_the_bit():
    from biasbench.stats import sampled_subsets, subset_sums

    values = np.random.default_rng(0).normal(size=300)
    subsets = sampled_subsets(300, 150, 3000, 0, distinct=False)  # several blocks
    np.testing.assert_array_equal(subset_sums(values, subsets), values[subsets].sum(axis=1))


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
