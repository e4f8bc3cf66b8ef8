"""Social groups and professions for DivDist (Bommasani & Liang, 2022): HELM's word lists
(gender words; surnames by race), the census shares per occupation of Garg et al. (2018), and
contexts of k sentences for the automated-text source of association."""

from __future__ import annotations

import ast
import csv
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from biasbench.data.sampling import sentence_spans
from biasbench.errors import InputError

WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
#: the group lists of each kind, in the order of the census columns we read
HELM_GROUPS = {
    "gender": {"female": "FEMALE_WORDS", "male": "MALE_WORDS"},
    "race": {"asian": "ASIAN_NAMES", "hispanic": "HISPANIC_NAMES", "white": "WHITE_NAMES"},
}


def read_python_lists(path: str | os.PathLike) -> dict[str, list[str]]:
    """Every top-level ``NAME = [...]`` (or annotated) list of strings of a Python file, read
    without running it."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), str(path))
    out = {}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and isinstance(node.value, ast.List):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if all(isinstance(v, str) for v in value):
                out[target.id] = value
    return out


def helm_groups(path: str | os.PathLike, kind: str) -> dict[str, list[str]]:
    """The group word lists of ``kind`` (gender or race), as HELM ships them (its "femen" typo
    for "females" included: it matches nothing and so changes no count)."""
    lists = read_python_lists(path)
    names = HELM_GROUPS[kind]
    missing = [v for v in names.values() if v not in lists]
    if missing:
        raise InputError(f"{path}: no word list {missing}")
    return {group: lists[var] for group, var in names.items()}


@dataclass(frozen=True)
class Census:
    """Per occupation, the share of each group among its workers in one census year."""

    year: int
    groups: tuple[str, ...]
    shares: dict[str, tuple[float, ...]]  # occupation -> shares over ``groups``, summing to 1


def read_census(path: str | os.PathLike, year: int, groups: Iterable[str]) -> Census:
    """Garg et al.'s occupation percentages: columns ``Census year``, ``Occupation`` and one
    per group; the chosen groups' shares renormalised to sum to 1 (race: white, hispanic and
    asian of the five columns, as Bommasani & Liang)."""
    groups = tuple(groups)
    shares = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh), 2):
            missing = [c for c in ("Census year", "Occupation", *groups) if c not in row]
            if missing:
                raise InputError(f"{path}: line {line}: no column {missing}")
            if int(row["Census year"]) != year:
                continue
            try:
                values = [float(row[g]) for g in groups]
            except ValueError as err:
                raise InputError(f"{path}: line {line}: {err}") from None
            total = sum(values)
            if total > 0:
                shares[row["Occupation"]] = tuple(v / total for v in values)
    if not shares:
        raise InputError(f"{path}: no occupation in census year {year}")
    return Census(year, groups, dict(sorted(shares.items())))


def words(text: str) -> list[str]:
    """Lower-cased word tokens (hyphens and apostrophes inside a word kept)."""
    return WORD.findall(text.lower())


def document_sentences(documents: Iterable[str]) -> list[list[list[str]]]:
    """Each document as its sentences' word tokens (read once, windowed for every k)."""
    return [[words(doc[a:b]) for a, b in sentence_spans(doc)] for doc in documents]


def sentence_windows(documents: Iterable[list[list[str]]], k: int) -> Iterator[list[str]]:
    """Documents (as sentences of words) cut into contexts of ``k`` consecutive sentences (the
    last may be shorter): every sentence is in one context, so no mention counts twice."""
    for sentences in documents:
        for start in range(0, len(sentences), k):
            yield [w for s in sentences[start : start + k] for w in s]
