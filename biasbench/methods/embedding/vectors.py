"""What every vector method starts from: rows scaled to unit length, so cosines are dot
products."""

from __future__ import annotations

import numpy as np

from biasbench.errors import EmptySetError
from biasbench.methods.contract import ContextVectors


def unit_rows(m: np.ndarray, name: str = "vectors") -> np.ndarray:
    """Rows scaled to unit length; a zero row has no direction and is an error."""
    m = np.asarray(m, dtype=np.float64)
    if m.ndim != 2 or len(m) == 0:
        raise EmptySetError(f"{name}: no vectors")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise ValueError(f"{name}: zero-length or non-finite vector, cosine is undefined")
    return m / norms


def set_items(groups: list[np.ndarray], unit: str) -> np.ndarray:
    """A set's items: every context (``context``) or each stimulus' mean context
    (``stimulus``)."""
    if unit == "context":
        return np.concatenate(groups)
    if unit == "stimulus":
        return np.stack([g.mean(axis=0) for g in groups])
    raise ValueError(f"unit must be 'context' or 'stimulus', got {unit!r}")


#: why a test without definitional pairs has no Direct Bias or RIPA score
NO_PAIRS = (
    "the test declares no definitional pairs (definitional_pairs: true in its word set): its "
    "attribute lists are not pairs A[i] ~ B[i], and pairing them by position measures nothing"
)


def pair_vectors(inputs: ContextVectors) -> tuple[np.ndarray, np.ndarray]:
    """(A's, B's) mean vector per definitional pair; no pairs: the row says why."""
    if not inputs.pairs:
        raise EmptySetError(NO_PAIRS if inputs.pairs is None else "no pair has both its words")
    return (
        np.stack([a.mean(axis=0) for a, _ in inputs.pairs]),
        np.stack([b.mean(axis=0) for _, b in inputs.pairs]),
    )
