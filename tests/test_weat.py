import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import binomtest

from biasbench.inference import stacked, weat_word_p
from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.embedding.weat import S_SEAT, W_SEAT, WEAT, association, effect_size, weat


def test_hand_computed_case():
    a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]])
    x = np.array([[1.0, 0.0], [1.0, 1.0]])  # s = 1, 0
    y = np.array([[0.0, 1.0], [3.0, 4.0]])  # s = -1, 3/5 - 4/5 = -0.2
    np.testing.assert_allclose(association(np.vstack([x, y]), a, b), [1, 0, -1, -0.2], atol=1e-12)
    res = weat(x, y, a, b, exact_max=100)
    # mean diff 0.5 - (-0.6) = 1.1; sample sd of (1, 0, -1, -0.2) = sqrt(2.03 / 3)
    assert res.effect_size == pytest.approx(1.1 / np.sqrt(2.03 / 3))
    # partition sums 1, 0, .8, -1, -.2, -1.2: only the observed reaches 1
    assert res.p_value == pytest.approx(1 / 6)
    assert res.exact and res.n_partitions == 6
    assert weat(x, y, a, b, ddof=0).effect_size == pytest.approx(1.1 / np.sqrt(2.03 / 4))


vec = arrays(np.float64, (3,), elements=st.floats(-5, 5)).filter(lambda v: np.linalg.norm(v) > 1e-3)


def sets(n):
    return st.lists(vec, min_size=n, max_size=n).map(np.array)


cases = st.integers(2, 5).flatmap(lambda n: st.tuples(sets(n), sets(n), sets(2), sets(3)))


def _weat(x, y, a, b, **kw):
    try:
        return weat(x, y, a, b, exact_max=1000, **kw)
    except ValueError:  # all associations equal: no effect size, nothing to check
        return None


@settings(max_examples=300, deadline=None)
@given(cases, st.sampled_from(["targets", "attributes"]))
def test_swapping_targets_or_attributes_flips_sign(case, swap):
    x, y, a, b = case
    fwd = _weat(x, y, a, b)
    back = _weat(y, x, a, b) if swap == "targets" else _weat(x, y, b, a)
    if fwd is not None:
        assert back.effect_size == pytest.approx(-fwd.effect_size, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(cases, st.sampled_from([0, 1]))
def test_effect_size_within_two(case, ddof):
    res = _weat(*case, ddof=ddof)
    if res is not None:
        assert -2 - 1e-9 <= res.effect_size <= 2 + 1e-9


@settings(max_examples=50, deadline=None)
@given(cases, st.floats(0.1, 10))
def test_invariant_to_vector_scale(case, scale):
    x, y, a, b = case
    ref = _weat(x, y, a, b)
    if ref is not None:
        # an effect of 0 (X and Y alike) comes back as rounding, ~1e-12, after the rescale
        assert _weat(x * scale, y, a, b * scale).effect_size == pytest.approx(
            ref.effect_size, rel=1e-6, abs=1e-9
        )


def test_errors():
    good = np.eye(2)
    with pytest.raises(ValueError, match="set Y is empty"):
        weat(good, np.empty((0, 2)), good, good)
    with pytest.raises(ValueError, match="zero-length"):
        weat(np.zeros((2, 2)), good, good, good)
    with pytest.raises(ValueError, match="undefined"):
        effect_size(np.ones(3), np.ones(3), ddof=1)


# --- p_word: the same one-sided test with the stimulus word as the unit ----------------------

A1, B1 = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])  # s(w) = cos(w, e1) - cos(w, e2)


def _inputs(x_groups, y_groups, a=(A1,), b=(B1,)):
    return ContextVectors({"X": list(x_groups), "Y": list(y_groups), "A": list(a), "B": list(b)})


def test_p_word_hand_computed():
    # contexts and s: x1 (1,0) 1, (4,3) 0.2   x2 (1,1) 0   y1 (0,1) -1, (3,4) -0.2, (1,1) 0
    # y2 (1,0) 1: per word (sum, contexts) x1 (1.2, 2) x2 (0, 1) y1 (-1.2, 3) y2 (1, 1); the
    # C(4, 2) = 6 word splits, X side -> mean X - mean Y (total 1, 7 contexts):
    #   {x1, x2} (1.2, 3):  0.4  + 0.05 =  0.45   (observed)
    #   {x1, y1} (0, 5):    0    - 0.5  = -0.5
    #   {x1, y2} (2.2, 3):  0.73 + 0.3  =  1.03
    #   {x2, y1} (-1.2, 4): -0.3 - 0.73 = -1.03
    #   {x2, y2} (1, 2):    0.5  - 0    =  0.5
    #   {y1, y2} (-0.2, 4): -0.05 - 0.4 = -0.45
    # >= 0.45: 3 of 6. The context-level test splits the 7 contexts (35 splits of 3): the X
    # sum reaches the observed 1.2 in {1, 1, .} x 4 and {1, 0.2, 0} x 4 -> 8/35
    x = [np.array([[1.0, 0], [4, 3]]), np.array([[1.0, 1]])]
    y = [np.array([[0.0, 1], [3, 4], [1, 1]]), np.array([[1.0, 0]])]
    res = S_SEAT(_inputs(x, y), Settings(exact_max=1000, unit="context"), 0)
    assert res.p_word == pytest.approx(3 / 6)
    assert res.p_value == pytest.approx(8 / 35)
    # per-stimulus means: the items are the words, the paper's test is the word-level one
    means = S_SEAT(_inputs(x, y), Settings(exact_max=1000, unit="stimulus"), 0)
    assert means.p_word == means.p_value


@pytest.mark.parametrize("method", [WEAT, S_SEAT, W_SEAT])
def test_p_word_is_p_value_with_one_context_per_word(method):
    rng = np.random.default_rng(3)
    groups = [[rng.normal(size=(1, 4)) for _ in range(n)] for n in (6, 7, 3, 3)]
    for settings_ in (Settings(exact_max=10, n_samples=99), Settings(exact_max=10**4)):
        res = method(_inputs(*groups), settings_, 5)
        assert res.p_word == res.p_value
        # the word-level test itself, with its own seed, gives the same when it enumerates
        items, words, roles = stacked(groups[0], groups[1])
        s = association(items, np.concatenate(groups[2]), np.concatenate(groups[3]))
        word = weat_word_p(s, words, roles, exact_max=10**4, n_samples=99, seed=1)
        if settings_.exact_max == 10**4:
            assert word.p_value == pytest.approx(res.p_value)


def _null_words(rng, n_words, dim=8, contexts=(3, 8), spread=0.1):
    """X and Y words drawn alike, each a random centre with its contexts close around it."""
    return [
        rng.normal(size=dim) + spread * rng.normal(size=(int(rng.integers(*contexts)), dim))
        for _ in range(n_words)
    ]


def test_p_word_calibrated_where_p_value_is_not():
    """No bias, each word's contexts close together: the word-level p rejects at the nominal
    rate (5 vs 5 words: 252 splits, P(p <= .05) = 12/252), the context-level p far more often
    (observed: 0.047 and 0.32 over 300 draws)."""
    rng = np.random.default_rng(11)
    draws, alpha = 300, 0.05
    settings_ = Settings(exact_max=1000, n_samples=200, unit="context")
    word = context = 0
    for i in range(draws):
        attrs = [_null_words(rng, 4, contexts=(1, 2)) for _ in "AB"]
        inputs = _inputs(_null_words(rng, 5), _null_words(rng, 5), *attrs)
        res = S_SEAT(inputs, settings_, i)
        word += res.p_word <= alpha
        context += res.p_value <= alpha
    ci = binomtest(int(word), draws).proportion_ci(0.95)
    print(f"\ns-SEAT null: p_word rejects {word / draws:.3f}, p_value {context / draws:.3f}")
    assert ci.low <= alpha <= ci.high
    assert context / draws > 0.25
