"""Generated null designs, built like real tests: on random weights no weight has learned
anything, so any two categories of words form a null design, yet their words still differ
the way the papers' X and Y do (spelling, length, frequency, word pieces).

A verdict on a test's calibration needs many independent designs
(``calibration.min_clusters``: 67 at 0.05; 231 for an exactly calibrated test to be called so
with 80% probability); the papers' tests give a few dozen. A design drawn as a random split of
one pool would be exact by construction for every test that re-splits its words, whatever the
network, so its share could not fail. Here X and Y are instead two classes of one property of
a lexicon's words (:data:`PROPERTIES`: the initial letter, the last two letters, the length,
the frequency band, the word-piece count under the base's tokenizer), and A and B two classes
of another property: membership goes with what a network without knowledge can still pick
up, as it does in the papers' tests, and a test that is not robust to it rejects.

The lexicon is a static model's vocabulary (``null_calibration.lexicon``; its file order is
its frequency order): its first :data:`LEXICON_WORDS` plain words (:func:`lexicon`). No word
is used by two designs of one base, so the designs share nothing and each is a cluster of its
own (``calibration.null_clusters``), independent as the verdict's exact interval assumes.
Each design is scored on its words alone on a random copy of its own
(``<base>-null-g<i>``); its test is ``gen<i>`` and its descriptor the property that splits X
from Y. Designs are drawn in order, each from its own seeded stream, so adding designs leaves
the earlier ones as they were.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from biasbench.data.designs import LEXICON_WORDS, SIZES, design_rng

#: a plain word: lower-case ASCII letters, 3 to 14 of them
PLAIN = re.compile(r"[a-z]{3,14}")
#: words per frequency band (the lexicon's rank // this)
BAND = 10_000


def lexicon(vocabulary: Iterable[str], size: int = LEXICON_WORDS) -> list[str]:
    """The first ``size`` plain words of a vocabulary in its own (frequency) order."""
    out = []
    for word in vocabulary:
        if PLAIN.fullmatch(word):
            out.append(word)
            if len(out) == size:
                break
    return out


#: each property's class of a word, from the word, its rank and its word pieces
PROPERTIES: dict[str, Callable[[str, int, int | None], str]] = {
    "initial": lambda w, _rank, _pieces: w[0],
    "ending": lambda w, _rank, _pieces: w[-2:],
    "length": lambda w, _rank, _pieces: str(min(len(w), 11)),
    "frequency": lambda w, rank, _pieces: str(rank // BAND),
    "pieces": lambda _w, _rank, pieces: str(min(pieces, 4)),
}


@dataclass(frozen=True)
class GeneratedDesign:
    """One generated null design: its index, the property whose classes X and Y are
    (``kind``), the property of A and B (``attributes``) and its four sets."""

    index: int
    kind: str
    sets: Mapping[str, tuple[str, ...]]
    attributes: str = ""

    @property
    def test(self) -> str:
        return f"gen{self.index:03d}"


class Lexicon:
    """A lexicon's words with each property's classes, and which words designs have used
    (a running count of unused words per class: a design costs its classes, not the
    lexicon)."""

    def __init__(self, words: Sequence[str], pieces: Mapping[str, int] | None = None):
        self.words = list(words)
        names = [p for p in PROPERTIES if p != "pieces" or pieces is not None]
        self.class_of: dict[str, list[str]] = {}
        self.members: dict[str, dict[str, np.ndarray]] = {}
        self.unused: dict[str, dict[str, int]] = {}
        for p in names:
            values = [
                PROPERTIES[p](w, rank, None if pieces is None else pieces[w])
                for rank, w in enumerate(self.words)
            ]
            groups: dict[str, list[int]] = {}
            for i, value in enumerate(values):
                groups.setdefault(value, []).append(i)
            self.class_of[p] = values
            self.members[p] = {v: np.array(ix) for v, ix in sorted(groups.items())}
            self.unused[p] = {v: len(ix) for v, ix in self.members[p].items()}
        self.used = np.zeros(len(self.words), bool)

    @property
    def properties(self) -> list[str]:
        return list(self.members)

    def take(self, rng: np.random.Generator, prop: str, size: int) -> tuple | None:
        """Two classes of ``prop`` with ``size`` unused words each, ``size`` drawn from
        each and marked used; None where fewer than two classes have that many."""
        free = [v for v, n in self.unused[prop].items() if n >= size]
        if len(free) < 2:
            return None
        drawn = []
        for value in rng.choice(free, 2, replace=False):
            members = self.members[prop][value]
            chosen = rng.choice(members[~self.used[members]], size, replace=False)
            self.used[chosen] = True
            for i in chosen:
                for p, values in self.class_of.items():
                    self.unused[p][values[i]] -= 1
            drawn.append(tuple(self.words[i] for i in chosen))
        return tuple(drawn)


def draw_designs(
    words: Sequence[str], count: int, seed: int, pieces: Mapping[str, int] | None = None
) -> list[GeneratedDesign]:
    """``count`` designs from a lexicon's ``words`` (``pieces``: each word's word-piece count
    under the base's tokenizer; None for static vectors, without the ``pieces`` property).
    Design i takes its targets' property in turn (i modulo the properties), its size
    (:data:`SIZES`) and the attributes' property from its own stream; X and Y are two classes
    of the first, A and B two of the second, no word used twice. A lexicon that cannot
    supply a design is an error naming how many it supplied."""
    pool = Lexicon(words, pieces)
    props = pool.properties
    out = []
    for index in range(count):
        rng = design_rng(index, seed)
        size = int(rng.choice(SIZES))
        first = props[index % len(props)]
        others = [p for p in props if p != first]
        second = others[int(rng.integers(len(others)))]
        targets = pool.take(rng, first, size)
        attributes = pool.take(rng, second, size) if targets else None
        if targets is None or attributes is None:
            raise ValueError(
                f"a lexicon of {len(words)} words supplies {index} generated designs: design "
                f"{index} finds no two classes of {first!r} and {second!r} with {size} unused "
                "words each"
            )
        sets = {"X": targets[0], "Y": targets[1], "A": attributes[0], "B": attributes[1]}
        out.append(GeneratedDesign(index, first, sets, second))
    return out
