"""The pool and the sizes of generated null designs (:mod:`biasbench.studies.generated`): what
planning needs to know, before any job, whether the run's word sets can supply the designs the
configuration asks for."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from biasbench.errors import InputError
from biasbench.stats import derived_seed

#: the words of each set of a design: one size per design, drawn from these
SIZES = (8, 10, 12, 16)


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


def design_seed(seed: int, model: str) -> int:
    """The seed of a base model's generated designs under the global seed."""
    return derived_seed(seed, "generated designs", model)


def design_rng(index: int, seed: int) -> np.random.Generator:
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
        size = int(design_rng(index, seed).choice(SIZES))
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
