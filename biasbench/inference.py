"""Word-level (cluster) permutation tests: the stimulus word, not the context, as the unit.

The context-based tests (s-SEAT and w-SEAT on templates, RIPA and RND on contexts, ...) score
every context of a stimulus as one item and permute the X/Y labels of contexts. The contexts
of one word share that word, so under the null of no bias they are not exchangeable: a word's
own position in the space (its frequency, its sense, its tokenisation) moves all its contexts
together, and a split that separates two of them is not equally likely as the observed one.
Context permutation then ignores the variance between words and its p-values are far too
small (on random-weight null models s-SEAT called 23% of cells significant at p < 0.01).

The calibrated test keeps the statistic and changes only its null distribution: it permutes
the side labels of whole words, every context of a word moving with it, and keeps the number
of X words. This is the restricted (cluster) permutation test of a clustered two-sample
design (Good, 2005, *Permutation, Parametric and Bootstrap Tests of Hypotheses*, 3rd ed.:
permute only what the null hypothesis makes exchangeable; Edgington & Onghena, 2007,
*Randomization Tests*, 4th ed.: permute the experimental units): when the words are
exchangeable under the null -- the X and Y words drawn from one population, each with its
contexts and their number -- every split of the words is equally likely, so the share of
splits whose statistic is at least the observed one is an exact p-value (exact when all
splits are enumerated, valid as ``(1 + hits) / (1 + n)`` when they are sampled).

The partitions and p-value conventions are those of :mod:`biasbench.stats`, so a word-level
p and the context-level p of the same data are comparable: all ``C(n_x + n_y, n_x)`` splits
of the words when there are at most ``max(exact_max, n_samples)`` of them (p = hits / count),
otherwise ``n_samples`` seeded splits (distinct unless repeats are practically impossible;
p = (1 + hits) / (1 + n_samples)); ``>=`` up to the same relative tolerance. With one context
per word the word-level test is the context-level one, to the bit.

Statistics of the WEAT type are linear in the per-item association s(c, A, B): the difference
of the item means over X and Y is ``sum_X / n_X - (total - sum_X) / (N - n_X)`` with sum_X
and n_X the sums of the X words' per-word sums and context counts. So s is computed once per
context, reduced to per-word sums and counts, and the splits permute words only: 10,000 splits
of 50 words cost two gathers of (10,000, 25) numbers, whatever the contexts and dimensions.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from biasbench.stats import (
    TIE_RTOL,
    PermutationResult,
    exact_subsets,
    n_partitions,
    permutation_result,
    sampled_subsets,
    subset_sums,
)

#: the alternatives a word-level test takes: ``greater`` (statistic large, WEAT and SEAT),
#: ``less`` (small: what ``greater`` is after swapping X and Y) and ``two-sided`` (large in
#: absolute value, RIPA, RND, LPBS)
ALTERNATIVES = ("greater", "less", "two-sided")


@dataclass(frozen=True)
class WordDesign:
    """Items grouped into words, the words of side X first: ``word_of[i]`` is the position of
    item i's word in ``words`` (X words in order of first appearance among the items, then the
    Y words likewise); the first ``n_x`` words are on side X."""

    words: tuple[Hashable, ...]
    word_of: np.ndarray  # (n_items,) int
    n_x: int

    @property
    def n_y(self) -> int:
        return len(self.words) - self.n_x

    @property
    def sizes(self) -> np.ndarray:
        """Items per word, in the order of ``words``."""
        return np.bincount(self.word_of, minlength=len(self.words))


def word_design(words: Sequence[Hashable], x_words: Collection[Hashable]) -> WordDesign:
    """The design of items whose words are ``words`` (one per item), the words in ``x_words``
    on side X and every other word on side Y. Each side needs a word with an item."""
    words = list(words)
    x_set = set(x_words)
    seen = list(dict.fromkeys(words))  # in order of first appearance
    missing = x_set - set(seen)
    if missing:
        raise ValueError(f"X words without an item: {sorted(map(str, missing))}")
    order = [w for w in seen if w in x_set] + [w for w in seen if w not in x_set]
    n_x = len(x_set)
    if n_x < 1 or n_x == len(order):
        raise ValueError(f"word-level test needs X and Y words, got {n_x} and {len(order) - n_x}")
    position = {w: j for j, w in enumerate(order)}
    word_of = np.fromiter((position[w] for w in words), dtype=np.intp, count=len(words))
    return WordDesign(tuple(order), word_of, n_x)


def _splits(n_words: int, n_x: int, exact_max: int, n_samples: int, seed: int):
    """(X-word subsets, exact): every split of the words, or seeded samples, as in
    :func:`biasbench.stats.permutation_test_mean_difference`."""
    count = n_partitions(n_x, n_words - n_x)
    if count <= max(exact_max, n_samples):  # fewer partitions than samples: enumerate them
        return exact_subsets(n_words, n_x), True
    distinct = count < 1000 * n_samples**2  # else the expected number of repeats is < 1e-3
    return sampled_subsets(n_words, n_x, n_samples, seed, distinct), False


def _check(alternatives: Sequence[str]) -> None:
    for alternative in alternatives:
        if alternative not in ALTERNATIVES:
            raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")


def _hits(stats: np.ndarray, observed: float, tol: float, alternative: str) -> int:
    """How many permuted statistics are at least as extreme as the observed one (ties, up
    to ``tol``, count: the conservative direction)."""
    if alternative == "greater":
        return int(np.count_nonzero(stats >= observed - tol))
    if alternative == "less":
        return int(np.count_nonzero(stats <= observed + tol))
    return int(np.count_nonzero(np.abs(stats) >= abs(observed) - tol))


def _results(
    hits: Sequence[int], count: int, exact: bool, alternatives: Sequence[str], balanced: bool
) -> list[PermutationResult]:
    """One result per alternative; ``balanced``: each split's mirror (the sides swapped) is a
    split too, so a two-sided test has a floor of 2 / count (:func:`permutation_result`)."""
    return [
        permutation_result(h, count, exact, balanced and a == "two-sided")
        for h, a in zip(hits, alternatives, strict=True)
    ]


def word_permutation_tests_mean_difference(
    values: np.ndarray,
    words: Sequence[Hashable],
    x_words: Collection[Hashable],
    alternatives: Sequence[str] = ("greater",),
    *,
    exact_max: int,
    n_samples: int,
    seed: int,
    block: int = 1 << 16,
    stratum_of: Mapping[Hashable, Hashable] | None = None,
) -> list[PermutationResult]:
    """Word-level permutation tests of the difference of item means, ``mean_{X items} v -
    mean_{Y items} v``, one per entry of ``alternatives``.

    ``stratum_of`` (word -> its stratum, e.g. its number of word pieces under the model's
    tokenizer): words are exchanged only within their stratum (:func:`stratified_splits`).
    On random weights a word of two pieces is pooled from two token vectors and a word of one
    from one: the words are not exchangeable across piece counts, and where X's words have
    fewer pieces than Y's the plain word test rejects for the tokenizer's sake. Exchanging
    only words of one piece count (a stratified, or restricted, randomisation: Edgington &
    Onghena, 2007, ch. 6) needs only that words of the same count be exchangeable. A stratum
    whose words are all on one side is fixed: where every stratum is, the design has the
    observed split alone and p = 1 (its floor is 1: nothing to test).

    ``values[i]`` is item i's value (a context's association s(c, A, B)), ``words[i]`` its
    word; the words in ``x_words`` are on side X, the others on side Y. The splits move whole
    words (all their items) between the sides, keeping the number of X words; the statistic
    is the one :func:`biasbench.stats.permutation_test_mean_difference` permutes over items,
    so with one item per word (items ordered X first) the two tests give the same p-values.
    Why words are the unit, and the p-value conventions: the module's doc.
    """
    _check(alternatives)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or len(values) != len(words):
        raise ValueError(f"one value per item: {values.shape} values, {len(words)} words")
    if not np.all(np.isfinite(values)):
        raise ValueError("word-level test: non-finite values")
    design = word_design(words, x_words)
    n_words = len(design.words)
    sums = np.bincount(design.word_of, weights=values, minlength=n_words)
    sizes = design.sizes.astype(np.float64)
    total, n_items = values.sum(), float(len(values))

    def mean_diff(sum_x, n_x_items):
        return sum_x / n_x_items - (total - sum_x) / (n_items - n_x_items)

    observed = float(mean_diff(sums[: design.n_x].sum(), sizes[: design.n_x].sum()))
    tol = TIE_RTOL * max(1.0, float(np.abs(values).max()))
    strata = None
    if stratum_of is not None:
        missing = [w for w in design.words if w not in stratum_of]
        if missing:
            raise ValueError(f"words without a stratum: {sorted(map(str, missing))}")
        strata = [stratum_of[w] for w in design.words]
    subsets, exact, balanced = word_splits(
        n_words, design.n_x, exact_max=exact_max, n_samples=n_samples, seed=seed, strata=strata
    )
    hits = [0] * len(alternatives)
    for i in range(0, len(subsets), block):
        rows = subsets[i : i + block]
        stats = mean_diff(subset_sums(sums, rows), subset_sums(sizes, rows))
        for j, alternative in enumerate(alternatives):
            hits[j] += _hits(stats, observed, tol, alternative)
    return _results(hits, len(subsets), exact, alternatives, balanced)


def word_splits(
    n_words: int,
    n_x: int,
    *,
    exact_max: int,
    n_samples: int,
    seed: int,
    strata: Sequence[Hashable] | None = None,
) -> tuple[np.ndarray, bool, bool]:
    """(X-word subsets as an (m, n_x) index array, exact, balanced) of a word-level test over
    ``n_words`` words, the first ``n_x`` on side X: every split, or ``n_samples`` seeded
    ones, as the word-level tests here draw them; with ``strata`` (word j's stratum) only the
    splits that exchange words within their stratum (:func:`stratified_splits`).
    ``balanced``: each split's mirror is a split too (sides of equal size, in every stratum
    where there are strata). For statistics that need the splits themselves (CEAT's and
    p-CEAT's combined effects), paired with :func:`split_p_values`."""
    if strata is None:
        subsets, exact = _splits(n_words, n_x, exact_max, n_samples, seed)
        return subsets, exact, 2 * n_x == n_words
    subsets, exact = stratified_splits(
        strata, n_x, exact_max=exact_max, n_samples=n_samples, seed=seed
    )
    return subsets, exact, all(2 * k == len(g) for g, k in _strata(strata, n_x))


def _strata(strata: Sequence[Hashable], n_x: int) -> list[tuple[np.ndarray, int]]:
    """Per stratum (in order of first appearance): its words' positions and how many of them
    are on side X (the first ``n_x`` words)."""
    groups: dict[Hashable, list[int]] = {}
    for j, stratum in enumerate(strata):
        groups.setdefault(stratum, []).append(j)
    return [(np.array(g), sum(j < n_x for j in g)) for g in groups.values()]


def stratified_splits(
    strata: Sequence[Hashable],
    n_x: int,
    *,
    exact_max: int,
    n_samples: int,
    seed: int,
) -> tuple[np.ndarray, bool]:
    """(X-word subsets as an (m, n_x) index array, exact) of splits that exchange words only
    within their stratum: ``strata[j]`` is word j's stratum (its number of word pieces), the
    first ``n_x`` words on side X; every split keeps each stratum's number of X words. All
    ``prod_s C(n_s, k_s)`` of them when there are at most ``max(exact_max, n_samples)``, else
    ``n_samples`` seeded ones (each stratum's X words drawn uniformly, independently); a
    stratum of one side only is fixed. Cached (read-only): a job's methods and encodings ask
    for the same splits of the same words with the same seed."""
    return _stratified_splits(tuple(strata), n_x, exact_max, n_samples, seed)


@functools.lru_cache(maxsize=8)
def _stratified_splits(
    strata: tuple[Hashable, ...], n_x: int, exact_max: int, n_samples: int, seed: int
) -> tuple[np.ndarray, bool]:
    """:func:`stratified_splits`, its arguments hashable."""
    subsets, exact = _stratified_draw(strata, n_x, exact_max, n_samples, seed)
    subsets.flags.writeable = False
    return subsets, exact


def _stratified_draw(strata, n_x, exact_max, n_samples, seed) -> tuple[np.ndarray, bool]:
    groups = _strata(strata, n_x)
    count = math.prod(math.comb(len(g), k) for g, k in groups)
    if count <= max(exact_max, n_samples):
        return _stratified_exact(groups, n_x, count), True
    rng = np.random.default_rng(seed)
    # each stratum's X words are the k with the smallest of its keys (drawn stratum by
    # stratum, none for a stratum without X words); marked in a (splits, words) mask, they
    # are read off in word order, each row sorted without a sort
    on_x = np.zeros((n_samples, len(strata)), dtype=bool)
    for g, k in groups:
        if k:
            on_x[:, g] = _smallest_mask(rng.random((n_samples, len(g))), k)
    rows = np.empty((n_samples, n_x), dtype=np.int32)
    rows[...] = np.flatnonzero(on_x).reshape(n_samples, n_x)  # row i's words + i * n_words
    rows -= np.arange(0, on_x.size, len(strata), dtype=np.int32)[:, None]
    return rows, False


def _smallest_mask(keys: np.ndarray, k: int) -> np.ndarray:
    """Each row's ``k`` smallest keys as a mask: those of ``np.argpartition(keys, k - 1,
    axis=1)[:, :k]`` (half its cost, a partition of the values): the keys up to the row's
    k-th smallest, unless a key ties it from above (then argpartition's own choice)."""
    mask = keys <= np.partition(keys, k - 1, axis=1)[:, k - 1, None]
    if np.count_nonzero(mask) != len(keys) * k:  # every row has >= k: a tie at the boundary
        mask[...] = False
        np.put_along_axis(mask, np.argpartition(keys, k - 1, axis=1)[:, :k], True, axis=1)
    return mask


def _stratified_exact(groups: list[tuple[np.ndarray, int]], n_x: int, count: int) -> np.ndarray:
    """Every split of :func:`stratified_splits`' exact case, as one array: the product of the
    strata's k-subsets (each stratum's in lexicographic order, the first stratum's varying
    slowest: ``itertools.product``'s order), each row sorted. Built column block by column
    block instead of row by row (the rows are the same integers in the same order; tested)."""
    out = np.empty((count, n_x), dtype=np.int64)
    outer, col = 1, 0
    for g, k in groups:
        n_here = math.comb(len(g), k)
        inner = count // (outer * n_here)  # rows per subset of this stratum, in a run
        if k:
            combos = itertools.chain.from_iterable(itertools.combinations(range(len(g)), k))
            block = g[np.fromiter(combos, np.intp, count=n_here * k).reshape(n_here, k)]
            out[:, col : col + k] = np.tile(np.repeat(block, inner, axis=0), (outer, 1))
            col += k
        outer *= n_here
    return np.sort(out, axis=1).astype(np.int32)


def word_permutation_tests(
    statistic: Callable[[np.ndarray, np.ndarray], float],
    items: np.ndarray,
    words: Sequence[Hashable],
    x_words: Collection[Hashable],
    alternatives: Sequence[str] = ("greater",),
    *,
    exact_max: int,
    n_samples: int,
    seed: int,
) -> list[PermutationResult]:
    """Word-level permutation tests of any statistic of the two sides' items.

    ``items`` are rows (values or vectors), ``words[i]`` the word of row i, ``x_words`` the
    words on side X; ``statistic(x_items, y_items)`` is computed for every split of the words
    (the rows of the X words and of the Y words, each in item order). The splits and p-value
    conventions are those of :func:`word_permutation_tests_mean_difference`; ties count up to
    ``TIE_RTOL`` relative to the observed statistic, as in :func:`biasbench.stats.
    permutation_tests`. One Python call per split: for a statistic linear in per-item values
    (WEAT, SEAT, RIPA, RND) compute the values once and use the mean-difference test.
    """
    _check(alternatives)
    items = np.asarray(items)
    if len(items) != len(words):
        raise ValueError(f"one word per item: {len(items)} items, {len(words)} words")
    design = word_design(words, x_words)
    n_words = len(design.words)
    order = np.argsort(design.word_of, kind="stable")  # the items word by word
    starts = np.searchsorted(design.word_of[order], np.arange(n_words + 1))
    rows_of = [order[starts[j] : starts[j + 1]] for j in range(n_words)]

    def split_statistic(x_members: np.ndarray) -> float:
        on_x = np.zeros(n_words, bool)
        on_x[x_members] = True
        x_rows = np.sort(np.concatenate([rows_of[j] for j in np.flatnonzero(on_x)]))
        y_rows = np.sort(np.concatenate([rows_of[j] for j in np.flatnonzero(~on_x)]))
        return float(statistic(items[x_rows], items[y_rows]))

    observed = split_statistic(np.arange(design.n_x))
    tol = TIE_RTOL * max(1.0, abs(observed))
    subsets, exact = _splits(n_words, design.n_x, exact_max, n_samples, seed)
    stats = np.fromiter((split_statistic(s) for s in subsets), np.float64, count=len(subsets))
    hits = [_hits(stats, observed, tol, a) for a in alternatives]
    return _results(hits, len(subsets), exact, alternatives, balanced=False)  # any statistic


def weat_word_p(
    s: np.ndarray,
    words: Sequence[Hashable],
    roles: Sequence[str],
    *,
    exact_max: int,
    n_samples: int,
    seed: int,
    alternative: str = "greater",
) -> PermutationResult:
    """WEAT/SEAT's permutation p with the stimulus word as the unit.

    ``s[i]`` is context i's association s(c, A, B), ``words[i]`` its stimulus word and
    ``roles[i]`` that word's role, ``"X"`` or ``"Y"`` (every context of a word has the same).
    The statistic is the one :func:`biasbench.methods.embedding.weat.weat` permutes over
    contexts, the difference of the context means of s over X and Y (for equal group sizes
    it orders splits as the paper's ``sum_X s - sum_Y s``); its null distribution comes from
    splits of the words (:func:`word_permutation_tests_mean_difference`). The paper's test is
    one-sided (``greater``); RIPA and RND use ``two-sided``.
    """
    if len(roles) != len(words):
        raise ValueError(f"one role per item: {len(roles)} roles, {len(words)} words")
    role_of: dict[Hashable, str] = {}
    for word, role in zip(words, roles, strict=True):
        if role not in ("X", "Y"):
            raise ValueError(f"role must be 'X' or 'Y', got {role!r}")
        if role_of.setdefault(word, role) != role:
            raise ValueError(f"word {word!r} has contexts in both X and Y")
    x_words = [w for w, r in role_of.items() if r == "X"]
    return word_permutation_tests_mean_difference(
        s, words, x_words, (alternative,), exact_max=exact_max, n_samples=n_samples, seed=seed
    )[0]


def stacked(
    x_groups: Sequence[np.ndarray], y_groups: Sequence[np.ndarray]
) -> tuple[np.ndarray, list[tuple[str, int]], list[str]]:
    """(items, words, roles) of per-stimulus context matrices, as ``ContextVectors.groups``
    holds them: the rows of every X stimulus then every Y stimulus, each row's word as
    (role, index of the stimulus in its role) and its role."""
    groups = [("X", j, g) for j, g in enumerate(x_groups)]
    groups += [("Y", j, g) for j, g in enumerate(y_groups)]
    if not groups:
        raise ValueError("no stimulus")
    items = np.concatenate([np.asarray(g) for _, _, g in groups])
    words = [(role, j) for role, j, g in groups for _ in range(len(g))]
    roles = [role for role, _, g in groups for _ in range(len(g))]
    return items, words, roles


def split_p_values(
    stats: np.ndarray,
    observed: float,
    alternatives: Sequence[str],
    exact: bool,
    balanced: bool = False,
) -> list[PermutationResult]:
    """The p-values of an observed statistic against its values ``stats`` over the splits of
    :func:`word_splits`: ``hits / count`` when exact, ``(1 + hits) / (1 + count)`` when
    sampled, ties up to ``TIE_RTOL`` relative to the observed statistic counting.
    ``balanced``: the sides are of equal size and swapping them negates the statistic (each
    split's mirror ties it in a two-sided test: the floor is 2 / count)."""
    _check(alternatives)
    stats = np.asarray(stats, np.float64)
    tol = TIE_RTOL * max(1.0, abs(observed))
    hits = [_hits(stats, observed, tol, a) for a in alternatives]
    return _results(hits, len(stats), exact, alternatives, balanced)


def word_sign_flip_tests(
    values: np.ndarray,
    words: Sequence[Hashable],
    alternatives: Sequence[str] = ("two-sided",),
    *,
    exact_max: int,
    n_samples: int,
    seed: int,
    block: int = 1 << 14,
) -> list[PermutationResult]:
    """Word-level sign-flip tests of a paired design: the statistic ``sum_i values[i]``, the
    null flipping the sign of every item of a word together.

    A paired item (a sentence with its male and its female person word) carries a label
    whose swap the null of no bias leaves the distribution unchanged: swapping the two words
    negates the item's value. Items that share the word pair (every sentence of "my brother"
    / "my sister") are not independent, so the labels are swapped per word, all its items at
    once: the restricted randomisation of a clustered one-sample design (Edgington & Onghena,
    2007, ch. 8; Good, 2005, sec. 3.6 and 9.2: randomise the units that were assigned, here
    the word pairs). The statistic ``T(s) = sum_w s_w S_w``, with ``S_w`` the sum of word w's
    values, is linear, so any statistic that is a sum of per-item values whose sign follows
    the label works: the mean difference, or Wilcoxon's signed-rank sum (the ranks of
    ``|values|`` do not change under sign flips). All ``2^W`` sign vectors when there are at
    most ``max(exact_max, n_samples)`` of them (p = hits / 2^W, the observed one among them),
    otherwise ``n_samples`` seeded uniform ones (p = (1 + hits) / (1 + n_samples)); ties up to
    ``TIE_RTOL`` count. With one item per word this is the usual paired permutation test.
    """
    _check(alternatives)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or len(values) != len(words):
        raise ValueError(f"one value per item: {values.shape} values, {len(words)} words")
    if not np.all(np.isfinite(values)):
        raise ValueError("word-level test: non-finite values")
    order = list(dict.fromkeys(words))
    position = {w: j for j, w in enumerate(order)}
    word_of = np.fromiter((position[w] for w in words), dtype=np.intp, count=len(words))
    sums = np.bincount(word_of, weights=values, minlength=len(order))
    n_words = len(order)
    observed = float(sums.sum())
    tol = TIE_RTOL * max(1.0, float(np.abs(values).sum()))
    count = 1 << n_words if n_words < 63 else None
    exact = count is not None and count <= max(exact_max, n_samples)
    hits = [0] * len(alternatives)
    total = count if exact else n_samples
    rng = np.random.default_rng(seed)
    for start in range(0, total, block):
        size = min(block, total - start)
        if exact:  # the bits of start, start + 1, ...: 0 is +1, 1 is -1
            codes = np.arange(start, start + size, dtype=np.int64)[:, None]
            signs = 1.0 - 2.0 * ((codes >> np.arange(n_words)) & 1)
        else:
            signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, n_words))
        stats = signs @ sums
        for j, alternative in enumerate(alternatives):
            hits[j] += _hits(stats, observed, tol, alternative)
    return _results(hits, total, exact, alternatives, balanced=True)  # flipping every sign
