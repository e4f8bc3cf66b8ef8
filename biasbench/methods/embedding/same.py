"""SAME, the scoring of association by mean embeddings (Schröder et al., eqs. 33-45), with its
skew and stereotype parts.

Attribute vectors are scaled to unit length and averaged per group: â_i. For two groups,

    b(w) = cos(w, â - b̂)  in [-1, 1]                                  (eq. 36)
    SAME(W) = mean_W |b(w)|,  skew = mean_W b(w),  stereotype = std_W b(w)   (eqs. 37, 44, 45)

(the stereotype as ``np.std``, the authors' code; eq. 45 as printed divides once more by
sqrt(|W|): the ``eq45`` variant). With more groups A_0..A_n, an orthonormal basis of the span of
the â_i - â_0 (standard Gram-Schmidt, dropping vectors that come out zero; the printed eq. 39
names a b_0 that does not exist) gives w_B = (cos(w, b_1), ..., cos(w, b_n)) and
SAME_word = ||w_B|| in [0, 1] (eqs. 38-43): the length of w's unit vector projected on the span,
whatever group is the reference or their order.

The set-level scores run on W = X u Y (the words tested); SAME and skew are tested against
re-splits of the attribute words into groups of the observed sizes (the seeded permutation
machinery of ``biasbench.stats``): a random split of the attributes gives the null direction.
Its items are words (``word/mean``), so the word-level ``p_word`` is that same test.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import (
    ON_STUDY,
    WHY_MAGNITUDE,
    ContextVectors,
    Method,
    Settings,
    Truth,
)
from biasbench.methods.embedding.vectors import set_items, unit_rows
from biasbench.rows import Score
from biasbench.stats import permutation_tests

#: numerical zero for Gram-Schmidt: a difference this short lies in the span already
_ZERO = 1e-10


def direction(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """â - b̂: the mean unit vector of A minus that of B."""
    return unit_rows(a, "A").mean(axis=0) - unit_rows(b, "B").mean(axis=0)


def word_bias(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """b(w) = cos(w, â - b̂) per row of ``w`` (eq. 36)."""
    d = direction(a, b)
    norm = np.linalg.norm(d)
    if not norm > 0:
        raise ValueError("the attribute sets have the same mean direction: b is undefined")
    return unit_rows(w, "targets") @ (d / norm)


def basis(groups: list[np.ndarray]) -> np.ndarray:
    """An orthonormal basis (rows) of the span of â_i - â_0 by Gram-Schmidt (eqs. 38-40)."""
    means = [unit_rows(g, f"group {i}").mean(axis=0) for i, g in enumerate(groups)]
    out: list[np.ndarray] = []
    for m in means[1:]:
        v = m - means[0]
        for u in out:
            v = v - (v @ u) * u
        if np.linalg.norm(v) > _ZERO:
            out.append(v / np.linalg.norm(v))
    if not out:
        raise ValueError("all groups have the same mean direction: no bias space")
    return np.array(out)


def word_same(w: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    """SAME_word = ||w_B|| per row of ``w`` (eqs. 41-42); for two groups it equals |b(w)|."""
    return np.linalg.norm(unit_rows(w, "targets") @ basis(groups).T, axis=1)


def stereotype(b: np.ndarray, form: str = "std") -> np.ndarray:
    """The spread of the word biases (last axis): ``std`` (np.std, the authors' code) or
    ``eq45`` (divided once more by sqrt(|W|), as eq. 45 is printed)."""
    spread = np.std(b, axis=-1)
    return spread if form == "std" else spread / np.sqrt(b.shape[-1])


def magnitude(b: np.ndarray) -> np.ndarray:
    """SAME(W) = mean |b| (last axis)."""
    return np.mean(np.abs(b), axis=-1)


def skew(b: np.ndarray) -> np.ndarray:
    """skew = mean b (last axis)."""
    return np.mean(b, axis=-1)


def _items(inputs: ContextVectors, unit: str) -> dict[str, np.ndarray]:
    return {r: set_items(list(inputs.groups[r]), unit) for r in "XYAB"}


def _one_item_per_word(inputs: ContextVectors, unit: str) -> bool:
    """Whether every item is a stimulus word (its mean context, or its one vector): then the
    re-splits of the attribute items already move words, and the word-level test is the
    paper's. SAME reads ``word/mean``, so this holds for every row it writes."""
    return unit == "stimulus" or all(len(g) == 1 for r in "XYAB" for g in inputs.groups[r])


def _attribute_nulls(items: dict[str, np.ndarray], settings: Settings, seed: int):
    """Tests of SAME (``greater``) and skew (``two-sided``) against re-splits of A u B into
    groups of the observed sizes, on the same splits: the targets' projections on each
    split's â - b̂ (most of the work) serve both."""
    w = unit_rows(np.concatenate([items["X"], items["Y"]]), "targets")
    attributes = unit_rows(np.concatenate([items["A"], items["B"]]), "attributes")
    n_a, n_b = len(items["A"]), len(attributes) - len(items["A"])

    def over_splits(subsets: np.ndarray) -> np.ndarray:
        weights = np.full((len(subsets), len(attributes)), -1 / n_b)  # â - b̂ per split
        np.put_along_axis(weights, subsets, 1 / n_a, axis=1)
        d = weights @ attributes
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        b = d @ w.T
        return np.column_stack([magnitude(b), skew(b)])

    same, skewed = permutation_tests(
        over_splits,
        len(attributes),
        n_a,
        ("greater", "two-sided"),
        exact_max=settings.exact_max,
        n_samples=min(settings.n_samples, settings.same_samples),
        seed=seed,
        mirror_ties=True,  # swapping A and B keeps |b| and negates the skew
    )
    return {magnitude: same, skew: skewed}


def _score(inputs: ContextVectors, settings: Settings, seed: int, statistic, tested: bool):
    items = _items(inputs, settings.unit)
    b = word_bias(np.concatenate([items["X"], items["Y"]]), items["A"], items["B"])
    test = None
    if tested:
        # keyed by the settings the nulls depend on, not the whole Settings (hashing it reads all)
        key = ("SAME nulls", *(getattr(settings, name) for name in TESTED), seed)
        nulls = inputs.derived(key, lambda: _attribute_nulls(items, settings, seed))
        test = nulls[statistic]
    word_level = test is not None and _one_item_per_word(inputs, settings.unit)
    return Score(
        float(statistic(b)),
        test.p_value if test else np.nan,
        p_word=test.p_value if word_level else np.nan,
        p_floor=test.floor if test else np.nan,
        p_word_floor=test.floor if word_level else np.nan,
        n_partitions=test.n_partitions if test else 0,
        exact=test.exact if test else False,
        sizes={r: len(items[r]) for r in "XYAB"},
        note="" if test else "no significance test (a spread has no null here)",
    )


def score_same(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    return _score(inputs, settings, seed, magnitude, tested=True)


def score_skew(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    return _score(inputs, settings, seed, skew, tested=True)


def score_stereotype(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    return _score(inputs, settings, seed, stereotype, tested=False)


_COMMON = dict(
    paper="Schröder et al. (2021)",
    family="embedding",
    consumes=ContextVectors,
    encodings=("word/mean",),
    swap="keeps",
    scale_free=True,
)
#: the settings SAME and its skew read (the stereotype reads only the unit: it has no test)
TESTED = ("unit", "exact_max", "n_samples", "same_samples")
SAME = Method(
    "SAME",
    compute=score_same,
    reads=TESTED,
    permutes="attributes",
    description="Mean |cos(w, â - b̂)| over the target words: bias in either direction.",
    **_COMMON,
    truth=Truth("magnitude", ON_STUDY, WHY_MAGNITUDE),
)
SAME_SKEW = Method(
    "SAME skew",
    compute=score_skew,
    reads=TESTED,
    permutes="attributes",
    description="Mean cos(w, â - b̂): do the target words lean to one group as a whole?",
    **_COMMON,
    truth=Truth("direction", ON_STUDY, "the signed mean association: which gender all lean to"),
)
SAME_STEREOTYPE = Method(
    "SAME stereotype",
    compute=score_stereotype,
    reads=("unit",),
    description="Standard deviation of cos(w, â - b̂): do the words lean to different groups?",
    **_COMMON,
    truth=Truth("spread", ON_STUDY, "how far the words' associations differ from each other"),
)
