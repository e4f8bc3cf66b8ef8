"""Hard debiasing (neutralise + equalise): the construction's properties, by hand and as
hypothesis properties."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from biasbench.methods.embedding import debias
from biasbench.methods.embedding.direct_bias import word_bias

vec = arrays(np.float64, 4, elements=st.floats(-3, 3)).filter(lambda v: np.linalg.norm(v) > 0.1)


def test_by_hand_in_the_plane():
    g = np.array([1.0, 0.0])
    np.testing.assert_allclose(debias.neutralise(np.array([[3.0, 4.0]]), g), [[0.0, 1.0]])
    a, b = debias.equalise(np.array([[1.0, 1.0]]), np.array([[0.0, 1.0]]), g)
    # mu = (0.354, 0.854) of the unit vectors; nu = (0, 0.854); height sqrt(1 - 0.729)
    nu = (1 / np.sqrt(2) + 1) / 2
    np.testing.assert_allclose(a, [[np.sqrt(1 - nu**2), nu]])
    np.testing.assert_allclose(b, [[-np.sqrt(1 - nu**2), nu]])


@given(vec, vec, vec, vec)
def test_neutral_words_lose_the_direction_and_pairs_become_symmetric(w, x, y, z):
    vectors = {"he": x, "she": y, "nurse": w, "king": z, "queen": x + y + 0.5}
    d = x / np.linalg.norm(x) - y / np.linalg.norm(y)
    # a pair to define g, and a neutral word not (nearly) along it (it would have no rest)
    assume(np.linalg.norm(d) > 0.1 and abs(w @ d) < 0.95 * np.linalg.norm(w) * np.linalg.norm(d))
    out, g = debias.hard_debias(vectors, [("he", "she")], ["nurse"], [("king", "queen")])
    assert out["nurse"] @ g == pytest.approx(0, abs=1e-9)
    assert word_bias(out["nurse"][None], vectors["he"][None], vectors["she"][None])[0] == (
        pytest.approx(0, abs=1e-9)
    )
    # an equalised pair: same length, mirror images through the plane orthogonal to g
    k, q = out["king"], out["queen"]
    assert np.linalg.norm(k) == pytest.approx(1) and np.linalg.norm(q) == pytest.approx(1)
    np.testing.assert_allclose(k - (k @ g) * g, q - (q @ g) * g, atol=1e-9)
    assert k @ g == pytest.approx(-(q @ g), abs=1e-9)
    # so every neutral word is equally far from both
    assert out["nurse"] @ k == pytest.approx(out["nurse"] @ q, abs=1e-9)
    # words in no list keep their direction
    np.testing.assert_allclose(out["he"], x / np.linalg.norm(x))


def test_no_definitional_pair_in_the_vocabulary_is_an_error():
    with pytest.raises(ValueError, match="definitional pair"):
        debias.hard_debias({"nurse": np.ones(2)}, [("he", "she")], ["nurse"], [])
