"""WEAT (Caliskan et al., 2017) and its sentence-encoder forms s-SEAT (May et al., 2019) and
w-SEAT (Tan & Celis, 2019): one statistic, three readings of "a set item".

s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b)
d = (mean_x s(x) - mean_y s(y)) / std_{w in X u Y} s(w)

The standard deviation uses the *sample* convention (``ddof=1``) as in the SEAT code of
May et al. (2019); Caliskan et al. leave it unstated. With population std (``ddof=0``) and
|X| = |Y| the effect size lies in [-2, 2]; the sample convention only shrinks it.
The one-sided permutation p counts partitions of X u Y whose statistic is ``>=`` the
observed one (``biasbench.stats``).

``p_word`` is the same one-sided test with the stimulus word as the unit: on templates
(s-SEAT, w-SEAT with unit ``context``) each stimulus' contexts share it, so splitting them
between X and Y as if independent understates the null spread (23% of random-weight cells at
p < 0.01); the word-level test splits whole words, every context moving with its word, and
keeps the statistic, the difference of the context means of s over X and Y (for the effect
size, whose pooled sd every split shares, the same order). Its items already words (WEAT on
static vectors, unit ``stimulus``), ``p_word`` is ``p_value``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from biasbench.encodings import SENT_ENCODINGS, WORD_ENCODINGS
from biasbench.methods.contract import (
    CONTEXTUAL,
    ON_STUDY,
    WHY_TEST,
    ContextVectors,
    Method,
    Settings,
    Truth,
)
from biasbench.methods.embedding.vectors import set_items, unit_rows, word_fields
from biasbench.rows import Score
from biasbench.stats import (
    PermutationResult,
    Tested,
    effect_size,
    few_words_note,
    permutation_test_mean_difference,
)


def association(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """s(w, A, B) for every row of ``w``."""
    wu = unit_rows(w, "targets")
    return (wu @ unit_rows(a, "A").mean(axis=0)) - (wu @ unit_rows(b, "B").mean(axis=0))


@dataclass(frozen=True)
class WeatResult(Tested):
    effect_size: float
    test: PermutationResult  # the one-sided permutation test over the set items
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    #: s(w, A, B) of the items of X then Y (what the word-level test splits by word)
    s: np.ndarray | None = field(default=None, compare=False, repr=False)


def weat(
    x: np.ndarray,
    y: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    *,
    exact_max: int = Settings.exact_max,
    n_samples: int = Settings.n_samples,
    seed: int = 0,
    ddof: int = Settings.ddof,
) -> WeatResult:
    """Effect size and one-sided permutation p-value of X vs Y towards A vs B.

    Rows of each matrix are the set's items (words, or sentences for SEAT).
    """
    for name, m in (("X", x), ("Y", y), ("A", a), ("B", b)):
        if len(m) == 0:
            raise ValueError(f"set {name} is empty")
    s = association(np.concatenate([x, y]), a, b)
    s_x, s_y = s[: len(x)], s[len(x) :]
    perm = permutation_test_mean_difference(
        s, len(x), exact_max=exact_max, n_samples=n_samples, seed=seed
    )
    return WeatResult(
        effect_size=effect_size(s_x, s_y, ddof=ddof),
        test=perm,
        n_x=len(x),
        n_y=len(y),
        n_a=len(a),
        n_b=len(b),
        s=s,
    )


def score(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    """WEAT on the set items of ``settings.unit`` (contexts, or per-stimulus means)."""
    items = {r: set_items(list(inputs.groups[r]), settings.unit) for r in "XYAB"}
    res = weat(
        *(items[r] for r in "XYAB"),
        exact_max=settings.exact_max,
        n_samples=settings.n_samples,
        seed=seed,
        ddof=settings.ddof,
    )
    word = word_fields(res.s, inputs, settings, seed, "greater", res.test)
    return Score(
        res.effect_size,
        res.p_value,
        p_floor=res.test.floor,
        **word,
        n_partitions=res.n_partitions,
        exact=res.exact,
        sizes={r: len(items[r]) for r in "XYAB"},
        note=few_words_note({r: len(inputs.groups[r]) for r in "XY"}),
    )


#: the settings ``score`` reads
READS = ("unit", "exact_max", "n_samples", "ddof")
WEAT = Method(
    "WEAT",
    "Caliskan et al. (2017)",
    "embedding",
    ContextVectors,
    score,
    reads=READS,
    encodings=("word/mean",),
    model_kinds=("static",),
    context="words",
    permutes="targets",
    scale_free=True,
    description="Word Embedding Association Test on static word vectors.",
    reference="W4ngatang/sent-bias: sentbias/weat.py",
    truth=Truth("difference", ON_STUDY, WHY_TEST),
)
S_SEAT = Method(
    "s-SEAT",
    "May et al. (2019)",
    "embedding",
    ContextVectors,
    score,
    reads=READS,
    encodings=SENT_ENCODINGS,
    model_kinds=CONTEXTUAL,
    permutes="targets",
    scale_free=True,
    description="WEAT on sentence encodings of the stimuli in templates ([CLS] for encoders, "
    "the last token for decoders).",
    reference="W4ngatang/sent-bias: sentbias/weat.py",
    truth=Truth("difference", ON_STUDY, WHY_TEST),
)
W_SEAT = Method(
    "w-SEAT",
    "Tan & Celis (2019)",
    "embedding",
    ContextVectors,
    score,
    reads=READS,
    encodings=WORD_ENCODINGS,
    model_kinds=CONTEXTUAL,
    permutes="targets",
    scale_free=True,
    description="WEAT on the stimulus' own subword tokens in templates (mean, first or last).",
    reference="W4ngatang/sent-bias: sentbias/weat.py",
    truth=Truth("difference", ON_STUDY, WHY_TEST),
)
