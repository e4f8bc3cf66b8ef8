"""The lexicon and the sizes of generated null designs (:mod:`biasbench.studies.generated`):
what planning needs to know, before any job, whether a configuration can supply the designs
it asks for."""

from __future__ import annotations

import numpy as np

from biasbench.errors import InputError
from biasbench.stats import derived_seed

#: the words of each set of a design: one size per design, drawn from these
SIZES = (8, 10, 12, 16)
#: the words of the lexicon a design may draw: the first this many plain words
LEXICON_WORDS = 80_000
#: the designs a base may ask for: four sets of the largest size each, no word used twice,
#: fit this many times into the lexicon whatever the classes (the job checks the real count)
MAX_DESIGNS = LEXICON_WORDS // (4 * max(SIZES))


def design_seed(seed: int, model: str) -> int:
    """The seed of a base model's generated designs under the global seed."""
    return derived_seed(seed, "generated designs", model)


def design_rng(index: int, seed: int) -> np.random.Generator:
    """Design ``index``'s own stream: its size is its first draw."""
    return np.random.default_rng(derived_seed(seed, "generated design", str(index)))


def check_designs(designs: int, field: str, lexicon: str | None, lexicon_field: str) -> None:
    """Refuse generated designs without a lexicon, or more than :data:`MAX_DESIGNS`, naming
    the config ``field``: the job would otherwise fail after every copy before it ran."""
    if designs and lexicon is None:
        raise InputError(
            f"config: {field}: {designs} generated designs need a lexicon: set "
            f"{lexicon_field} to a configured static model (its vocabulary's first "
            f"{LEXICON_WORDS:,} plain words), or {field} to 0"
        )
    if designs > MAX_DESIGNS:
        raise InputError(
            f"config: {field}: {designs} generated designs, but the lexicon's "
            f"{LEXICON_WORDS:,} words, none used twice, supply {MAX_DESIGNS:,} for sure: set "
            f"{field} to at most {MAX_DESIGNS:,}"
        )
