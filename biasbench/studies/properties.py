"""The property matrix of Schröder et al. (Tables 1 and 4), computed by running checks.

Each score is run on constructed inputs, over several attribute configurations (random ones,
opposite attributes a_2 = -a_1, and the 2-D configuration of Theorem 12 lifted to more
dimensions), and each property is decided from what it returns:

comparable (Def. 5)       the score's largest and smallest value over candidate inputs (random
                          words, and the directions where the theorems put the extrema) are the
                          same for every attribute configuration
trustworthy (Def. 6)      the score takes its "no bias" value b0 on unbiased words
                          (s(w, A) = s(w, B), i.e. w orthogonal to â - b̂) and only there: every
                          biased input (single words, skewed or stereotyped sets, the Theorem 4
                          set) gives another value
skew-sensitive (Def. 7)   a set whose words are all equally biased to one group is not b0
stereotype-sensitive (8)  a set whose words are biased to both groups (mean bias 0) is not b0;
                          "conditional" when that holds only if the stereotype follows the X/Y
                          split (WEAT's d)

A property holds when no configuration gives a counterexample; the matrix records the first
counterexample found. A score that cannot be computed (d of words with equal scores: 0/0)
reports no bias.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from biasbench.methods.embedding import direct_bias, mac, same
from biasbench.methods.embedding.weat import association
from biasbench.stats import effect_size

DIM = 5
TOL = 1e-9
PROPERTIES = ("comparable", "trustworthy", "skew_sensitive", "stereotype_sensitive")


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def attribute_configs(seed: int = 0) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, A, B): random sets, opposite attributes, and Theorem 12's configuration."""
    rng = np.random.default_rng(seed)
    configs = [
        (f"random {k}", rng.normal(size=(3, DIM)), rng.normal(size=(3, DIM))) for k in range(3)
    ]
    a = rng.normal(size=(1, DIM))
    configs.append(("opposite (a2 = -a1)", a, -a))
    x, r = 1.0, 2.0
    thm12 = np.zeros((2, DIM))
    thm12[0, :2], thm12[1, :2] = (-x, r * x), (-x, -r * x)
    configs.append(("Theorem 12", thm12, -thm12))
    return configs


def _direction(a, b):
    return _unit(a).mean(axis=0) - _unit(b).mean(axis=0)


def _biased_word(a, b, rng, strength=0.6):
    """A word with s(w, A) != s(w, B): a random direction plus a part along â - b̂."""
    d = _unit(_direction(a, b)[None])[0]
    v = rng.normal(size=DIM)
    v -= (v @ d) * d
    return _unit(v)[None][0] * np.sqrt(1 - strength**2) + strength * d


def _unbiased_word(a, b, rng):
    d = _unit(_direction(a, b)[None])[0]
    v = rng.normal(size=DIM)
    return v - (v @ d) * d


@dataclass(frozen=True)
class ScoreCheck:
    """A score under test: word level ``f(words, A, B) -> per word`` or set level
    ``f(X, Y, A, B) -> float``, and its "no bias" value."""

    name: str
    level: str  # word | set
    fn: Callable
    b0: float


def _d(x, y, a, b):
    s = association(np.vstack([x, y]), a, b)
    if np.ptp(s) < TOL:  # all word scores equal (up to rounding): d = 0/0
        return np.nan
    return effect_size(s[: len(x)], s[len(x) :], ddof=0)


def _same_b(x, y, a, b):
    return same.word_bias(np.vstack([x, y]), a, b)


SCORES = (
    ScoreCheck("WEAT word score", "word", association, 0.0),
    ScoreCheck("MAC word", "word", lambda w, a, b: mac.mac_word(w, [a, b]), 1.0),
    ScoreCheck("Direct Bias word", "word", direct_bias.word_bias, 0.0),
    ScoreCheck("SAME word", "word", lambda w, a, b: np.abs(same.word_bias(w, a, b)), 0.0),
    ScoreCheck("WEAT d", "set", _d, 0.0),
    ScoreCheck(
        "MAC", "set", lambda x, y, a, b: mac.mac_word(np.vstack([x, y]), [a, b]).mean(), 1.0
    ),
    ScoreCheck(
        "Direct Bias",
        "set",
        lambda x, y, a, b: direct_bias.word_bias(np.vstack([x, y]), a, b).mean(),
        0.0,
    ),
    ScoreCheck("SAME", "set", lambda *v: float(same.magnitude(_same_b(*v))), 0.0),
    ScoreCheck("SAME stereotype", "set", lambda *v: float(same.stereotype(_same_b(*v))), 0.0),
    ScoreCheck("SAME skew", "set", lambda *v: float(same.skew(_same_b(*v))), 0.0),
)


def _value(score: ScoreCheck, words: np.ndarray, a, b, split: int | None = None) -> np.ndarray:
    """The score of each word (word level) or of the set ``words`` split into X, Y."""
    if score.level == "word":
        return np.asarray(score.fn(words, a, b), float)
    n = len(words) // 2 if split is None else split
    return np.array([score.fn(words[:n], words[n:], a, b)])


def _is_b0(values, b0) -> np.ndarray:
    return np.isnan(values) | (np.abs(values - b0) < 1e-7)


def _with_bias(a, b, rng, biases: list[float]) -> np.ndarray:
    """Words whose SAME bias b(w) = cos(w, â - b̂) equals each value of ``biases``."""
    d = _unit(_direction(a, b)[None])[0]
    out = []
    for value in biases:
        v = rng.normal(size=DIM)
        v = _unit((v - (v @ d) * d)[None])[0]
        out.append(value * d + np.sqrt(1 - value**2) * v)
    return np.array(out)


def check(score: ScoreCheck, prop: str, seed: int = 0) -> tuple[str, str]:
    """("yes" | "no" | "conditional" | "", evidence) for one score and property."""
    rng = np.random.default_rng(seed)
    configs = attribute_configs(seed)
    if prop in ("skew_sensitive", "stereotype_sensitive") and score.level == "word":
        return "", "a word-level score has no set to be skewed or stereotyped"
    if prop == "comparable":
        ranges = []
        for name, a, b in configs:
            candidates = [rng.normal(size=(200, DIM))]
            special = [_direction(a, b), _unit(a).mean(0) + _unit(b).mean(0)]
            special.append(direct_bias.directions(a, b)[0])
            for v in special:  # where the theorems put the extrema: along and across
                if np.linalg.norm(v) > 1e-9:
                    across = rng.normal(size=DIM)
                    across -= (across @ v) / (v @ v) * v
                    candidates.append(np.array([v, -v, across]))
            words = np.vstack(candidates)
            words = words[np.linalg.norm(words, axis=1) > 1e-9]  # a zero vector has no direction
            if score.level == "word":
                values = _value(score, words, a, b)
            else:  # sets of copies of one candidate (and of it and its opposite): the bounds
                # of a set score are attained by sets of extreme words
                eps = 1e-5 * rng.normal(size=(4, DIM))  # distinct words (d needs a spread)
                sets = [np.array([u, u, u, u]) + eps for u in words[-9:]]
                sets += [np.array([u, u, -u, -u]) + eps for u in words[-9:]]
                values = np.concatenate([_value(score, s, a, b) for s in sets])
            values = values[~np.isnan(values)]
            ranges.append((name, round(float(values.max()), 3), round(float(values.min()), 3)))
        if len({r[1:] for r in ranges}) == 1:
            return "yes", f"same extrema {ranges[0][1:]} under every attribute configuration"
        first, other = ranges[0], next(r for r in ranges if r[1:] != ranges[0][1:])
        return "no", f"extrema {first[1:]} ({first[0]}) vs {other[1:]} ({other[0]})"
    if prop == "trustworthy":
        for name, a, b in configs:
            unbiased = np.array([_unbiased_word(a, b, rng) for _ in range(4)])
            if not _is_b0(_value(score, unbiased, a, b), score.b0).all():
                return "no", f"unbiased words score other than {score.b0} ({name})"
            biased_inputs = [np.array([_biased_word(a, b, rng) for _ in range(4)])]
            biased_inputs.append(_with_bias(a, b, rng, [0.5, -0.5, 0.5, -0.5]))  # opposite
            biased_inputs.append(_with_bias(a, b, rng, [0.3, 0.5, 0.5, 0.3]))  # Theorem 4
            for words in biased_inputs:
                if _is_b0(_value(score, words, a, b), score.b0).any():
                    return "no", f"biased words score the no-bias value {score.b0} ({name})"
        return "yes", "b0 exactly on unbiased words, under every configuration"
    if prop == "skew_sensitive":
        for name, a, b in configs:
            for strength in (0.5, 1.0):
                words = _with_bias(a, b, rng, [strength] * 4)
                if _is_b0(_value(score, words, a, b), score.b0).all():
                    return "no", f"words all biased towards A score {score.b0} ({name})"
        return "yes", "a skewed set never scores b0"
    # stereotype-sensitive: half the words biased towards A, half towards B
    aligned_ok, crossed_ok = True, True
    for _name, a, b in configs:
        for c in (0.5, 1.0):
            aligned = _with_bias(a, b, rng, [c, c, -c, -c])  # X to A, Y to B
            crossed = _with_bias(a, b, rng, [c, -c, c, -c])  # within each of X and Y
            aligned_ok &= not _is_b0(_value(score, aligned, a, b), score.b0).all()
            crossed_ok &= not _is_b0(_value(score, crossed, a, b), score.b0).all()
    if aligned_ok and crossed_ok:
        return "yes", "a stereotyped set never scores b0"
    if aligned_ok:
        return "conditional", "only when the stereotype follows the X/Y split"
    return "no", "a set stereotyped both ways scores b0"


def property_matrix(seed: int = 0) -> list[dict]:
    """One record per (score, property): the verdict and its evidence."""
    return [
        {"score": s.name, "property": p, "verdict": v, "evidence": e}
        for s in SCORES
        for p in PROPERTIES
        for v, e in [check(s, p, seed)]
    ]
