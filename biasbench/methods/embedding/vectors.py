"""What every vector method starts from: rows scaled to unit length, so cosines are dot
products."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from biasbench.errors import EmptySetError
from biasbench.inference import word_permutation_tests_mean_difference
from biasbench.methods.contract import ContextVectors, Settings
from biasbench.rows import Score
from biasbench.stats import (
    PermutationResult,
    derived_seed,
    permutation_test_mean_difference,
)


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


def target_words(x_groups: Sequence[np.ndarray], y_groups: Sequence[np.ndarray]) -> list[int]:
    """The word of each context of X's then Y's stimuli, as the position of its stimulus
    among X then Y (the order ``set_items`` concatenates them in, unit ``context``)."""
    groups = [*x_groups, *y_groups]
    return [j for j, g in enumerate(groups) for _ in range(len(g))]


def _word_test(values, x_groups, y_groups, settings, seed, alternative, strata):
    """The word-level permutation test of the difference of item means (every context of a
    stimulus moving with it between X and Y), words exchanged only within ``strata`` when
    given (word j's stratum, X then Y)."""
    words = (
        target_words(x_groups, y_groups)
        if settings.unit == "context"
        else list(range(len(x_groups) + len(y_groups)))
    )
    (res,) = word_permutation_tests_mean_difference(
        values,
        words,
        range(len(x_groups)),
        (alternative,),
        exact_max=settings.exact_max,
        n_samples=settings.n_samples,
        seed=derived_seed(seed, "p_word" if strata is None else "p_word_strata"),
        stratum_of=None if strata is None else dict(enumerate(strata)),
    )
    return res


def word_fields(
    values: np.ndarray,
    inputs: ContextVectors,
    settings: Settings,
    seed: int,
    alternative: str,
    paper: PermutationResult,
) -> dict[str, float]:
    """A target-exchanging method's word-level tests as :class:`biasbench.rows.Score`
    fields, ``values`` the set items of X then Y (``set_items`` of the per-stimulus context
    matrices under ``settings.unit``).

    ``p_word``: where the items are already the words (unit ``stimulus``, or one context per
    stimulus: static vectors) the paper's test (``paper``) is the word-level one. Otherwise
    every context of a stimulus moves with it between X and Y
    (:func:`biasbench.inference.word_permutation_tests_mean_difference`), over the same
    number of splits as the paper's test, from a seed derived from the method's: the cluster
    permutation test of Good (2005) and Edgington & Onghena (2007), valid when the words, not
    their contexts, are exchangeable under the null.

    ``p_word_strata``, where the inputs carry each stimulus' number of word pieces: the same
    test with X and Y words exchanged only within their piece count
    (:func:`biasbench.inference.stratified_splits`). A word of two pieces is pooled from two
    token vectors, one of one piece from one: the stratified test needs only words of one
    count to be exchangeable, which the plain one does not give where X's and Y's words
    differ in pieces (``synthesis_null_pieces``)."""
    x, y = inputs.groups["X"], inputs.groups["Y"]
    if settings.unit == "stimulus" or all(len(g) == 1 for g in (*x, *y)):
        word = paper
    else:
        word = _word_test(values, x, y, settings, seed, alternative, None)
    fields = {"p_word": word.p_value, "p_word_floor": word.floor}
    if inputs.strata is not None:
        strata = [*inputs.strata["X"], *inputs.strata["Y"]]
        stratified = _word_test(values, x, y, settings, seed, alternative, strata)
        fields |= {"p_word_strata": stratified.p_value, "p_word_strata_floor": stratified.floor}
    return fields


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


def target_difference(
    values: np.ndarray,
    n_x: int,
    inputs: ContextVectors,
    settings: Settings,
    seed: int,
    sizes: dict[str, int],
) -> Score:
    """The score of a per-item value (``values``: X's items, then Y's): its mean over X minus
    its mean over Y, with the two-sided permutation test over splits of X u Y and the
    word-level tests (:func:`word_fields`): RIPA's and RND's test."""
    test = permutation_test_mean_difference(
        values,
        n_x,
        exact_max=settings.exact_max,
        n_samples=settings.n_samples,
        seed=seed,
        alternative="two-sided",
    )
    return Score(
        float(values[:n_x].mean() - values[n_x:].mean()),
        test.p_value,
        p_floor=test.floor,
        **word_fields(values, inputs, settings, seed, "two-sided", test),
        n_partitions=test.n_partitions,
        exact=test.exact,
        sizes=sizes,
    )
