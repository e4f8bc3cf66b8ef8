"""The statements of Schröder et al., "Evaluating Metrics for Bias in Word Embeddings", one
test each, on the implementations of the registry (property-based, hypothesis)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from biasbench.methods.embedding import direct_bias, mac, same
from biasbench.methods.embedding.weat import association
from biasbench.stats import effect_size

DIM = 4
vec = arrays(np.float64, (DIM,), elements=st.floats(-3, 3)).filter(
    lambda v: np.linalg.norm(v) > 0.1
)


def vectors(n, m=None):
    return st.lists(vec, min_size=n, max_size=m or n).map(np.array)


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(vectors(1, 5), vectors(1, 4), vectors(1, 4))
def test_thm2_word_score_is_a_scaled_cosine(w, a, b):
    """s(w,A,B) = cos(w, â - b̂) ||â - b̂||, so its largest value is ||â - b̂||: it depends on
    the attributes (the WEAT word score is not comparable across attribute sets)."""
    diff = unit(a).mean(axis=0) - unit(b).mean(axis=0)
    assume(np.linalg.norm(diff) > 1e-6)
    expected = (unit(w) @ unit(diff)) * np.linalg.norm(diff)
    np.testing.assert_allclose(association(w, a, b), expected, atol=1e-12)
    assert association(diff[None], a, b)[0] == pytest.approx(np.linalg.norm(diff))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=2, max_size=12), st.integers(1, 11))
def test_lemma1_standardised_partial_sums_are_bounded(x, m):
    """|sum_{j<=m} (x_j - mean) / sd_pop| <= sqrt(m (n - m))."""
    x = np.array(x)
    assume(m < len(x) and np.std(x) > 1e-9)
    total = abs(np.sum((x[:m] - x.mean()) / np.std(x)))
    assert total <= np.sqrt(m * (len(x) - m)) + 1e-9


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 20), st.data())
def test_effect_size_bounds_and_where_they_are_attained(m, data):
    """|d| <= 2 with the population sd and |X| = |Y| = m; <= 2 sqrt((2m-1)/(2m)) with the
    sample sd; both attained when every x is equal and every y = -x."""
    sx = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=m, max_size=m)))
    sy = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=m, max_size=m)))
    assume(np.std(np.concatenate([sx, sy])) > 1e-9)
    assert abs(effect_size(sx, sy, ddof=0)) <= 2 + 1e-9
    assert abs(effect_size(sx, sy, ddof=1)) <= 2 * np.sqrt((2 * m - 1) / (2 * m)) + 1e-9
    c = np.full(m, 0.4)
    assert effect_size(c, -c, ddof=0) == pytest.approx(2)
    assert effect_size(c, -c, ddof=1) == pytest.approx(2 * np.sqrt((2 * m - 1) / (2 * m)))


def words_with_scores(scores):
    """Unit words in the plane of A = {e1}, B = {e2} whose WEAT word scores are ``scores``
    (s = cos t - sin t = sqrt(2) cos(t + pi/4) for w = (cos t, sin t))."""
    t = np.arccos(np.clip(np.array(scores) / np.sqrt(2), -1, 1)) - np.pi / 4
    return np.column_stack([np.cos(t), np.sin(t), np.zeros(len(t))])


A, B = np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]])


def test_thm4_d_is_zero_although_every_word_is_biased():
    """The skew counterexample: word scores {0.3, 0.5 | 0.3, 0.5} give d = 0."""
    x, y = words_with_scores([0.3, 0.5]), words_with_scores([0.5, 0.3])
    s = association(np.vstack([x, y]), A, B)
    np.testing.assert_allclose(s, [0.3, 0.5, 0.5, 0.3], atol=1e-12)
    assert effect_size(s[:2], s[2:], ddof=1) == pytest.approx(0, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(vectors(1, 4), vectors(1, 3), vectors(1, 3))
def test_mac_word_lies_around_one_by_the_mean_attribute(t, a, b):
    """MAC_word(t) = 1 - t̂ . ā with ā the mean of the per-set mean unit vectors, so it lies
    in [1 - ||ā||, 1 + ||ā||]: a range that depends on the attributes."""
    mean = (unit(a).mean(axis=0) + unit(b).mean(axis=0)) / 2
    words = mac.mac_word(t, [a, b])
    np.testing.assert_allclose(words, 1 - unit(t) @ mean, atol=1e-12)
    assert np.all(np.abs(words - 1) <= np.linalg.norm(mean) + 1e-12)


@settings(max_examples=60, deadline=None)
@given(vectors(1, 5), vectors(2, 4), vectors(2, 4), st.floats(0.1, 3))
def test_direct_bias_in_zero_one(w, a, b, c):
    assume(np.linalg.matrix_rank(direct_bias.pair_centred(a, b)) > 0)
    values = direct_bias.word_bias(w, a, b, c=c)
    assert np.all(values >= -1e-12) and np.all(values <= 1 + 1e-12)


@pytest.mark.parametrize("x, r", [(1.0, 2.0), (0.5, 3.0)])
def test_thm12_direct_bias_one_where_same_is_zero(x, r):
    """a1 = (-x, rx) = -c1, a2 = (-x, -rx) = -c2 with r > 1: PC1 is (0, 1); the word (0, y)
    has Direct Bias 1 and SAME 0, the word (x, 0) Direct Bias 0 (and SAME 1)."""
    a = np.array([[-x, r * x], [-x, -r * x]])
    c = -a
    g = direct_bias.directions(a, c)[0]
    np.testing.assert_allclose(np.abs(g), [0, 1], atol=1e-12)
    up, side = np.array([[0.0, 2.0]]), np.array([[x, 0.0]])
    assert direct_bias.word_bias(up, a, c)[0] == pytest.approx(1)
    assert same.word_same(up, [a, c])[0] == pytest.approx(0, abs=1e-12)
    assert direct_bias.word_bias(side, a, c)[0] == pytest.approx(0, abs=1e-12)
    assert same.word_same(side, [a, c])[0] == pytest.approx(1)


@settings(max_examples=60, deadline=None)
@given(vectors(1, 5), st.lists(vectors(1, 3), min_size=2, max_size=4))
def test_thm13_14_same_word_range_and_zero(w, groups):
    """SAME_word lies in [0, 1]; it is 0 iff every s(w, A_i) is equal; 1 inside the span."""
    means = [unit(g).mean(axis=0) for g in groups]
    assume(max(np.linalg.norm(m - means[0]) for m in means[1:]) > 1e-3)
    values = same.word_same(w, groups)
    assert np.all(values >= -1e-12) and np.all(values <= 1 + 1e-12)
    assoc = np.array([unit(w) @ m for m in means]).T  # s(w, A_i) per word and group
    spread = np.ptp(assoc, axis=1)
    # equal or clearly not: a spread between float noise and 1e-4 leaves "SAME is 0" to
    # rounding, which neither side of the theorem decides
    assume(np.all((spread < 1e-9) | (spread > 1e-4)))
    equal = spread < 1e-9
    np.testing.assert_array_equal(values < 1e-6, equal)
    inside = max((m - means[0] for m in means[1:]), key=np.linalg.norm)[None]
    assert same.word_same(inside, groups)[0] == pytest.approx(1)


@settings(max_examples=40, deadline=None)
@given(vectors(1, 5), st.lists(vectors(1, 3), min_size=3, max_size=4), st.randoms())
def test_same_does_not_depend_on_the_reference_group_or_order(w, groups, rnd):
    """||w_B|| is the projection on the span of the group differences: any group can be the
    reference, in any order (the L1 norm of the authors' code does not have this property)."""
    means = [unit(g).mean(axis=0) for g in groups]
    assume(np.linalg.matrix_rank(np.array([m - means[0] for m in means[1:]]), tol=1e-6) > 0)
    shuffled = groups[:]
    rnd.shuffle(shuffled)
    np.testing.assert_allclose(same.word_same(w, shuffled), same.word_same(w, groups), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(vectors(1, 5), vectors(1, 3), vectors(1, 3))
def test_binary_same_is_eq36_and_a_scaled_weat_word_score(w, a, b):
    """For two groups SAME_word = |b(w)|, and WEAT's word score / b(w) = ||â - b̂|| for every
    word: the two give the same R² against any ground truth."""
    diff = unit(a).mean(axis=0) - unit(b).mean(axis=0)
    assume(np.linalg.norm(diff) > 1e-3)
    bw = same.word_bias(w, a, b)
    np.testing.assert_allclose(same.word_same(w, [a, b]), np.abs(bw), atol=1e-9)
    np.testing.assert_allclose(association(w, a, b), bw * np.linalg.norm(diff), atol=1e-9)


def test_skew_and_stereotype_of_mirror_and_constant_words():
    """A mirror pair of words has skew 0; words with one bias have stereotype 0."""
    mirror = np.array([[0.3], [-0.3]]).T
    assert same.skew(mirror)[0] == 0
    constant = np.full((1, 5), 0.4)
    assert same.stereotype(constant)[0] == 0 and same.skew(constant)[0] == pytest.approx(0.4)
    b = np.array([[0.1, 0.5, -0.2, 0.4]])
    assert same.stereotype(b, "eq45")[0] == pytest.approx(np.std(b) / 2)  # /sqrt(|W|)


@settings(max_examples=40, deadline=None)
@given(vectors(2, 5), vectors(2, 3), vectors(2, 3), st.floats(0.1, 10), st.floats(0.1, 10))
def test_every_score_is_invariant_to_scaling_vectors(w, a, b, s1, s2):
    assume(np.linalg.norm(unit(a).mean(axis=0) - unit(b).mean(axis=0)) > 1e-3)
    scaled = (s1 * w, s2 * a, b / s1)
    for fn in (
        association,
        same.word_bias,
        lambda *v: mac.mac_word(v[0], [v[1], v[2]]),
        lambda *v: direct_bias.word_bias(*v),
    ):
        np.testing.assert_allclose(fn(*scaled), fn(w, a, b), atol=1e-9)
