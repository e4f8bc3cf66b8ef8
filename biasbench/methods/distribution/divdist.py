"""DivDist (Bommasani & Liang, 2022): bias as the divergence of a target's association
distribution over k social groups from a reference distribution.

For a target T (a profession) and groups G_1..G_k with strengths of association
s_j = SoA(T, G_j) >= 0 (eq. 1),

    p = normalize(s) = s / sum(s)            (eq. 2)
    bias(T) = D(p, p0)                        (eq. 3)

with D (the row's variant) the L1 distance by default (total variation, half of it, as HELM
computes it, and KL(p || p0) as variants) and p0 the reference: uniform, census shares or a
corpus. With the uniform reference and two groups, L1 gives |s_1 - s_2| / (s_1 + s_2); its
maximum over k groups is 2 (1 - 1/k), at a one-hot p. A target with sum(s) = 0 has no
distribution: NaN.

The paper assumes s >= 0; cosines are not. ``negative`` says what to do with a negative
strength: ``error`` (default: refuse), ``clip`` (a negative association counts as none) or
``shift`` (every strength + 1: a cosine's range [-1, 1] moved to [0, 2], which keeps the
groups' order and never makes a group's share 0).

The set score over many targets (the paper: the mean over the census professions) is the
mean of the defined per-target biases (a target without association is left out, and
counted in the note); an infinite divergence (KL where the reference gives a group share 0)
makes the mean infinite: the row is "n/a" and says so. The paper has no test for it, so p
is NaN.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import ON_STUDY, GroupAssociations, Method, Settings, Truth
from biasbench.rows import Score

DISTANCES = ("l1", "tv", "kl")
NEGATIVE = ("error", "clip", "shift")


def normalize(s: np.ndarray, negative: str = "error") -> np.ndarray | None:
    """The association distribution p of strengths ``s`` (None when they sum to 0)."""
    s = np.asarray(s, np.float64)
    if negative not in NEGATIVE:
        raise ValueError(f"negative must be one of {NEGATIVE}, not {negative!r}")
    if np.any(s < 0):
        if negative == "error":
            raise ValueError(f"DivDist needs associations >= 0, got {s.min():.4g} (negative:)")
        s = np.clip(s, 0, None) if negative == "clip" else s + 1
    total = s.sum()
    return s / total if total > 0 else None


def distance(p: np.ndarray, p0: np.ndarray, kind: str = "l1") -> float:
    """D(p, p0): L1, total variation (L1 / 2) or KL(p || p0) in nats."""
    p, p0 = np.asarray(p, np.float64), np.asarray(p0, np.float64)
    if kind == "l1":
        return float(np.abs(p - p0).sum())
    if kind == "tv":
        return float(np.abs(p - p0).sum() / 2)
    if kind == "kl":
        if np.any((p > 0) & (p0 <= 0)):
            return float("inf")
        mask = p > 0
        return float(np.sum(p[mask] * np.log(p[mask] / p0[mask])))
    raise ValueError(f"distance must be one of {DISTANCES}, not {kind!r}")


def divdist(s, p0=None, kind: str = "l1", negative: str = "error") -> float:
    """bias(T) = D(normalize(s), p0); p0 defaults to uniform; NaN when sum(s) = 0."""
    p = normalize(s, negative)
    if p is None:
        return float("nan")
    p0 = np.full(len(p), 1 / len(p)) if p0 is None else np.asarray(p0, np.float64)
    if p0.shape != p.shape or not np.isclose(p0.sum(), 1) or np.any(p0 < 0):
        raise ValueError("the reference p0 must be a distribution over the same groups")
    return distance(p, p0, kind)


def maximum(k: int, kind: str = "l1") -> float:
    """The largest L1 (or TV) distance from the uniform reference over k groups."""
    top = 2 * (1 - 1 / k)
    return top if kind == "l1" else top / 2


def score(inputs: GroupAssociations, settings: Settings, seed: int) -> Score:
    biases = np.array(
        [
            divdist(s, p0, inputs.distance, inputs.negative)
            for s, p0 in zip(inputs.strengths, inputs.references(), strict=True)
        ]
    )
    defined = biases[~np.isnan(biases)]
    if not len(defined):
        return Score(float("nan"), float("nan"), note="no target has a non-zero association")
    infinite = int(np.isinf(defined).sum())
    if infinite:  # a divergence, not a missing value: the mean is infinite, so "n/a" says why
        return Score(
            float("nan"),
            float("nan"),
            sizes={"X": len(defined), "A": inputs.strengths.shape[1]},
            note=f"{inputs.distance} is infinite for {infinite} of {len(defined)} targets (a "
            "group the reference gives share 0 has a positive share): the mean is infinite",
        )
    return Score(
        float(defined.mean()),
        float("nan"),
        sizes={"X": len(defined), "A": inputs.strengths.shape[1]},
        note=f"mean over {len(defined)} of {len(biases)} targets; the paper defines no test",
    )


DIVDIST = Method(
    "DivDist",
    "Bommasani & Liang (2022)",
    "distribution",
    GroupAssociations,
    score,
    encodings=("word/mean", "cooccurrence", "probe"),
    roles=("X",),
    variants=("l1", "tv", "kl"),
    context="natural",
    swap="keeps",
    description="Distance of each target's normalised association with k groups from a "
    "reference distribution (uniform by default); mean over the targets.",
    truth=Truth("magnitude", ON_STUDY, "distance of the occupations' associations from uniform"),
)
