"""The word-level test with words exchanged only within their word-piece stratum: exact on a
hand case, a design with nothing to exchange says so (p = floor = 1), and on simulated null
data with a piece-count confound it holds alpha where the plain word test does not."""

import itertools
import math

import numpy as np
import pytest

from biasbench.inference import stratified_splits, word_permutation_tests_mean_difference

ALL = ("greater", "less", "two-sided")


def stratified(values, words, x_words, stratum_of, alternatives=("greater",), **kw):
    return word_permutation_tests_mean_difference(
        values, words, x_words, alternatives, stratum_of=stratum_of, **kw
    )


KW = {"exact_max": 10_000, "n_samples": 1000, "seed": 0}


def test_hand_computed_stratified_p():
    """X: x1 (1 piece) = 3, x2 (2 pieces) = 5; Y: y1 (1) = 1, y2 (2) = 4, y3 (2) = 2. The
    splits keep one X word of each stratum: {x1 or y1} x {x2, y2 or y3}, 2 x 3 = 6, their X
    sums 8 (observed), 7, 5, 6, 5, 3; the difference of means (5 s - 30) / 6. greater: only
    8 -> 1/6; two-sided: |d| >= 10/6 at 8 and 3 -> 2/6; less: all -> 1. The plain word test
    splits all 10 pairs: sums >= 8 are 8 and 9 -> 2/10."""
    values = [3.0, 5, 1, 4, 2]
    words = ["x1", "x2", "y1", "y2", "y3"]
    pieces = {"x1": 1, "y1": 1, "x2": 2, "y2": 2, "y3": 2}
    res = stratified(values, words, {"x1", "x2"}, pieces, ALL, **KW)
    assert [r.p_value for r in res] == pytest.approx([1 / 6, 1, 2 / 6])
    assert all(r.exact and r.n_partitions == 6 for r in res)
    # the 2-piece stratum has 1 X word of 3: no split's mirror is a split, floor 1/6 both ways
    assert [r.floor for r in res] == pytest.approx([1 / 6] * 3)
    (plain,) = word_permutation_tests_mean_difference(values, words, {"x1", "x2"}, **KW)
    assert plain.p_value == pytest.approx(2 / 10)


def test_contexts_move_with_their_word_and_one_stratum_is_the_plain_test():
    rng = np.random.default_rng(3)
    values = rng.normal(size=12)
    words = [f"w{i // 2}" for i in range(12)]  # six words of two contexts
    x = {"w0", "w1", "w2"}
    one = stratified(values, words, x, dict.fromkeys(set(words), 1), ALL, **KW)
    plain = word_permutation_tests_mean_difference(values, words, x, ALL, **KW)
    assert [r.p_value for r in one] == [r.p_value for r in plain]
    assert [r.floor for r in one] == [r.floor for r in plain]


def test_a_design_with_nothing_to_exchange_has_p_and_floor_one():
    """X words all of one piece, Y words all of two: every stratum one-sided, one split."""
    words = ["x1", "x2", "y1", "y2"]
    pieces = {"x1": 1, "x2": 1, "y1": 2, "y2": 2}
    (res,) = stratified([0.0, 1, 2, 3], words, {"x1", "x2"}, pieces, **KW)
    assert (res.p_value, res.floor, res.n_partitions) == (1.0, 1.0, 1)
    with pytest.raises(ValueError, match="words without a stratum: \\['y2'\\]"):
        stratified([0.0, 1, 2, 3], words, {"x1", "x2"}, {"x1": 1, "x2": 1, "y1": 2}, **KW)


@pytest.mark.parametrize(
    "strata, n_x",
    [
        ([1, 2, 1, 2, 3, 1, 2, 2, 1, 3], 5),
        ([1] * 6 + [2] * 4 + [1] * 4 + [2] * 6, 10),
        ([2, 2, 1, 1, 1, 1, 1, 1], 2),  # a stratum with no X word
        ([1, 1, 1, 2, 2, 2], 6),  # no Y word: one split
    ],
)
def test_the_exact_splits_are_the_product_of_each_stratum_s_subsets(strata, n_x):
    """Row for row what the product of the strata's combinations gives (itertools' order,
    the first stratum varying slowest), each row sorted."""
    groups: dict = {}
    for j, s in enumerate(strata):
        groups.setdefault(s, []).append(j)
    per_stratum = [
        list(itertools.combinations(g, sum(j < n_x for j in g))) for g in groups.values()
    ]
    expected = np.array(
        [sorted(itertools.chain(*c)) for c in itertools.product(*per_stratum)], dtype=np.int32
    ).reshape(-1, n_x)
    subsets, exact = stratified_splits(strata, n_x, exact_max=10**6, n_samples=10, seed=1)
    assert exact and subsets.dtype == np.int32
    assert np.array_equal(subsets, expected)


def test_sampled_splits_keep_each_stratum_s_count_and_are_seeded():
    strata = [1] * 10 + [2] * 10 + [1] * 10 + [2] * 10  # 20 X words: 10 of each stratum
    subsets, exact = stratified_splits(strata, 20, exact_max=100, n_samples=500, seed=7)
    assert not exact and subsets.shape == (500, 20)
    pieces = np.array(strata)[subsets]
    assert np.all((pieces == 1).sum(axis=1) == 10)
    again, _ = stratified_splits(strata, 20, exact_max=100, n_samples=500, seed=7)
    assert np.array_equal(subsets, again)
    assert math.comb(20, 10) ** 2 > 500  # it had to sample


def test_the_stratified_test_holds_alpha_where_a_piece_confound_breaks_the_plain_one():
    """Null data whose words differ only by their piece count (a word's value rises by 3
    per piece, with word and context noise; X mostly one-piece words, Y mostly two-piece):
    over 300 seeded data sets the plain word test rejects at 0.05 far more often than 5%,
    the stratified one at most about 5%."""
    rng = np.random.default_rng(20261126)
    x_pieces = [1] * 7 + [2]
    y_pieces = [1] + [2] * 7
    pieces = {f"x{i}": p for i, p in enumerate(x_pieces)} | {
        f"y{i}": p for i, p in enumerate(y_pieces)
    }
    words = [w for w in pieces for _ in range(3)]  # three contexts per word
    x_words = {w for w in pieces if w.startswith("x")}
    stratified_rejects = plain_rejects = 0
    runs = 300
    for run in range(runs):
        word_effect = {w: 3 * p + rng.normal() for w, p in pieces.items()}
        values = np.array([word_effect[w] + 0.3 * rng.normal() for w in words])
        kw = {"exact_max": 1000, "n_samples": 999, "seed": run}
        (within,) = stratified(values, words, x_words, pieces, ("two-sided",), **kw)
        (plain,) = word_permutation_tests_mean_difference(
            values, words, x_words, ("two-sided",), **kw
        )
        assert within.exact and within.n_partitions == 8 * 8
        stratified_rejects += within.p_value < 0.05
        plain_rejects += plain.p_value < 0.05
    assert stratified_rejects / runs <= 0.08
    assert plain_rejects / runs >= 0.3


def test_sampled_splits_follow_the_seed():
    """Two seeds draw other splits (a sampler that ignored its seed would repeat them), each
    still within the strata."""
    strata = [1] * 10 + [2] * 10 + [1] * 10 + [2] * 10
    first, _ = stratified_splits(strata, 20, exact_max=100, n_samples=300, seed=7)
    second, _ = stratified_splits(strata, 20, exact_max=100, n_samples=300, seed=8)
    assert not np.array_equal(first, second)
    shared = {tuple(r) for r in first} & {tuple(r) for r in second}
    assert len(shared) < 5  # C(20, 10)^2 splits: two seeds almost never meet
    assert np.all((np.array(strata)[second] == 1).sum(axis=1) == 10)
