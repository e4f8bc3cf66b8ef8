"""Hard debiasing of static word vectors (Bolukbasi et al., 2016): neutralise and equalise.

All vectors are taken at unit length. With g the bias direction (the first principal
component of the definitional pairs, as Direct Bias computes it):

* neutralise: a word that should carry no gender loses its component along g,
  w' = (w - <w,g> g) / ||w - <w,g> g||;
* equalise: the two words of an equality pair (a, b) become equidistant from every neutral
  word: with mu = (a + b) / 2 and nu = mu - <mu,g> g,
  a' = nu + sqrt(1 - ||nu||^2) * s_a g, b' = nu + sqrt(1 - ||nu||^2) * s_b g,
  with s the sign of <a - mu, g> (the pair's two sides stay on their sides).

Words in neither list keep their (unit) vectors. This is the debiaswe construction with one
bias direction; Bommasani & Liang use it to show that a debiasing method lowers the measure it
targets (here Direct Bias) without lowering DivDist.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.embedding.direct_bias import directions
from biasbench.methods.embedding.vectors import unit_rows


def neutralise(w: np.ndarray, g: np.ndarray) -> np.ndarray:
    w = unit_rows(w, "neutral words")
    return unit_rows(w - np.outer(w @ g, g), "neutralised words")


def equalise(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row pair (a[i], b[i]) moved to be symmetric about the plane orthogonal to g."""
    a, b = unit_rows(a, "equality pairs"), unit_rows(b, "equality pairs")
    mu = (a + b) / 2
    nu = mu - np.outer(mu @ g, g)
    height = np.sqrt(np.clip(1 - (nu * nu).sum(axis=1), 0, None))
    side = np.sign((a - mu) @ g)
    side[side == 0] = 1
    return nu + np.outer(height * side, g), nu - np.outer(height * side, g)


def hard_debias(
    vectors: dict[str, np.ndarray],
    definitional: list[tuple[str, str]],
    neutral: list[str],
    equality: list[tuple[str, str]],
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The debiased copy of ``vectors`` (word -> vector; words missing from it are skipped)
    and the bias direction g."""
    pairs = [(x, y) for x, y in definitional if x in vectors and y in vectors]
    if not pairs:
        raise ValueError("hard debiasing needs a definitional pair in the vocabulary")
    g = directions(
        np.stack([vectors[x] for x, _ in pairs]), np.stack([vectors[y] for _, y in pairs])
    )[0]
    out = {w: v / np.linalg.norm(v) for w, v in vectors.items()}
    keep = [w for w in dict.fromkeys(neutral) if w in vectors]
    if keep:
        for w, v in zip(keep, neutralise(np.stack([vectors[w] for w in keep]), g), strict=True):
            out[w] = v
    eq = [(x, y) for x, y in equality if x in vectors and y in vectors and x != y]
    if eq:
        new_a, new_b = equalise(
            np.stack([vectors[x] for x, _ in eq]), np.stack([vectors[y] for _, y in eq]), g
        )
        for (x, y), va, vb in zip(eq, new_a, new_b, strict=True):
            out[x], out[y] = va, vb
    return out, g
