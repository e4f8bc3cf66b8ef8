"""Direct Bias: a hand-computed direction and scores."""

import numpy as np
import pytest

from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.embedding.direct_bias import DIRECT_BIAS, directions, word_bias


def test_one_pair_gives_its_difference_as_direction():
    a, b = np.array([[3.0, 1.0]]), np.array([[1.0, 3.0]])
    g = directions(a, b)[0]
    expected = a[0] / np.linalg.norm(a) - b[0] / np.linalg.norm(b)
    np.testing.assert_allclose(np.abs(g), np.abs(expected / np.linalg.norm(expected)), atol=1e-12)
    w = np.array([[1.0, -1.0], [1.0, 1.0], [2.0, 0.0]])
    np.testing.assert_allclose(word_bias(w, a, b), [1, 0, 1 / np.sqrt(2)], atol=1e-12)
    np.testing.assert_allclose(word_bias(w, a, b, c=2), [1, 0, 0.5], atol=1e-12)


def test_set_score_is_the_mean_over_the_targets():
    a, b = [np.array([[3.0, 1.0]])], [np.array([[1.0, 3.0]])]
    x, y = [np.array([[1.0, -1.0]])], [np.array([[2.0, 0.0]])]
    res = DIRECT_BIAS(ContextVectors({"X": x, "Y": y, "A": a, "B": b}), Settings(), 0)
    assert res.effect_size == pytest.approx((1 + 1 / np.sqrt(2)) / 2)
    assert res.note == "Direct Bias has no significance test"
