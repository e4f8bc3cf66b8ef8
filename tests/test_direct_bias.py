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
    pairs = ((a[0], b[0]),)
    res = DIRECT_BIAS(ContextVectors({"X": x, "Y": y, "A": a, "B": b}, pairs), Settings(), 0)
    assert res.effect_size == pytest.approx((1 + 1 / np.sqrt(2)) / 2)
    assert res.note == "Direct Bias has no significance test"


def test_without_definitional_pairs_the_row_says_why():
    """A test whose A and B are not pairs (pleasant/unpleasant) has no Direct Bias or RIPA:
    pairing its lists by position would measure nothing."""
    from biasbench.errors import EmptySetError
    from biasbench.methods.embedding.ripa import RIPA

    a, b = [np.array([[3.0, 1.0]])] * 7, [np.array([[1.0, 3.0]])] * 2
    x, y = [np.array([[1.0, -1.0]])], [np.array([[2.0, 0.0]])]
    inputs = ContextVectors({"X": x, "Y": y, "A": a, "B": b})
    for method in (DIRECT_BIAS, RIPA):
        with pytest.raises(EmptySetError, match="declares no definitional pairs"):
            method(inputs, Settings(), 0)


def test_several_components_give_the_projection_length_onto_the_subspace():
    """The current reference: (sqrt(sum_k cos(w, g_k)^2))^c, at most 1; the earlier
    (sum_k |cos|)^c reached sqrt(2) here."""
    a = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    b = -a
    w = np.array([[1.0, 1.0, 0.0]])  # cos 1/sqrt(2) with e1 and e2, 0 with e3
    g = directions(a, b, 2)
    expected = np.linalg.norm(g @ (w[0] / np.linalg.norm(w[0])))
    assert word_bias(w, a, b, components=2)[0] == pytest.approx(expected)
    assert word_bias(w, a, b, components=3)[0] == pytest.approx(1.0)
    assert word_bias(w, a, b, c=2.0, components=3)[0] == pytest.approx(1.0)
