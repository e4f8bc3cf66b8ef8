"""SAME and its skew and stereotype: hand-computed cases and the attribute-split test."""

import numpy as np
import pytest

from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.embedding.same import (
    SAME,
    SAME_SKEW,
    SAME_STEREOTYPE,
    basis,
    word_bias,
    word_same,
)

A = np.array([[1.0, 0.0, 0.0]])
B = np.array([[0.0, 1.0, 0.0]])


def test_hand_computed_word_bias():
    # â - b̂ = (1, -1, 0); w = (1, 0, 0): cos = 1/sqrt(2); w = (0, 0, 1): 0; w = (1, -1, 0): 1
    w = np.array([[1.0, 0, 0], [0, 0, 2.0], [1.0, -1.0, 0]])
    np.testing.assert_allclose(word_bias(w, A, B), [1 / np.sqrt(2), 0, 1], atol=1e-12)


def test_multi_attribute_basis_is_gram_schmidt():
    groups = [A, B, np.array([[0.0, 0.0, 1.0]])]
    np.testing.assert_allclose(basis(groups) @ basis(groups).T, np.eye(2), atol=1e-12)
    # (1, 1, 1) projects on the plane through e1, e2, e3 as (1,1,1) - its normal part: 0
    assert word_same(np.array([[1.0, 1.0, 1.0]]), groups)[0] == pytest.approx(0, abs=1e-12)
    assert word_same(np.array([[1.0, -1.0, 0.0]]), groups)[0] == pytest.approx(1)


def groups(x, y):
    return ContextVectors(
        {"X": [r[None] for r in x], "Y": [r[None] for r in y], "A": [A], "B": [B]}
    )


def test_set_scores_hand_computed():
    x = np.array([[1.0, 0, 0], [1.0, -1.0, 0]])  # b = 1/sqrt2, 1
    y = np.array([[0.0, 1.0, 0], [0, 0, 1.0]])  # b = -1/sqrt2, 0
    b = np.array([1 / np.sqrt(2), 1, -1 / np.sqrt(2), 0])
    inputs = groups(x, y)
    settings = Settings(exact_max=1000, n_samples=100)
    assert SAME(inputs, settings, 0).effect_size == pytest.approx(np.abs(b).mean())
    assert SAME_SKEW(inputs, settings, 0).effect_size == pytest.approx(b.mean())
    stereo = SAME_STEREOTYPE(inputs, settings, 0)
    assert stereo.effect_size == pytest.approx(np.std(b)) and np.isnan(stereo.p_value)


def test_attribute_split_test_equals_a_loop_over_every_split():
    """p = share of the splits of A u B into groups of the observed sizes whose SAME (skew:
    |skew|) is at least the observed one, recomputed here one split at a time; SAME and skew
    share one null on the same inputs."""
    import itertools

    rng = np.random.default_rng(0)
    a = [rng.normal(size=(1, 3)) + [1, 0, 0] for _ in range(4)]
    b = [rng.normal(size=(1, 3)) + [0, 1, 0] for _ in range(3)]
    x = [rng.normal(size=(1, 3)) + [1, -1, 0] for _ in range(3)]
    y = [rng.normal(size=(1, 3)) for _ in range(2)]
    inputs = ContextVectors({"X": x, "Y": y, "A": a, "B": b})
    res = SAME(inputs, Settings(exact_max=100), 1)
    skewed = SAME_SKEW(inputs, Settings(exact_max=100), 1)
    words, attributes = np.vstack(x + y), np.vstack(a + b)
    biases = []
    for first in itertools.combinations(range(7), 4):
        rest = [i for i in range(7) if i not in first]
        biases.append(word_bias(words, attributes[list(first)], attributes[rest]))
    stats, skews = np.abs(biases).mean(axis=1), np.abs(np.mean(biases, axis=1))
    assert res.exact and res.n_partitions == 35
    assert res.effect_size == pytest.approx(stats[0])
    assert res.p_value == pytest.approx(np.mean(stats >= stats[0] - 1e-12))
    assert skewed.p_value == pytest.approx(np.mean(skews >= skews[0] - 1e-12))


def test_word_level_p_is_the_attribute_split_test_on_words_and_absent_on_contexts():
    """Items that are words (one vector per stimulus, or unit ``stimulus``): the re-splits
    already move words, so ``p_word`` is ``p_value``; several context items per word under
    unit ``context`` have no word-level test here (NaN), never a context-level p in its place."""
    rng = np.random.default_rng(3)
    words = {r: [rng.normal(size=(1, 3)) for _ in range(3)] for r in "XYAB"}
    one = SAME(ContextVectors(words), Settings(exact_max=100), 2)
    assert one.p_word == one.p_value and 0 < one.p_value <= 1
    contexts = {r: [rng.normal(size=(2, 3)) for _ in range(3)] for r in "XYAB"}
    pooled = SAME_SKEW(ContextVectors(contexts), Settings(exact_max=100, unit="context"), 2)
    assert np.isnan(pooled.p_word) and not np.isnan(pooled.p_value)
    averaged = SAME_SKEW(ContextVectors(contexts), Settings(exact_max=100, unit="stimulus"), 2)
    assert averaged.p_word == averaged.p_value


def test_two_attributes_a_side_floor_at_one_third_because_the_swap_ties():
    """A u B of 4 words: C(4, 2) = 6 splits; swapping A and B keeps SAME (mean |b|) and
    negates its skew (tested two-sided), so the observed split's mirror always ties it: no
    p below 2/6, and the rows say so."""
    rng = np.random.default_rng(5)
    for seed in range(5):
        words = {r: [v[None] for v in rng.normal(size=(2, 4))] for r in "XYAB"}
        settings = Settings(exact_max=100, n_samples=100)
        for method in (SAME, SAME_SKEW):
            score = method(ContextVectors(words), settings, seed)
            assert score.p_floor == pytest.approx(2 / 6) == score.p_word_floor
            assert score.p_value >= score.p_floor - 1e-12
