"""The word-level (cluster) permutation test: exact on a hand-computed case, calibrated where
the context-level test is not, and the invariants a permutation p-value must keep."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from biasbench.inference import (
    stacked,
    weat_word_p,
    word_design,
    word_permutation_tests,
    word_permutation_tests_mean_difference,
)
from biasbench.methods.embedding.weat import association, weat
from biasbench.stats import permutation_test_mean_difference

ALL = ("greater", "less", "two-sided")


def p_values(values, words, x_words, alternatives=ALL, **kw):
    kw = {"exact_max": 10_000, "n_samples": 100, "seed": 0, **kw}
    res = word_permutation_tests_mean_difference(values, words, x_words, alternatives, **kw)
    return [r.p_value for r in res]


def test_hand_computed_exact_p():
    # x1: s = 2, 4   x2: 1   y1: 0, 1, -1   y2: 3      (7 contexts, sum 10)
    values = [2.0, 4.0, 1.0, 0.0, 1.0, -1.0, 3.0]
    words = ["x1", "x1", "x2", "y1", "y1", "y1", "y2"]
    # the C(4, 2) = 6 splits of the words, X side: (sum, contexts) -> mean X - mean Y
    #   {x1, x2}: (7, 3) -> 7/3 - 3/4 =  1.5833   (observed)
    #   {x1, y1}: (6, 5) -> 6/5 - 4/2 = -0.8
    #   {x1, y2}: (9, 3) -> 9/3 - 1/4 =  2.75
    #   {x2, y1}: (1, 4) -> 1/4 - 9/3 = -2.75
    #   {x2, y2}: (4, 2) -> 4/2 - 6/5 =  0.8
    #   {y1, y2}: (3, 4) -> 3/4 - 7/3 = -1.5833
    # >= 1.5833: 2 splits; <= 1.5833: 5 splits; |.| >= 1.5833: 4 splits
    res = word_permutation_tests_mean_difference(
        values, words, {"x1", "x2"}, ALL, exact_max=10, n_samples=100, seed=0
    )
    assert [r.p_value for r in res] == pytest.approx([2 / 6, 5 / 6, 4 / 6])
    assert all(r.exact and r.n_partitions == 6 for r in res)
    # the WEAT convenience: roles per context; the general test with the same statistic
    roles = ["X"] * 3 + ["Y"] * 4
    assert weat_word_p(values, words, roles, exact_max=10, n_samples=100, seed=0) == res[0]
    general = word_permutation_tests(
        lambda x, y: x.mean() - y.mean(),
        np.array(values),
        words,
        {"x1", "x2"},
        ALL,
        exact_max=10,
        n_samples=100,
        seed=0,
    )
    assert [r.p_value for r in general] == [r.p_value for r in res]
    # the floors: 1/6 one-sided; two-sided with 2 words a side, every split's mirror ties
    # it (2/6); a statistic of any form is not assumed to negate under the swap (1/6)
    assert [r.floor for r in res] == pytest.approx([1 / 6, 1 / 6, 2 / 6])
    assert [r.floor for r in general] == pytest.approx([1 / 6] * 3)
    # the context-level test of the same data splits the 7 contexts (35 splits, 3 on X); X
    # context sums >= the observed 2 + 4 + 1 = 7: {4,3,2}, {4,3,1} twice, {4,3,0}, {4,2,1}
    # twice (the observed among them) -> 6/35, half the word-level p
    context = permutation_test_mean_difference(
        np.array(values), 3, exact_max=100, n_samples=100, seed=0
    )
    assert context.n_partitions == 35 and context.p_value == pytest.approx(6 / 35)


def brute_force(values, words, x_words, alternative):
    """Reference: list the word splits with itertools, score the item mean difference."""
    order = list(dict.fromkeys(words))
    values, words = np.array(values), np.array(words)

    def stat(x_set):
        on_x = np.isin(words, list(x_set))
        return values[on_x].mean() - values[~on_x].mean()

    observed = stat(x_words)
    stats = [stat(c) for c in itertools.combinations(order, len(x_words))]
    extreme = {
        "greater": lambda s: s >= observed - 1e-9,
        "less": lambda s: s <= observed + 1e-9,
        "two-sided": lambda s: abs(s) >= abs(observed) - 1e-9,
    }[alternative]
    return sum(map(extreme, stats)) / len(stats)


#: designs of 1-5 X words and 1-5 Y words, 1-4 contexts each, quarter-integer values (their
#: sums are exact, so equal statistics are equal to the bit)
quarter = st.integers(-20, 20).map(lambda v: v / 4)
word_values = st.lists(quarter, min_size=1, max_size=4)
designs = st.tuples(
    st.lists(word_values, min_size=1, max_size=5), st.lists(word_values, min_size=1, max_size=5)
)


def flat(design):
    """(values, words, x_words) with the X words' contexts first."""
    x_groups, y_groups = design
    values, words = [], []
    for role, groups in (("x", x_groups), ("y", y_groups)):
        for j, g in enumerate(groups):
            values += g
            words += [f"{role}{j}"] * len(g)
    return values, words, {f"x{j}" for j in range(len(x_groups))}


@settings(max_examples=150)
@given(designs, st.sampled_from(ALL))
def test_exact_p_equals_brute_force(design, alternative):
    values, words, x_words = flat(design)
    (res,) = word_permutation_tests_mean_difference(
        values, words, x_words, (alternative,), exact_max=10_000, n_samples=100, seed=0
    )
    assert res.exact
    assert res.n_partitions == math.comb(len(design[0]) + len(design[1]), len(design[0]))
    assert res.p_value == pytest.approx(brute_force(values, words, x_words, alternative))


@settings(max_examples=100)
@given(designs, st.booleans(), st.integers(0, 2**31))
def test_p_value_is_a_probability(design, sampled, seed):
    values, words, x_words = flat(design)
    kw = {"exact_max": 1, "n_samples": 100} if sampled else {}
    for p in p_values(values, words, x_words, seed=seed, **kw):
        assert 0 < p <= 1


@settings(max_examples=100)
@given(designs, st.randoms(use_true_random=False))
def test_invariant_to_relabelling_words_and_reordering_items(design, rnd):
    values, words, x_words = flat(design)
    ref = p_values(values, words, x_words)
    names = sorted(set(words))
    new = dict(zip(names, rnd.sample(range(1000), len(names)), strict=True))
    order = list(range(len(values)))
    rnd.shuffle(order)
    moved = p_values(
        [values[i] for i in order], [new[words[i]] for i in order], {new[w] for w in x_words}
    )
    assert moved == ref


@settings(max_examples=50)
@given(designs, st.integers(0, 2**31))
def test_sampled_p_invariant_to_relabelling_words(design, seed):
    """Sampled splits are drawn over the words in order of first appearance: new names for the
    words, in the same order, draw the same splits."""
    values, words, x_words = flat(design)
    kw = {"exact_max": 1, "n_samples": 100, "seed": seed}
    renamed = p_values(values, [w.upper() for w in words], {w.upper() for w in x_words}, **kw)
    assert renamed == p_values(values, words, x_words, **kw)


@settings(max_examples=150)
@given(
    st.lists(quarter, min_size=2, max_size=14),
    st.integers(1, 13),
    st.booleans(),
    st.sampled_from(["greater", "two-sided"]),
    st.integers(0, 2**31),
)
def test_one_context_per_word_is_the_context_level_test(values, n_x, sampled, alternative, seed):
    """Same splits, same statistic, same conventions: the same result, exact or sampled."""
    n_x = min(n_x, len(values) - 1)
    kw = {"exact_max": 1 if sampled else 10_000, "n_samples": 100, "seed": seed}
    context = permutation_test_mean_difference(np.array(values), n_x, alternative=alternative, **kw)
    words = [f"w{i}" for i in range(len(values))]
    (word,) = word_permutation_tests_mean_difference(
        values, words, set(words[:n_x]), (alternative,), **kw
    )
    assert word == context


@settings(max_examples=150)
@given(designs)
def test_swapping_x_and_y_swaps_the_one_sided_p_values(design):
    values, words, x_words = flat(design)
    greater, less, both = p_values(values, words, x_words)
    y_words = set(words) - x_words
    swapped = p_values(values, words, y_words)
    assert swapped == pytest.approx([less, greater, both])


def simulate(rng, n_words, offset_sd=1.0, noise_sd=0.1, contexts=(3, 12)):
    """A null design: every word has a random offset shared by its contexts (strong within-
    word correlation) and a random number of contexts; X and Y words alike."""
    values, words = [], []
    for w in range(2 * n_words):
        k = int(rng.integers(*contexts, endpoint=True))
        values.append(rng.normal(0, offset_sd) + rng.normal(0, noise_sd, k))
        words += [w] * k
    return np.concatenate(values), words, set(range(n_words))


def test_calibrated_where_the_context_level_test_is_not():
    """No effect, contexts of a word strongly correlated (ICC ~ 0.99): words as the unit reject
    at the nominal rate (exact test, 5 vs 5 words: 252 splits, P(p <= .05) = 12/252), one- and
    two-sided; contexts as the unit reject far more often."""
    rng = np.random.default_rng(20240611)
    draws, alpha = 400, 0.05
    alternatives = ("greater", "two-sided")
    word_rejects, context_rejects = np.zeros(2, int), np.zeros(2, int)
    for _ in range(draws):
        values, words, x_words = simulate(rng, 5)
        word = p_values(values, words, x_words, alternatives, exact_max=1000)
        n_x = sum(w in x_words for w in words)  # the X words' contexts come first
        context = [
            permutation_test_mean_difference(
                values, n_x, exact_max=1000, n_samples=200, seed=0, alternative=a
            ).p_value
            for a in alternatives
        ]
        word_rejects += np.array(word) <= alpha
        context_rejects += np.array(context) <= alpha
    for j, alternative in enumerate(alternatives):
        ci = binomtest(int(word_rejects[j]), draws).proportion_ci(0.95)
        print(
            f"\n{alternative}: rejection rate at {alpha} over {draws} null draws: word-level "
            f"{word_rejects[j] / draws:.3f} (95% CI {ci.low:.3f}-{ci.high:.3f}), "
            f"context-level {context_rejects[j] / draws:.3f}"
        )
        assert ci.low <= alpha <= ci.high
    # one-sided at most ~1/2 (half the draws lean the other way); observed 0.30 and 0.54
    assert context_rejects[0] / draws > 0.2
    assert context_rejects[1] / draws > 0.4


def test_sampled_splits_are_calibrated_too():
    """Sampled splits (6 vs 6 words: 924 splits, 99 drawn) reject at most at the nominal
    rate: (1 + hits) / (1 + n) is a valid p-value."""
    rng = np.random.default_rng(7)
    draws, alpha = 400, 0.05
    rejects = 0
    for i in range(draws):
        values, words, x_words = simulate(rng, 6)
        (res,) = word_permutation_tests_mean_difference(
            values, words, x_words, exact_max=1, n_samples=99, seed=i
        )
        assert not res.exact
        rejects += res.p_value <= alpha
    ci = binomtest(rejects, draws).proportion_ci(0.95)
    print(f"\nsampled splits: rejection rate {rejects / draws:.3f} over {draws} null draws")
    assert ci.low <= alpha <= ci.high


def test_seat_sized_vectors():
    """50 stimuli x ~20 contexts x 384 dimensions, 10,000 sampled splits: s once per context,
    then words only. A word-level bias is found, with a larger p than the context-level one."""
    rng = np.random.default_rng(0)
    dim, n_words = 384, 25
    a, b = rng.normal(size=(8, dim)), rng.normal(size=(8, dim))
    direction = a.mean(axis=0) - b.mean(axis=0)

    def stimulus(shift):
        centre = rng.normal(size=dim) + shift * direction
        return centre + 0.3 * rng.normal(size=(int(rng.integers(15, 26)), dim))

    x_groups = [stimulus(0.15) for _ in range(n_words)]
    y_groups = [stimulus(0.0) for _ in range(n_words)]
    items, words, roles = stacked(x_groups, y_groups)
    s = association(items, a, b)
    kw = {"exact_max": 10_000, "n_samples": 10_000, "seed": 1}
    res = weat_word_p(s, words, roles, **kw)
    assert not res.exact and res.n_partitions == 10_000
    assert res.p_value < 0.01
    # the context-level p of the same contexts is smaller still (it ignores between-word spread)
    assert weat(np.concatenate(x_groups), np.concatenate(y_groups), a, b, **kw).p_value <= (
        res.p_value
    )


def test_design_and_errors():
    design = word_design(["b", "a", "b", "c"], {"a"})
    assert design.words == ("a", "b", "c") and design.n_x == 1 and design.n_y == 2
    assert design.word_of.tolist() == [1, 0, 1, 2]
    assert design.sizes.tolist() == [1, 2, 1]
    with pytest.raises(ValueError, match="without an item"):
        word_design(["a", "b"], {"z"})
    with pytest.raises(ValueError, match="X and Y words"):
        word_design(["a", "b"], {"a", "b"})
    with pytest.raises(ValueError, match="both X and Y"):
        weat_word_p(
            [1.0, 2.0, 3.0],
            ["a", "a", "b"],
            ["X", "Y", "Y"],
            **dict(exact_max=10, n_samples=100, seed=0),
        )
    with pytest.raises(ValueError, match="alternative"):
        p_values([1.0, 2.0], ["a", "b"], {"a"}, ("bigger",))
    with pytest.raises(ValueError, match="non-finite"):
        p_values([np.nan, 2.0], ["a", "b"], {"a"})
