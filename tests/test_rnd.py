"""Relative norm distance: a hand-computed case."""

import numpy as np
import pytest

from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.embedding.rnd import RND, word_distance


def test_hand_computed():
    a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    w = np.array([[2.0, 0.0], [1.0, 1.0]])
    # (1,0): ||(1,0)-(0,1)|| - ||0|| = sqrt2; (1,1)/sqrt2 is equidistant: 0
    np.testing.assert_allclose(word_distance(w, a, b), [np.sqrt(2), 0], atol=1e-12)
    inputs = ContextVectors({"X": [w[:1]], "Y": [w[1:]], "A": [a], "B": [b]})
    assert RND(inputs, Settings(), 0).effect_size == pytest.approx(np.sqrt(2))
