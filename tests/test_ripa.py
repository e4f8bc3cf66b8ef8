"""RIPA: the relation vector, raw inner products, and its scaling behaviour."""

import numpy as np
import pytest

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
