"""Relative norm distance: a hand-computed case, and its word-level p."""

import numpy as np
import pytest
from scipy.stats import binomtest

from biasbench.inference import stacked, word_permutation_tests_mean_difference
from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.embedding.rnd import RND, word_distance


def test_hand_computed():
    a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    w = np.array([[2.0, 0.0], [1.0, 1.0]])
    # (1,0): ||(1,0)-(0,1)|| - ||0|| = sqrt2; (1,1)/sqrt2 is equidistant: 0
    np.testing.assert_allclose(word_distance(w, a, b), [np.sqrt(2), 0], atol=1e-12)
    inputs = ContextVectors({"X": [w[:1]], "Y": [w[1:]], "A": [a], "B": [b]})
    assert RND(inputs, Settings(), 0).effect_size == pytest.approx(np.sqrt(2))


# --- p_word: the same two-sided test with the stimulus word as the unit ----------------------

A1, B1 = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
E1, E2, DIAG = [1.0, 0], [0.0, 1], [1.0, 1]  # rnd: sqrt 2, -sqrt 2, 0


def _inputs(x_groups, y_groups, a=(A1,), b=(B1,)):
    return ContextVectors({"X": list(x_groups), "Y": list(y_groups), "A": list(a), "B": list(b)})


def test_p_word_hand_computed():
    # rnd per context, in units of sqrt 2: x1 1, 1   x2 0   y1 -1, 0, -1   y2 1 (7 contexts,
    # sum 1); the C(4, 2) = 6 word splits, X side (sum, contexts) -> mean X - mean Y:
    #   {x1, x2} (2, 3):   2/3 + 1/4 =  0.917   (observed)
    #   {x1, y1} (0, 5):   0   - 1/2 = -0.5
    #   {x1, y2} (3, 3):   1   + 2/4 =  1.5
    #   {x2, y1} (-2, 4): -1/2 - 3/3 = -1.5
    #   {x2, y2} (1, 2):   1/2 - 0   =  0.5
    #   {y1, y2} (-1, 4): -1/4 - 2/3 = -0.917
    # |.| >= 0.917: 4 of 6. Context level: 35 splits of 3 contexts, the X sum S gives
    # (7 S - 3) / 12, |.| >= 11/12 for S >= 2 (7 splits) or S <= -2 (2 splits) -> 9/35
    x = [np.array([E1, E1]), np.array([DIAG])]
    y = [np.array([E2, DIAG, E2]), np.array([E1])]
    res = RND(_inputs(x, y), Settings(exact_max=1000, unit="context"), 0)
    assert res.effect_size == pytest.approx(11 / 12 * np.sqrt(2))
    assert res.p_word == pytest.approx(4 / 6)
    assert res.p_value == pytest.approx(9 / 35)
    means = RND(_inputs(x, y), Settings(exact_max=1000, unit="stimulus"), 0)
    assert means.p_word == means.p_value


def test_p_word_is_p_value_with_one_context_per_word():
    rng = np.random.default_rng(3)
    groups = [[rng.normal(size=(1, 4)) for _ in range(n)] for n in (6, 7, 3, 3)]
    for settings_ in (Settings(exact_max=10, n_samples=99), Settings(exact_max=10**4)):
        res = RND(_inputs(*groups), settings_, 5)
        assert res.p_word == res.p_value
        items, words, _ = stacked(groups[0], groups[1])
        values = word_distance(items, np.concatenate(groups[2]), np.concatenate(groups[3]))
        x_words = {w for w in words if w[0] == "X"}
        kw = {"exact_max": 10**4, "n_samples": 99, "seed": 1}
        (word,) = word_permutation_tests_mean_difference(
            values, words, x_words, ("two-sided",), **kw
        )
        if settings_.exact_max == 10**4:  # both enumerate the same splits
            assert word.p_value == pytest.approx(res.p_value)


def _null_words(rng, n_words, dim=8, contexts=(3, 8), spread=0.1):
    """X and Y words drawn alike, each a random centre with its contexts close around it."""
    return [
        rng.normal(size=dim) + spread * rng.normal(size=(int(rng.integers(*contexts)), dim))
        for _ in range(n_words)
    ]


def test_p_word_calibrated_where_p_value_is_not():
    """No bias, each word's contexts close together: the word-level p rejects at the nominal
    rate (5 vs 5 words, 252 splits), the context-level p far more often (observed: 0.047 and
    0.44 over 300 draws)."""
    rng = np.random.default_rng(13)
    draws, alpha = 300, 0.05
    settings_ = Settings(exact_max=1000, n_samples=200, unit="context")
    word = context = 0
    for i in range(draws):
        attrs = [_null_words(rng, 4, contexts=(1, 3)) for _ in "AB"]
        res = RND(_inputs(_null_words(rng, 5), _null_words(rng, 5), *attrs), settings_, i)
        word += res.p_word <= alpha
        context += res.p_value <= alpha
    ci = binomtest(int(word), draws).proportion_ci(0.95)
    print(f"\nRND null: p_word rejects {word / draws:.3f}, p_value {context / draws:.3f}")
    assert ci.low <= alpha <= ci.high
    assert context / draws > 0.25
