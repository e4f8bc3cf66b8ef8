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

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from biasbench.data.designs import SIZES, design_rng

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


def draw_design(
    pool: list[str], index: int, seed: int, cost: Mapping[str, int] | None = None
) -> Design:
    """Design ``index`` of ``pool``: balanced at even indices; at odd ones X mostly from the
    quarter of the pool with the lowest ``cost`` (word pieces; None: the word's length in
    characters) and Y mostly from the quarter with the highest, a quarter of each from the
    other end (so the word test within piece counts has words of one count on both sides to
    exchange), A and B from the rest (ties in cost broken at random)."""
    rng = design_rng(index, seed)
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
