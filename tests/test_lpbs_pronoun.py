"""Delobelle et al.'s LPBS he/she on a hand-computed case and its invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.methods.contract import Associations, Settings
from biasbench.methods.probability.lpbs_pronoun import LPBS_PRONOUN


def test_hand_computed_mean_and_standard_error():
    # b = he - she = [1, 2, 3, 6]: mean 3, sd sqrt(((-2)^2 + 1 + 0 + 9) / 3) = sqrt(14 / 3)
    inputs = Associations(np.array([1.0, 2.0, 4.0, 7.0]), np.array([0.0, 0.0, 1.0, 1.0]))
    score = LPBS_PRONOUN(inputs, Settings(), 0)
    assert score.effect_size == pytest.approx(3.0)
    assert score.se == pytest.approx(np.sqrt(14 / 3) / 2)
    # all four differences positive: the exact two-sided Wilcoxon p is 2 / 2^4
    assert score.p_value == pytest.approx(0.125)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-20, 0), st.floats(-20, 0), st.floats(-5, 5)), min_size=2, max_size=30
    )
)
def test_a_shared_prior_shift_cancels(values):
    """Adding the same amount to he's and she's log-probabilities (a prior) changes nothing."""
    he, she, shift = (np.array(v) for v in zip(*values, strict=True))
    base = LPBS_PRONOUN(Associations(he, she), Settings(), 0).effect_size
    moved = LPBS_PRONOUN(Associations(he + shift, she + shift), Settings(), 0).effect_size
    assert moved == pytest.approx(base, abs=1e-9)


def test_p_word_is_the_wilcoxon_p_the_professions_are_the_units():
    res = LPBS_PRONOUN(Associations(np.array([0.5, 1.0, -0.2]), np.zeros(3)), Settings(), 0)
    assert res.p_word == res.p_value and np.isfinite(res.p_word)
