"""The gender direction of definitional pairs and its removal from an embedding matrix, by hand
and as properties (idempotent, orthogonal, the kept rows untouched)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.models.projection import pair_direction, project_out


def test_the_direction_of_pairs_that_differ_along_one_axis():
    matrix = np.array(
        [[2.0, 1.0, 0.0], [-2.0, 1.0, 0.0], [1.0, 0.0, 3.0], [-1.0, 0.0, 3.0], [5.0, 4.0, 2.0]]
    )
    direction = pair_direction(matrix, [(0, 1), (2, 3)])
    assert np.allclose(direction, [1.0, 0.0, 0.0])
    assert np.allclose(pair_direction(matrix, [(1, 0), (3, 2)]), [-1.0, 0.0, 0.0])
    out = project_out(matrix, direction, keep=[0, 1, 2, 3])
    assert np.array_equal(out[:4], matrix[:4])  # the pairs keep their gender
    assert np.allclose(out[4], [0.0, 4.0, 2.0])  # the rest lose it


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 6))
def test_the_removal_is_orthogonal_and_idempotent(seed, n_pairs):
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(20, 8)).astype(np.float32)
    pairs = [(2 * i, 2 * i + 1) for i in range(n_pairs)]
    direction = pair_direction(matrix, pairs)
    assert np.isclose(np.linalg.norm(direction), 1.0)
    keep = [i for p in pairs for i in p]
    out = project_out(matrix, direction, keep)
    rest = [i for i in range(20) if i not in keep]
    assert out.dtype == np.float32
    assert np.allclose(out[rest] @ direction, 0.0, atol=1e-5)
    assert np.array_equal(out[keep], matrix[keep])
    assert np.allclose(project_out(out, direction, keep), out, atol=1e-6)
    # what is left of each row is its part orthogonal to the direction, unchanged
    residual = matrix[rest] - np.outer(matrix[rest] @ direction, direction)
    assert np.allclose(out[rest], residual, atol=1e-5)
