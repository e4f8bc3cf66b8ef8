"""MAC (Manzini et al., 2019; Schröder et al. eqs. 7-8): a hand-computed case and the paper's
statements about it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.embedding.mac import MAC, mac_word

vec = arrays(np.float64, (3,), elements=st.floats(-5, 5)).filter(lambda v: np.linalg.norm(v) > 1e-2)


def test_hand_computed():
    a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]])
    t = np.array([[1.0, 0.0], [1.0, 1.0]])
    # S(t1,A) = 0, S(t1,B) = 1; S(t2,A) = S(t2,B) = 1 - 1/sqrt(2)
    np.testing.assert_allclose(mac_word(t, [a, b]), [0.5, 1 - 1 / np.sqrt(2)])
    score = MAC(ContextVectors({"X": [t[:1]], "Y": [t[1:]], "A": [a], "B": [b]}), Settings(), 0)
    assert score.effect_size == pytest.approx((0.5 + 1 - 1 / np.sqrt(2)) / 2)
    assert np.isnan(score.p_value) and score.note == "MAC has no significance test"


@settings(max_examples=50, deadline=None)
@given(vec, vec)
def test_opposite_attributes_give_every_word_one(t, a):
    """Schröder et al.: with a_2 = -a_1 MAC is 1 whatever the word (it measures closeness,
    not a difference between the attributes)."""
    assert mac_word(t[None], [a[None], -a[None]])[0] == pytest.approx(1.0)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(vec, min_size=1, max_size=4),
    st.lists(vec, min_size=1, max_size=3),
    st.lists(vec, min_size=1, max_size=3),
    st.floats(0.1, 10),
)
def test_range_and_scale_invariance(t, a, b, scale):
    t, a, b = np.array(t), np.array(a), np.array(b)
    words = mac_word(t, [a, b])
    assert np.all(words >= -1e-12) and np.all(words <= 2 + 1e-12)
    np.testing.assert_allclose(mac_word(scale * t, [a / scale, b]), words, atol=1e-12)


def test_equidistant_word_scores_one_minus_cos_half_angle():
    """A word halfway between two unit attributes at angle theta: 1 - cos(theta / 2)."""
    theta = 1.1
    a, b = np.array([[1.0, 0.0]]), np.array([[np.cos(theta), np.sin(theta)]])
    t = np.array([[np.cos(theta / 2), np.sin(theta / 2)]])
    assert mac_word(t, [a, b])[0] == pytest.approx(1 - np.cos(theta / 2))
