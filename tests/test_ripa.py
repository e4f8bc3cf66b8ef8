"""RIPA: the relation vector, raw inner products, and its scaling behaviour."""

import numpy as np
import pytest
from scipy.stats import binomtest

from biasbench.inference import stacked, word_permutation_tests_mean_difference
from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.embedding.ripa import RIPA, relation, word_association


def test_one_pair_and_several_pairs():
    np.testing.assert_allclose(relation(np.array([[2.0, 0]]), np.array([[0, 0.0]])), [1, 0])
    a = np.array([[1.0, 0.0], [2.0, 0.1]])
    b = np.array([[0.0, 0.0], [0.0, 0.1]])  # both differences point along +x
    np.testing.assert_allclose(relation(a, b), [1, 0], atol=1e-12)  # oriented towards A


def test_raw_vectors_set_score_and_test():
    a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 0.0]])
    w = np.array([[3.0, 5.0], [-1.0, 2.0]])
    np.testing.assert_allclose(word_association(w, a, b), [3.0, -1.0])
    np.testing.assert_allclose(word_association(2 * w, a, b), [6.0, -2.0])  # not scale-free
    inputs = ContextVectors(
        {
            "X": [np.array([[3.0, 0]]), np.array([[2.0, 1]])],
            "Y": [np.array([[-1.0, 0]]), np.array([[0.0, 4]])],
            "A": [np.array([[1.0, 0]])],
            "B": [np.array([[-1.0, 0]])],
        },
        ((np.array([[1.0, 0]]), np.array([[-1.0, 0]])),),
    )
    res = RIPA(inputs, Settings(exact_max=100), 0)
    assert res.effect_size == pytest.approx(2.5 - (-0.5))
    assert res.exact and res.p_value == pytest.approx(2 / 6)  # |diff| >= 3 in 2 of 6 splits


# --- p_word: the same two-sided test with the stimulus word as the unit ----------------------

PAIR = ((np.array([[1.0, 0]]), np.array([[-1.0, 0]])),)  # b = (1, 0): RIPA(w) = w[0]


def _inputs(x_groups, y_groups, pairs=PAIR):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    return ContextVectors({"X": list(x_groups), "Y": list(y_groups), "A": a, "B": b}, pairs)


def test_p_word_hand_computed():
    # RIPA per context: x1 2, 4   x2 1   y1 0, 1, -1   y2 3 (7 contexts, sum 10); the
    # C(4, 2) = 6 word splits, X side (sum, contexts) -> mean X - mean Y:
    #   {x1, x2} (7, 3):  7/3 - 3/4 =  1.58   (observed)
    #   {x1, y1} (6, 5):  6/5 - 4/2 = -0.8
    #   {x1, y2} (9, 3):  9/3 - 1/4 =  2.75
    #   {x2, y1} (1, 4):  1/4 - 9/3 = -2.75
    #   {x2, y2} (4, 2):  4/2 - 6/5 =  0.8
    #   {y1, y2} (3, 4):  3/4 - 7/3 = -1.58
    # |.| >= 1.58: 4 of 6. Context level: 35 splits of 3 contexts, the X sum S gives
    # (7 S - 30) / 12, |.| >= 19/12 for S >= 7 (6 splits) or S <= 1 (4 splits) -> 10/35
    def col(*v):
        return np.array([[t, 0.5] for t in v])

    inputs = _inputs([col(2, 4), col(1)], [col(0, 1, -1), col(3)])
    res = RIPA(inputs, Settings(exact_max=1000, unit="context"), 0)
    assert res.effect_size == pytest.approx(19 / 12)
    assert res.p_word == pytest.approx(4 / 6)
    assert res.p_value == pytest.approx(10 / 35)
    means = RIPA(inputs, Settings(exact_max=1000, unit="stimulus"), 0)
    assert means.p_word == means.p_value


def test_p_word_is_p_value_with_one_context_per_word():
    rng = np.random.default_rng(3)
    x, y = ([rng.normal(size=(1, 4)) for _ in range(n)] for n in (6, 7))
    pairs = [(rng.normal(size=(1, 4)), rng.normal(size=(1, 4))) for _ in range(3)]
    for settings_ in (Settings(exact_max=10, n_samples=99), Settings(exact_max=10**4)):
        res = RIPA(_inputs(x, y, pairs), settings_, 5)
        assert res.p_word == res.p_value
        items, words, _ = stacked(x, y)
        values = word_association(items, *(np.concatenate(r) for r in zip(*pairs, strict=True)))
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
    rate (5 vs 5 words, 252 splits), the context-level p far more often (observed: 0.030 and
    0.41 over 300 draws)."""
    rng = np.random.default_rng(12)
    draws, alpha = 300, 0.05
    settings_ = Settings(exact_max=1000, n_samples=200, unit="context")
    word = context = 0
    for i in range(draws):
        pairs = [(rng.normal(size=(1, 8)), rng.normal(size=(1, 8))) for _ in range(3)]
        res = RIPA(_inputs(_null_words(rng, 5), _null_words(rng, 5), pairs), settings_, i)
        word += res.p_word <= alpha
        context += res.p_value <= alpha
    ci = binomtest(int(word), draws).proportion_ci(0.95)
    print(f"\nRIPA null: p_word rejects {word / draws:.3f}, p_value {context / draws:.3f}")
    assert ci.low <= alpha <= ci.high
    assert context / draws > 0.25
