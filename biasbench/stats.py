"""The statistics every method shares: effect sizes, permutation tests, random-effects
meta-analysis and multiple-testing correction.

The permutation test follows May et al. (2019): the pooled target items are split into
every (or a seeded sample of) partition with the observed group sizes, and the one-sided
p-value is the share of partitions whose statistic is ``>=`` the observed one. Equality is
judged with a small relative tolerance so that ties produced by floating-point rounding
count as ties (the conservative direction).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from biasbench.errors import UndefinedEffectError


def derived_seed(seed: int, *parts: str) -> int:
    """A 32-bit seed that depends only on the global seed and the given identity, so each
    job (or stimulus) has its own random stream whatever else the configuration holds."""
    digest = hashlib.sha256("|".join([str(seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:4], "little")


#: relative tolerance under which a permuted statistic counts as equal to the observed one
TIE_RTOL = 1e-10

#: half-width, in standard deviations, of the window of keys sorted to find a row's (k+1)-th
#: smallest uniform key (:func:`_kth_smallest`); a row whose value falls outside it (~6e-5
#: of the rows at 4) is partitioned whole
WINDOW_SD = 4.0


@dataclass(frozen=True)
class PermutationResult:
    p_value: float
    n_partitions: int  # partitions evaluated (all of them when exact)
    exact: bool
    #: the smallest p-value the design can give, whatever the data: 1/N of N enumerated
    #: partitions (2/N where every partition's mirror is among them and ties it), 1/(1 + n)
    #: of n sampled ones. A floor above alpha: the test cannot reject at alpha
    floor: float


class Tested:
    """A method's result that holds its permutation test (``test``), whose p-value,
    partitions and exactness it reads through."""

    test: PermutationResult

    @property
    def p_value(self) -> float:
        return self.test.p_value

    @property
    def n_partitions(self) -> int:
        return self.test.n_partitions

    @property
    def exact(self) -> bool:
        return self.test.exact


def permutation_result(hits: int, count: int, exact: bool, mirrored: bool) -> PermutationResult:
    """The p-value of ``hits`` partitions at least as extreme as the observed one among
    ``count``: ``hits / count`` when they are every partition (the observed one among them),
    ``(1 + hits) / (1 + count)`` when sampled. ``mirrored``: every partition's mirror image is
    a partition too and ties it (a two-sided test of a statistic that swapping the two groups
    negates, with groups of equal size; a sign flip of every unit), so at least two partitions
    are as extreme as the observed one."""
    if exact:
        return PermutationResult(hits / count, count, True, min(1.0, (1 + mirrored) / count))
    return PermutationResult((1 + hits) / (1 + count), count, False, 1 / (1 + count))


def n_partitions(n_x: int, n_y: int) -> int:
    """Number of ordered splits of ``n_x + n_y`` items into groups of ``n_x`` and ``n_y``."""
    return math.comb(n_x + n_y, n_x)


@functools.lru_cache(maxsize=4)
def exact_subsets(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) as an (C(n,k), k) index array, in lexicographic order.
    Cached: they depend on the sizes only, and the encodings and methods of a job (and its
    descriptors of the same sizes) enumerate the same ones."""
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(n), k)),
        dtype=np.int32,
        count=math.comb(n, k) * k,
    )
    rows = flat.reshape(-1, k)
    rows.flags.writeable = False
    return rows


def _recent_arrays(max_entries: int, max_bytes: int):
    """Cache a function of hashable arguments that returns a read-only array: the most
    recently used results, at most ``max_entries`` of them and ``max_bytes`` in all (the
    least recent go first; a result larger than ``max_bytes`` alone is returned, not kept).
    Bounded in bytes, not only in count: one test's partitions of thousands of contexts are
    half a gigabyte, another's of a few words a few kilobytes, and a count bound small enough
    for the first lets the second evict it between two methods that share it."""

    def wrap(fn):
        store: OrderedDict = OrderedDict()

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items())))
            if key in store:
                store.move_to_end(key)
                return store[key]
            out = store[key] = fn(*args, **kwargs)
            while len(store) > max_entries or sum(a.nbytes for a in store.values()) > max_bytes:
                store.popitem(last=False)
            return out

        cached.cache_clear = store.clear
        return cached

    return wrap


@_recent_arrays(max_entries=16, max_bytes=1 << 30)
def sampled_subsets(n: int, k: int, n_samples: int, seed: int, distinct: bool) -> np.ndarray:
    """``n_samples`` k-subsets of range(n), each drawn uniformly, in draw order.

    A subset is the k positions with the smallest of n uniform keys. With ``distinct``,
    repeated subsets are dropped (keeping the first draw) and topped up; callers skip that
    when the partition space is so large that a repeat is practically impossible. Cached:
    the encodings of one test share their partitions (common random numbers).
    """
    rng = np.random.default_rng(seed)
    # ~1 MB of keys at a time, reused: they and their selection stay in cache (the rows
    # drawn do not depend on the chunk size: the keys are consumed from one stream)
    chunk = max(1, min(n_samples, (1 << 17) // n))
    keys = np.empty((chunk, n))
    rounded = np.empty((chunk, n), dtype=np.float32)
    # each chunk's rows are written in place: joining ~1,000 chunks' results afterwards
    # copied half a gigabyte for the largest tests
    rows = np.empty((n_samples, k), dtype=np.int32)
    done = 0
    while done < n_samples:
        need = n_samples - done
        for size in [chunk] * (need // chunk) + ([need % chunk] if need % chunk else []):
            rng.random(out=keys[:size])
            _smallest(keys[:size], k, out=rows[done : done + size], rounded=rounded[:size])
            done += size
        if distinct:
            # the first draw of each subset is kept; the kept rows move to the front, in
            # draw order, for the top-up to follow
            _, first = np.unique(_row_values(rows, n), return_index=True)
            kept = np.zeros(n_samples, dtype=bool)
            kept[first] = True  # the rows of the sorted indices, without sorting them
            done = len(first)
            rows[:done] = rows[kept]
    rows.flags.writeable = False
    return rows


def _row_values(rows: np.ndarray, n: int) -> np.ndarray:
    """One value per row of k-subsets of range(n), equal only for equal rows, for
    np.unique: the subset as a bit mask where n <= 64 (~4x faster to sort), else the row as
    one opaque value (np.unique(rows, axis=0) compares the k columns field by field, ~7x
    slower). Either way np.unique's index is each value's first row."""
    if n <= 64:
        return np.bitwise_or.reduce(np.uint64(1) << rows.astype(np.uint64), axis=1)
    return rows.view(np.dtype((np.void, rows.itemsize * rows.shape[1])))[:, 0]


def _smallest(
    keys: np.ndarray,
    k: int,
    out: np.ndarray | None = None,
    rounded: np.ndarray | None = None,
) -> np.ndarray:
    """Each row's positions of its ``k`` smallest keys, ascending, as int32 (what
    argpartition and a sort of the positions give, at a fraction of the cost): the keys
    below the row's (k+1)-th smallest, found among the keys rounded to float32. Rounding
    keeps order weakly, so a key whose float32 is below that of the (k+1)-th smallest is
    among the k smallest; where fewer than k are (a float32 tie at the boundary, ~1e-4 of
    the rows), the row is selected in float64.

    ``out`` (C-contiguous (rows, k) int32) receives the positions and ``rounded`` (float32,
    the keys' shape) the rounded keys, where given: a caller drawing chunk after chunk
    reuses them, as fresh half-megabyte arrays each chunk can cost a page fault per 4 kB
    (where malloc hands freed memory back to the system and maps it again)."""
    m, n = keys.shape
    if out is None:
        out = np.empty((m, k), dtype=np.int32)
    if rounded is None:
        rounded = np.empty((m, n), dtype=np.float32)
    np.copyto(rounded, keys, casting="same_kind")  # astype's rounding, into the buffer
    below = rounded < _kth_smallest(rounded, k)[:, None]
    flat = np.flatnonzero(below)  # row i's positions + i * n, in order
    # no row has more than k keys below its (k+1)-th smallest: m * k of them means k each
    if flat.size != m * k:
        short = np.count_nonzero(below, axis=1) != k
        exact = keys[short]
        below[short] = exact < np.partition(exact, k, axis=1)[:, k, None]
        if np.any(np.count_nonzero(below[short], axis=1) != k):  # a float64 tie: never seen
            out[...] = keys.argpartition(k, axis=1)[:, :k]
            out.sort(axis=1)
            return out
        flat = np.flatnonzero(below)
    out[...] = flat.reshape(m, k)
    out -= np.arange(0, m * n, n, dtype=np.int32)[:, None]
    return out


def _kth_smallest(rounded: np.ndarray, k: int) -> np.ndarray:
    """Each row's (k+1)-th smallest value (``np.partition(rounded, k, axis=1)[:, k]``).

    For rows of more than 512 keys numpy's partition costs 2-3x more per key than for
    shorter ones (numpy 2.4), so there the keys are taken to be uniform, as drawn: the
    (k+1)-th smallest of n lies within ``WINDOW_SD`` standard deviations of its mean
    (k+1)/(n+1), and only the keys in that window are sorted, in short padded rows, the
    keys below it counted. Where a row's value is not in its window (at most ~6e-5 of the
    rows, or keys not uniform) the row is partitioned whole. The values, hence the subsets,
    are the same either way."""
    m, n = rounded.shape
    if n <= 512:
        return np.partition(rounded, k, axis=1)[:, k]
    mean = (k + 1) / (n + 1)
    sd = math.sqrt(mean * (1 - mean) / (n + 2))  # of the beta(k + 1, n - k) order statistic
    # at least 12% of the keys: np.flatnonzero takes a branchy path for masks under 10%
    # dense, ~2x slower on random ones than its branch-free path
    half = max(WINDOW_SD * sd, 0.06)
    low = rounded < np.float32(mean - half)
    window = np.flatnonzero((rounded < np.float32(mean + half)) != low)
    row = window // n
    counts = np.bincount(row, minlength=m)
    width = max(1, counts.max())
    # row i's window keys, in order, at the start of padded row i
    padded = np.full(m * width, np.inf, dtype=np.float32)
    place = np.arange(m) * width - (np.cumsum(counts) - counts)
    padded[np.arange(window.size) + place[row]] = rounded.ravel()[window]
    padded = padded.reshape(m, width)
    padded.sort(axis=1)
    # the rank of the (k+1)-th smallest among the window's keys
    rank = k - low.view(np.uint8).sum(axis=1, dtype=np.int32)  # 2x count_nonzero's speed
    inside = (rank >= 0) & (rank < counts)
    kth = padded[np.arange(m), np.where(inside, rank, 0)]
    if not inside.all():
        kth[~inside] = np.partition(rounded[~inside], k, axis=1)[:, k]
    return kth


def subset_sums(values: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """``values[subsets].sum(axis=1)``, gathered a block of rows at a time into one 1 MB
    buffer that stays in cache (2-3x faster than a (rows, k) temporary; each row is summed
    alike, so the sums are the same to the bit)."""
    block = max(1, (1 << 20) // (8 * subsets.shape[1]))
    out = np.empty(len(subsets))
    buf = np.empty((min(block, len(subsets)), subsets.shape[1]))
    for i in range(0, len(subsets), block):
        rows = subsets[i : i + block]
        # the indices are in range, so "wrap" wraps none; its loop is ~8% faster than "clip"'s
        gathered = np.take(values, rows, out=buf[: len(rows)], mode="wrap")
        gathered.sum(axis=1, out=out[i : i + len(rows)])
    return out


def permutation_test_mean_difference(
    values: np.ndarray,
    n_x: int,
    *,
    exact_max: int,
    n_samples: int,
    seed: int,
    alternative: str = "greater",
) -> PermutationResult:
    """Test of ``mean(values[:n_x]) - mean(values[n_x:])`` being large (``greater``, WEAT
    and SEAT) or large in absolute value (``two-sided``, LPBS; the permutation distribution
    of a difference of means is centred on 0).

    Every partition of the pooled values into groups of the observed sizes is scored by the
    same difference of means; for equal group sizes this orders partitions exactly as the
    WEAT statistic ``sum_X s - sum_Y s`` does. Exact enumeration when the number of
    partitions is at most ``exact_max``, otherwise ``n_samples`` distinct partitions drawn
    with a seeded generator; the sampled p-value counts the observed partition among them,
    ``(1 + #{S_i >= S}) / (1 + n_samples)``, so it is never zero.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    n_y = n - n_x
    if n_x < 1 or n_y < 1:
        raise ValueError(f"permutation test needs two non-empty groups, got {n_x} and {n_y}")
    total = values.sum()

    def mean_diff(sum_x: np.ndarray | float) -> np.ndarray | float:
        return sum_x / n_x - (total - sum_x) / n_y

    if alternative not in ("greater", "two-sided"):
        raise ValueError(f"alternative must be 'greater' or 'two-sided', got {alternative!r}")
    fold = np.abs if alternative == "two-sided" else (lambda v: v)
    observed = fold(mean_diff(values[:n_x].sum()))
    mirrored = alternative == "two-sided" and n_x == n_y
    tol = TIE_RTOL * max(1.0, float(np.abs(values).max()))
    count = n_partitions(n_x, n_y)
    if count <= max(exact_max, n_samples):  # fewer partitions than samples: enumerate them
        stats = fold(mean_diff(subset_sums(values, exact_subsets(n, n_x))))
        hits = int(np.count_nonzero(stats >= observed - tol))
        return permutation_result(hits, count, True, mirrored)
    distinct = count < 1000 * n_samples**2  # else the expected number of repeats is < 1e-3
    subsets = sampled_subsets(n, n_x, n_samples, seed, distinct)
    stats = fold(mean_diff(subset_sums(values, subsets)))
    hits = int(np.count_nonzero(stats >= observed - tol))
    return permutation_result(hits, n_samples, False, mirrored)


def permutation_tests(
    statistics_of,
    n: int,
    k: int,
    alternatives: Sequence[str],
    *,
    exact_max: int,
    n_samples: int,
    seed: int,
    block: int = 4096,
    mirror_ties: bool = False,
) -> list[PermutationResult]:
    """Permutation tests of any statistics of a split of ``n`` items into a first group of
    ``k`` and the rest, one per entry of ``alternatives``: ``statistics_of(subsets)`` maps an
    (m, k) array of first-group members to an (m, len(alternatives)) array; the observed split
    is ``range(k)``. Statistics tested together share the work of a split (SAME and its skew:
    the targets' projections). Partitions as in :func:`permutation_test_mean_difference` (all
    when few, else seeded distinct samples; ``>=`` with the same tolerance; a sampled p counts
    the observed split). ``mirror_ties``: swapping the groups leaves each statistic as
    extreme under its alternative (SAME's magnitude is even in the swap, its skew odd and
    tested two-sided), so with groups of equal size the floor is 2 / count, not 1 / count."""
    for alternative in alternatives:
        if alternative not in ("greater", "two-sided"):
            raise ValueError(f"alternative must be 'greater' or 'two-sided', got {alternative!r}")
    if not 0 < k < n:
        raise ValueError(f"permutation test needs two non-empty groups, got {k} and {n - k}")
    folds = [np.abs if a == "two-sided" else (lambda v: v) for a in alternatives]
    first = statistics_of(np.arange(k, dtype=np.int32)[None])[0]
    observed = [float(fold(v)) for fold, v in zip(folds, first, strict=True)]
    bounds = [o - TIE_RTOL * max(1.0, abs(o)) for o in observed]
    count = n_partitions(k, n - k)
    exact = count <= max(exact_max, n_samples)
    if exact:
        subsets = exact_subsets(n, k)
    else:
        subsets = sampled_subsets(n, k, n_samples, seed, count < 1000 * n_samples**2)
    hits = np.zeros(len(alternatives), dtype=np.int64)
    for i in range(0, len(subsets), block):
        stats = statistics_of(subsets[i : i + block])
        for j, (fold, bound) in enumerate(zip(folds, bounds, strict=True)):
            hits[j] += np.count_nonzero(fold(stats[:, j]) >= bound)
    total = count if exact else n_samples
    return [permutation_result(int(h), total, exact, mirror_ties and 2 * k == n) for h in hits]


def binomial_floor(n: int) -> float:
    """The smallest two-sided binomial-test p (p0 = 1/2) of ``n`` trials: every trial on one
    side (NaN without a trial)."""
    from scipy.stats import binomtest  # lazily: planning the DAG imports the registry

    return float(binomtest(n, n, 0.5).pvalue) if n > 0 else math.nan


def wilcoxon_floor(n: int) -> float:
    """The smallest two-sided Wilcoxon signed-rank p of ``n`` paired differences: all of one
    sign, no ties (scipy's exact distribution up to 50, its normal approximation beyond, as
    for the data)."""
    from scipy.stats import wilcoxon

    return float(wilcoxon(np.arange(1.0, n + 1)).pvalue) if n > 0 else math.nan


def holm_bonferroni(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (monotone, capped at 1); NaN stays NaN."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    order = np.argsort(q, kind="stable")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * q[order])
    res = np.empty(m)
    res[order] = np.minimum(adjusted, 1.0)
    out[ok] = res
    return out


def effect_size(values_x: np.ndarray, values_y: np.ndarray, ddof: int) -> float:
    """Cohen's-d style difference of means over the pooled standard deviation (WEAT's d,
    LPBS' eq. 11). ``ddof=1`` is the sample convention of May et al.'s SEAT code; with
    ``ddof=0`` and equal group sizes |d| <= 2."""
    pooled = np.concatenate([values_x, values_y])
    sd = float(np.std(pooled, ddof=ddof))
    if not sd > 0:
        raise UndefinedEffectError("all values are equal: the effect size is undefined")
    return float((np.mean(values_x) - np.mean(values_y)) / sd)


def few_words_note(words: Mapping[str, int]) -> str:
    """The note of an effect size over a pooled standard deviation whose sides (role ->
    words) hold fewer than two words ("" if none): its spread is then one word's, not the
    set's (one word a side gives WEAT's d = +-sqrt(2) whatever the words), so the number is
    kept but must not stand bare."""
    few = [f"set {role} has {n} word" for role, n in words.items() if n < 2]
    if not few:
        return ""
    return (
        f"too few words: {', '.join(few)}; an effect size over a standard deviation needs at "
        "least two words a side (one a side gives +-sqrt(2) whatever the words)"
    )


def random_effects(d: np.ndarray, v: np.ndarray) -> tuple[float, float, float, float]:
    """(combined effect size, its standard error, tau^2, two-sided p) of effects d with
    within-sample variances v: the random-effects model of Borenstein et al. (2007) with the
    DerSimonian-Laird estimate of tau^2, as CEAT (Guo & Caliskan, 2021) combines samples."""
    d, v = np.asarray(d, np.float64), np.asarray(v, np.float64)
    if np.any(v <= 0):
        raise ValueError("within-sample variances must be positive")
    w = 1 / v
    q = np.sum(w * d**2) - np.sum(w * d) ** 2 / np.sum(w)
    df = len(d) - 1
    c = np.sum(w) - np.sum(w**2) / np.sum(w)
    tau2 = max(0.0, (q - df) / c) if c > 0 else 0.0
    w_star = 1 / (v + tau2)
    ces = float(np.sum(w_star * d) / np.sum(w_star))
    se = float(np.sqrt(1 / np.sum(w_star)))
    # ndtr(-z) is exactly scipy.stats.norm.sf(z), without importing scipy.stats (0.6-0.8 s
    # CPU per job); imported here: planning the DAG imports this module
    from scipy.special import ndtr

    p = float(2 * ndtr(-abs(ces / se)))
    return ces, se, tau2, p
