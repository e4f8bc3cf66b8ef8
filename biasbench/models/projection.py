"""A gender direction removed from a model's token embeddings: the "neutralize" step of
Bolukbasi et al. (2016) applied to a language model's embedding matrix, a simple debiasing whose
effect a paired comparison can measure (docs/models.md, the worked example).

The direction is the first principal component of the definitional pairs' vectors, each pair
centred on its own mean (their PCA over the pairs); every row of the matrix but the pairs' own
tokens loses its component along it. Bolukbasi et al.'s "equalize" step (moving each pair to be
equidistant from the neutral words) is not applied: a departure, named here, as the example
needs only a version of the model with part of one bias direction gone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pair_direction(matrix: np.ndarray, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    """The unit first principal component of the rows of ``pairs`` (row indices), each pair
    centred on its mean, oriented so that the first pair's first row lies on its positive
    side."""
    if not pairs:
        raise ValueError("no definitional pair to take a direction from")
    centred = []
    for a, b in pairs:
        mean = (matrix[a] + matrix[b]) / 2
        centred += [matrix[a] - mean, matrix[b] - mean]
    _, _, vt = np.linalg.svd(np.asarray(centred, np.float64), full_matrices=False)
    direction = vt[0] / np.linalg.norm(vt[0])
    first = matrix[pairs[0][0]] - matrix[pairs[0][1]]
    return direction if float(first @ direction) >= 0 else -direction


def project_out(matrix: np.ndarray, direction: np.ndarray, keep: Sequence[int]) -> np.ndarray:
    """A copy of ``matrix`` whose rows, all but ``keep``, have no component along the unit
    ``direction`` (in float64, returned in the matrix's dtype)."""
    values = np.asarray(matrix, np.float64)
    out = values - np.outer(values @ direction, direction)
    kept = np.asarray(list(keep), int)
    out[kept] = values[kept]
    return out.astype(np.asarray(matrix).dtype)
