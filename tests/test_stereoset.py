"""StereoSet's SS, LMS and ICAT by hand and at their landmarks."""

import numpy as np
import pytest

from biasbench.methods.contract import Settings, TripleScores
from biasbench.methods.probability.stereoset import (
    STEREOSET_ICAT,
    STEREOSET_LMS,
    STEREOSET_SS,
    icat,
)


def test_hand_computed():
    scores = TripleScores(
        np.array([3.0, 1.0, 2.0, 0.0]),
        np.array([2.0, 2.0, 1.0, -1.0]),
        np.array([0.0, 1.5, 3.0, -2.0]),
    )
    # SS: stereotype above anti in items 1, 3, 4 -> 75; LMS: the stereotype beats the
    # unrelated candidate in items 1 and 4, the anti-stereotype in 1, 2 and 4: 5 of 8
    assert STEREOSET_SS(scores, Settings(), 0).effect_size == pytest.approx(75)
    assert STEREOSET_LMS(scores, Settings(), 0).effect_size == pytest.approx(62.5)
    assert STEREOSET_ICAT(scores, Settings(), 0).effect_size == pytest.approx(62.5 * 25 / 50)


@pytest.mark.parametrize("lms", [0.0, 37.5, 100.0])
def test_icat_landmarks(lms):
    assert icat(50, lms) == pytest.approx(lms)
    assert icat(0, lms) == 0 and icat(100, lms) == 0
    assert 0 <= icat(73.0, lms) <= 100
