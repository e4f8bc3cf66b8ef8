"""The one score-row schema: every method, every stage writes rows with exactly these columns.

A row is one (method, model, source, test, descriptor, encoding, variant): the effect size
and p-value a method computed (:class:`Score`), the set sizes it used, the stimuli it had to
drop, the seed of its random stream, the settings it was computed with and a signature of its
inputs and those settings: two rows with one signature and seed were computed the same way.

``settings`` reads ``name:value|...|v:version`` (as sacrebleu's signatures): the settings the
row's method reads (``Method.reads``, short names in ``contract.SETTING_KEYS``) and those its
scoring layer reads (``drop``: max_drop_share; ``gap``: LPBS' max_gap; ``negative``: DivDist's
negative), then the biasbench version. A setting a method does not read is not in its rows, so
changing it leaves them, and their signature, as they were. Settings that pick the inputs (a
data set's limit, the census year) enter the signature of the inputs.

A score that cannot be computed (too few stimuli covered, too few contexts) is a row too:
its effect size is NaN and ``note`` says why, so a table shows the reason, not a blank.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from biasbench import __version__

if TYPE_CHECKING:  # imported where a frame is made: a job that writes none starts faster
    import pandas as pd

#: the roles whose set sizes and drops have their own columns
COUNTED_ROLES = ("X", "Y", "A", "B")

#: the identity of a row: what was measured, on which model and input, how
KEY_COLUMNS = ["method", "model", "source", "test", "descriptor", "encoding", "variant"]

COLUMNS = [
    "method",
    "paper",
    "family",
    "model",
    "source",
    "test",
    "descriptor",
    "encoding",
    "variant",
    "primary",  # the method's default encoding and variant (what the paper tables show)
    "unit",  # what a set item is: context, stimulus, sampled context, attribute
    "effect_size",
    "p_value",  # the paper's test
    "p_word",  # the same statistic's test with the stimulus word as the exchangeable unit
    "p_floor",  # the smallest p_value the test's design can give, whatever the model
    "p_word_floor",  # the smallest p_word its design can give
    # the word-level test with target words exchanged only within their word-piece count
    "p_word_strata",
    "p_word_strata_floor",  # the smallest p_word_strata its design can give
    "se",  # CEAT: the combined effect's; a data-set score: seeded bootstrap over its items
    "tau_squared",
    *(f"n_{r.lower()}" for r in COUNTED_ROLES),
    "n_partitions",  # permutations evaluated, or samples combined (CEAT)
    "exact",  # the permutation test enumerated every partition
    *(f"dropped_{r}" for r in COUNTED_ROLES),
    "dropped",  # the dropped stimuli, as role:word;role:word
    "seed",
    "signature",  # sha256 prefix of the inputs and the settings the row was computed from
    "settings",  # the settings it was computed with, name:value|...|v:version
    "note",  # why a score is missing, or what a caveat is
]


@dataclass(frozen=True)
class Design:
    """One of the tests a row carries, declared once: its p column and that p's floor (the
    smallest p its design can give), its name in a card, its legend and marker in the
    calibration figure, and its infix in the league's calibration columns (``league_column``)."""

    name: str
    p: str
    floor: str
    test: str  # a card's words for it
    label: str  # the calibration figure's legend
    infix: str  # significant_null<infix>, null<infix>_low, ...
    marker: str
    colour: str
    filled: bool = False

    def league_column(self, what: str) -> str:
        """The league's column for ``what`` of the calibration's row (``null``, ``null_low``,
        ``null_high``, ``clusters``, ``verdict``)."""
        if what == "null":
            return f"significant_null{self.infix}"
        if what == "verdict":
            return f"calibration_{self.name}"
        return f"null{self.infix}_{what.removeprefix('null_')}"


#: a row's test designs, each more conservative than the one before: the paper's test, the
#: same statistic with the stimulus word as the exchangeable unit, and that word-level test
#: exchanging target words only within their number of word pieces
TEST_DESIGNS = (
    Design(
        "paper",
        "p_value",
        "p_floor",
        "paper's test",
        "paper's test (p_value)",
        "",
        "o",
        "black",
        filled=True,
    ),
    Design(
        "word",
        "p_word",
        "p_word_floor",
        "word-level test",
        "word-level test (p_word)",
        "_word",
        "s",
        "tab:orange",
    ),
    Design(
        "strata",
        "p_word_strata",
        "p_word_strata_floor",
        "word test within word-piece counts",
        "word-level test within word-piece counts (p_word_strata)",
        "_strata",
        "^",
        "tab:blue",
    ),
)


@dataclass(frozen=True)
class Score:
    """What a method returns: an effect size and, where the method has a test, its p-value."""

    effect_size: float
    p_value: float = math.nan
    #: the word-level test (every context of a stimulus moves with it): NaN where the
    #: method has none; the paper's ``p_value`` where its items are already words
    p_word: float = math.nan
    #: the smallest p_value and p_word the tests' designs can give (NaN: no test): a floor
    #: above alpha and the test cannot reject at alpha, whatever the model
    p_floor: float = math.nan
    p_word_floor: float = math.nan
    #: the word-level test exchanging target words only within their number of word pieces
    #: (NaN: no tokenizer, or a method whose test exchanges attributes)
    p_word_strata: float = math.nan
    p_word_strata_floor: float = math.nan
    se: float = math.nan
    tau_squared: float = math.nan
    n_partitions: int = 0
    exact: bool = False
    sizes: Mapping[str, int] = field(default_factory=dict)  # set items per role
    samples: np.ndarray | None = None  # per-sample effect sizes (CEAT-style methods)
    dropped: Mapping[str, Sequence[str]] = field(default_factory=dict)  # items the method left out
    note: str = ""


@dataclass(frozen=True)
class RowKey:
    """Everything but the method that identifies a row."""

    model: str
    source: str
    test: str
    descriptor: str
    encoding: str
    variant: str = "full"


def dropped_text(dropped: Mapping[str, Sequence[str]]) -> str:
    return ";".join(f"{r}:{w}" for r in COUNTED_ROLES for w in dropped.get(r, ()))


def settings_text(settings: Mapping[str, object]) -> str:
    """``name:value|...`` sorted by name, then ``v:<biasbench version>``."""
    items = [*(f"{k}:{settings[k]}" for k in sorted(settings)), f"v:{__version__}"]
    return "|".join(items)


def parse_settings(text: str) -> dict[str, str]:
    """A ``settings`` column's value back as {name: value}."""
    return dict(item.split(":", 1) for item in text.split("|"))


def make_row(
    method: Any,
    key: RowKey,
    score: Score | None,
    *,
    primary: bool,
    unit: str,
    seed: int,
    signature: str,
    settings: Mapping[str, object],
    dropped: Mapping[str, Sequence[str]] | None = None,
    sizes: Mapping[str, int] | None = None,
    note: str = "",
) -> dict:
    """A row for ``method`` (anything with ``name``, ``paper`` and ``family``). With no
    ``score`` the row is "n/a" and ``note`` must say why. ``signature``: of the inputs; the
    row's signature also covers ``settings``, the settings the score was computed with."""
    if score is None and not note:
        raise ValueError(f"{method.name} {key}: a missing score needs a note saying why")
    dropped = {
        r: [*(dropped or {}).get(r, ()), *(score.dropped.get(r, ()) if score else ())]
        for r in COUNTED_ROLES
    }
    sizes = dict(sizes or (score.sizes if score else {}))
    text = settings_text(settings)
    return {
        "method": method.name,
        "paper": method.paper,
        "family": method.family,
        "model": key.model,
        "source": key.source,
        "test": key.test,
        "descriptor": key.descriptor,
        "encoding": key.encoding,
        "variant": key.variant,
        "primary": primary,
        "unit": unit,
        "effect_size": score.effect_size if score else math.nan,
        "p_value": score.p_value if score else math.nan,
        "p_word": score.p_word if score else math.nan,
        "p_floor": score.p_floor if score else math.nan,
        "p_word_floor": score.p_word_floor if score else math.nan,
        "p_word_strata": score.p_word_strata if score else math.nan,
        "p_word_strata_floor": score.p_word_strata_floor if score else math.nan,
        "se": score.se if score else math.nan,
        "tau_squared": score.tau_squared if score else math.nan,
        **{f"n_{r.lower()}": int(sizes.get(r, 0)) for r in COUNTED_ROLES},
        "n_partitions": score.n_partitions if score else 0,
        "exact": bool(score.exact) if score else False,
        **{f"dropped_{r}": len(dropped.get(r, ())) for r in COUNTED_ROLES},
        "dropped": dropped_text(dropped),
        "seed": int(seed),
        "signature": hashlib.sha256(f"{signature}|{text}".encode()).hexdigest()[:12],
        "settings": text,
        "note": "; ".join(n for n in (note, score.note if score else "") if n),
    }


def frame(rows: Iterable[dict]) -> pd.DataFrame:
    """Rows as a frame with exactly the schema's columns, in the schema's order."""
    rows = list(rows)
    for row in rows:
        if set(row) != set(COLUMNS):
            odd = sorted(set(row) ^ set(COLUMNS))
            raise ValueError(f"a score row's columns differ from the schema: {odd}")
    import pandas as pd

    return pd.DataFrame(rows, columns=COLUMNS)


def cannot_reject(p: pd.Series, floor: pd.Series, alpha: float) -> pd.Series:
    """Per row: the test has a p-value but its design's floor is at or above ``alpha``, so
    p < alpha is impossible whatever the model."""
    import pandas as pd

    floor = pd.to_numeric(floor, errors="coerce")
    return pd.to_numeric(p, errors="coerce").notna() & (floor >= alpha)


def p_floor_notes(scores: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """``scores`` with a note on each row whose paper test (``p_floor``) or word-level test
    (``p_word_floor``) cannot reach ``alpha``: that test cannot be significant whatever the
    model, which a bare p-value hides. ``alpha`` is the tables' setting, not a scoring one,
    so the notes are added where the rows are collected."""
    import pandas as pd

    tests = {"p_value": ("p_floor", "the test"), "p_word": ("p_word_floor", "the word-level test")}
    notes = pd.Series("", index=scores.index)
    for p, (floor, name) in tests.items():
        floored = cannot_reject(scores[p], scores[floor], alpha)
        if p == "p_word":  # the same test as the paper's: one note says it
            floored &= ~pd.to_numeric(scores["p_word"], errors="coerce").eq(
                pd.to_numeric(scores["p_value"], errors="coerce")
            )
        n = pd.to_numeric(scores.loc[floored, "n_partitions"], errors="coerce").fillna(0)
        exact = scores.loc[floored, "exact"].astype(str).eq("True") & (p == "p_value")
        text = [
            f"p-value floor: {name} cannot give p below {f:.3g}"
            + (f" (all {int(k)} partitions enumerated)" if e and k else "")
            + f", not below alpha {alpha:g}: it cannot be significant"
            for f, k, e in zip(pd.to_numeric(scores.loc[floored, floor]), n, exact, strict=True)
        ]
        notes[floored] = [
            f"{o}; {t}" if o else t for o, t in zip(notes[floored], text, strict=True)
        ]
    if not notes.str.len().any():
        return scores
    out = scores.copy()
    old = out["note"].fillna("").astype(str)
    out["note"] = [f"{o}; {n}" if o and n else o or n for o, n in zip(old, notes, strict=True)]
    return out


def is_primary(scores: pd.DataFrame) -> pd.Series:
    """The rows of each method's primary encoding and variant, the flag read as text or as
    bool (a table read back from TSV)."""
    return scores["primary"].astype(str).str.lower().isin(("true", "1", "1.0"))


def sort_rows(scores: pd.DataFrame) -> pd.DataFrame:
    """The canonical order of a score table (stable: equal keys keep their order)."""
    return scores.sort_values(KEY_COLUMNS, kind="stable").reset_index(drop=True)
