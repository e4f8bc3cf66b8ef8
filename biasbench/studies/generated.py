"""Generated null designs: on random weights any word sets form a null design.

A verdict on a test's calibration needs many independent designs (``calibration.min_clusters``:
67 at 0.05; 231 for an exactly calibrated test to be called so with 80% probability), and the
papers' tests give a few dozen. On a random-weight copy no weight has learned anything, so word
sets drawn at random are as null as the papers' and cost a forward pass of a few hundred words:
designs are drawn, not only inherited.

Each design draws four disjoint sets X, Y, A and B from a frozen pool of single words (the
stimuli of the run's word sets), each set of one size drawn from ``SIZES`` (the papers' tests
have 8 to 25 words a set). Every other design is deliberately unbalanced: X takes three
quarters of its words from the quarter of the pool that the base model's tokenizer splits into
the fewest pieces and the rest from the quarter it splits into the most, Y the reverse (a
static model, without a tokenizer: the shortest and the longest words), A and B from the rest:
the confound that the word test within piece counts (``p_word_strata``) must remove, and that
random static vectors do not have. Each design is scored on the words alone on a random copy of
its own (``<base>-null-g<i>``, seeded by that name): its test is ``gen<i>`` and its descriptor
its kind, so each design is a cluster of its own in the calibration
(``calibration.null_clusters``) and the designs share nothing but the pool, independent as the
verdict's exact interval assumes. Each is seeded by its index, so adding designs leaves the
earlier ones as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from biasbench.errors import InputError
from biasbench.stats import derived_seed

#: the words of each set of a design: one size per design, drawn from these
SIZES = (8, 10, 12, 16)
#: the share of the pool each end of an unbalanced design draws its targets from
QUARTER = 0.25


@dataclass(frozen=True)
class Design:
    """One generated null design: its index, its kind (``balanced``, or the confound it
    carries: ``pieces`` or ``length``) and its four sets."""

    index: int
    kind: str
    sets: Mapping[str, tuple[str, ...]]

    @property
    def test(self) -> str:
        return f"gen{self.index:03d}"


def word_pool(
    stimuli: Iterable[str],
    known: Callable[[str], bool] = lambda word: True,
    normalise: Callable[[str], str] = str,
) -> list[str]:
    """The frozen pool: the single-word stimuli that ``known`` accepts (a static model's
    vocabulary), one per form the model tells apart (``normalise``: an uncased model reads
    "Tom" as "tom"; the first in sorted order stays), sorted: the pool does not depend on the
    order the tests are read in."""
    pool: dict[str, str] = {}
    for word in sorted({s for s in map(str, stimuli) if s and " " not in s and known(s)}):
        pool.setdefault(normalise(word), word)
    return sorted(pool.values())


def draw_design(
    pool: list[str], index: int, seed: int, cost: Mapping[str, int] | None = None
) -> Design:
    """Design ``index`` of ``pool``: balanced at even indices; at odd ones X mostly from the
    quarter of the pool with the lowest ``cost`` (word pieces; None: the word's length in
    characters) and Y mostly from the quarter with the highest, a quarter of each from the
    other end (so the word test within piece counts has words of one count on both sides to
    exchange), A and B from the rest (ties in cost broken at random)."""
    rng = _design_rng(index, seed)
    size = int(rng.choice(SIZES))
    words = np.array(pool, dtype=object)
    if len(words) < 4 * size:  # four disjoint sets; a quarter of the pool holds one
        raise ValueError(f"a pool of {len(words)} words is too small for sets of {size}")
    if index % 2 == 0:
        drawn = rng.choice(words, 4 * size, replace=False)
        sets = {r: tuple(drawn[k * size : (k + 1) * size]) for k, r in enumerate("XYAB")}
        return Design(index, "balanced", sets)
    key = np.array([len(w) if cost is None else cost[w] for w in pool], float)
    order = np.lexsort((rng.random(len(pool)), key))  # by cost, ties in a random order
    quarter = int(len(pool) * QUARTER)
    low, high, middle = order[:quarter], order[-quarter:], order[quarter:-quarter]
    crossed = size // 4  # from the other end: the stratified test has words to exchange
    cheap = rng.choice(low, size, replace=False)
    dear = rng.choice(high, size, replace=False)
    x = np.concatenate([cheap[: size - crossed], dear[:crossed]])
    y = np.concatenate([dear[crossed:], cheap[size - crossed :]])
    a_b = rng.choice(middle, 2 * size, replace=False)
    sets = {"X": x, "Y": y, "A": a_b[:size], "B": a_b[size:]}
    return Design(
        index,
        "length" if cost is None else "pieces",
        {r: tuple(words[i] for i in v) for r, v in sets.items()},
    )


def design_seed(seed: int, model: str) -> int:
    """The seed of a base model's generated designs under the global seed."""
    return derived_seed(seed, "generated designs", model)


def _design_rng(index: int, seed: int) -> np.random.Generator:
    """Design ``index``'s own stream: its size is its first draw."""
    return np.random.default_rng(derived_seed(seed, "generated design", str(index)))


def designs_allowed(pool_size: int, designs: int, seed: int) -> tuple[int, int]:
    """(how many of the first ``designs`` designs a pool of ``pool_size`` words supplies, the
    set size of the first it does not; 0 when all fit): each design draws its own size
    (:data:`SIZES`), and its four disjoint sets need four times as many words (what
    :func:`draw_design` refuses), so a pool too small for the largest size fails at the first
    design that draws it, whatever the designs before it drew."""
    if pool_size >= 4 * max(SIZES):
        return designs, 0
    for index in range(designs):
        size = int(_design_rng(index, seed).choice(SIZES))
        if 4 * size > pool_size:
            return index, size
    return designs, 0


def check_designs(pool_size: int, designs: int, seed: int, field: str, pool: str) -> None:
    """Refuse ``designs`` generated designs that a pool of ``pool_size`` words (``pool``: what
    it is) cannot supply, naming the config ``field`` and the count it allows: the job would
    otherwise fail at the first design too large for it, after every copy before it ran."""
    allowed, size = designs_allowed(pool_size, designs, seed)
    if allowed < designs:
        raise InputError(
            f"config: {field}: {designs} generated designs, but a pool of {pool_size} words "
            f"({pool}) supplies the first {allowed} only: design {allowed} draws four disjoint "
            f"sets of {size} words, {4 * size} in all: set {field} to at most {allowed}, or add "
            "tests with more single words (config: tests)"
        )
