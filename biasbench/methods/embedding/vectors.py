"""What every vector method starts from: rows scaled to unit length, so cosines are dot
products."""

from __future__ import annotations

import numpy as np

from biasbench.errors import EmptySetError


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
