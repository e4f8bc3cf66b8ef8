"""The kinds of trained-weight null, one record each: a trained model's own vectors scored
again on draws that cut the link between its words and their sets, while the vectors keep all
a trained model has (frequency, anisotropy, word pieces), the geometry real results come from.

A kind declares where it is configured and written, how its draws are named and seeded, what
a draw randomizes (a test that exchanges that unit is exact under it by construction:
:func:`biasbench.studies.calibration.exact_by_construction`), the draw itself, and its
calibration table. Rule ``null_trained`` scores every configured kind
(:func:`biasbench.studies.null_calibration.trained_null_rows`), the plan lists its files and
draws, and ``biasbench.reports.calibration`` gives each kind its table.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biasbench.paths import TRAINED_NULL_SCORES

if TYPE_CHECKING:  # every layer reads the kinds (the plan while the DAG is planned): light
    import numpy as np
    import pandas as pd


#: the sets a reassignment shuffles together: the targets, the attributes
POOLS = (("X", "Y"), ("A", "B"))


def reassign(contexts: pd.DataFrame, words, rng: np.random.Generator) -> tuple[pd.DataFrame, Any]:
    """One draw of the reassigned null: the target words (X and Y) shuffled into two sets
    of their sizes, the attribute words (A and B) likewise (definitional pairs: each pair's
    order flipped by a fair coin, so the pairs stay pairs); every context keeps its vector and
    takes its stimulus' new set. Other roles are kept. The groups then carry no association
    but what the model's geometry gives any random split of these words, which is the null
    hypothesis every test of the family states."""
    sets = dict(words.sets)
    new_role: dict[tuple[str, str], str] = {}  # (role, stimulus) -> its role in this draw
    for first, second in POOLS:
        if first not in sets or second not in sets:
            continue
        a, b = list(sets[first]), list(sets[second])
        if len(set(a + b)) < len(a) + len(b):
            raise ValueError(f"{words.test}/{words.descriptor}: {first} and {second} share a word")
        if words.paired and first == "A":
            flip = rng.random(len(a)) < 0.5
            new_a = [y if f else x for x, y, f in zip(a, b, flip, strict=True)]
            new_b = [x if f else y for x, y, f in zip(a, b, flip, strict=True)]
        else:
            pool = a + b
            shuffled = [pool[i] for i in rng.permutation(len(pool))]
            new_a, new_b = shuffled[: len(a)], shuffled[len(a) :]
        was = dict.fromkeys(a, first) | dict.fromkeys(b, second)
        for role, members in ((first, new_a), (second, new_b)):
            new_role |= {(was[s], s): role for s in members}
        sets[first], sets[second] = tuple(new_a), tuple(new_b)
    keys = zip(contexts["role"].astype(str), contexts["stimulus"].astype(str), strict=True)
    roles = [new_role.get(key, key[0]) for key in keys]
    return contexts.assign(role=roles), dataclasses.replace(words, sets=sets)


@dataclass(frozen=True)
class TrainedNull:
    """A kind of trained-weight null. ``key``: its section ``null_calibration.<key>`` and its
    files ``results/scores/null/<key>/<model>.tsv``; draw i of a model is the model
    ``<model>-<infix>-r<i>``, seeded by the infix and that name; ``label``: the null in the
    tables; ``randomizes``: the unit a draw randomizes (None: none a test exchanges);
    ``draw``: (contexts, word set, generator) -> one draw's contexts and word set; ``table``,
    ``title``, ``heading`` and ``summary``: its calibration table; ``describes``: the note's
    account of a draw and of what is exact under it (``{models}``, ``{by_construction}``
    filled in)."""

    key: str
    infix: str
    label: str
    randomizes: str | None
    #: (contexts, word set, generator) -> one draw's contexts and word set
    draw: Callable[[pd.DataFrame, Any, np.random.Generator], tuple[pd.DataFrame, Any]]
    table: str
    title: str
    heading: str
    summary: str
    describes: str

    def draw_names(self, model: str, draws: int) -> list[str]:
        """The model names of a trained model's draws, in order."""
        return [f"{model}-{self.infix}-r{i}" for i in range(draws)]

    @property
    def draw_pattern(self) -> re.Pattern:
        """A draw's model name, its model the first group: what :meth:`draw_names` gives."""
        return re.compile(rf"(.+)-{re.escape(self.infix)}-r\d+")

    def scores_file(self, model: str) -> str:
        """The score rows of a trained model's draws."""
        return TRAINED_NULL_SCORES.format(kind=self.key, model=model)


REASSIGNED = TrainedNull(
    key="trained",
    infix="reassigned",
    label="trained weights",
    randomizes="words",
    draw=reassign,
    table="synthesis_null_trained",
    title="Trained-weight null",
    heading="false-positive shares on real vectors, words reassigned",
    summary="Significant results on real vectors with each test's words reassigned at random.",
    describes=(
        "The trained models {models} scored again on their own vectors with each test's words "
        "reassigned to its sets at random: the targets shuffled between X and Y, the "
        "attributes between A and B (definitional pairs flipped by a coin), sizes kept; each "
        "draw a model <model>-reassigned-r<i>. No word's set then has anything to do with its "
        "vector, while the vectors keep all a trained model has (frequency, anisotropy, word "
        "pieces): the null every test of the family states, on the geometry real results "
        "come from. A test that exchanges the words this null shuffles freely (the targets' "
        "word-level tests, and the paper's test where every item is a word, as on static "
        "vectors; the attributes' only where they are no definitional pairs, which a coin "
        "flips instead) has a "
        "p uniform under it whatever the method: its cells (by_construction) are left out of "
        "the shares, and where no other cell is left its verdict is '{by_construction}' (a "
        "check of the machinery, which cannot fail as a test), never 'calibrated'; the paper "
        "tests over contexts or sampled contexts measure what their units add, and can fail."
    ),
)

#: every kind of trained-weight null, in the order of their tables
TRAINED_NULLS = (REASSIGNED,)


def trained_null_kind(key: str) -> TrainedNull:
    """The kind whose section and files are named ``key``."""
    for kind in TRAINED_NULLS:
        if kind.key == key:
            return kind
    raise KeyError(f"no trained-weight null kind {key!r}: {[k.key for k in TRAINED_NULLS]}")


def config_sections() -> dict[str, dict]:
    """Each kind's section of the config schema, ``null_calibration.<key>`` (a
    ``$defs/trained_null``, null by default: not run), with what its draws are: the config
    schema takes them from here when it is read (``config/schema.yaml``, ``x-properties``),
    so a kind is declared here alone."""
    return {
        kind.key: {
            "description": (
                f"The {kind.title[0].lower()}{kind.title[1:]} ({kind.label}): each draw a model "
                f"<model>-{kind.infix}-r<i> in {kind.scores_file('<model>')}, its table "
                f"{kind.table} ({kind.heading})."
            ),
            "$ref": "#/$defs/trained_null",
            "default": None,
        }
        for kind in TRAINED_NULLS
    }
