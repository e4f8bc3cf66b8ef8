"""Sentence-pair and sentence-set data sets: CrowS-Pairs, StereoSet, BEC-Pro and WinoBias, each
read into one small record type, with the file and line named when a row is unusable."""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from biasbench.errors import InputError


@dataclass(frozen=True)
class SentencePair:
    """A minimal pair: ``more`` and ``less`` differ in the group mentioned; ``more`` is the
    more stereotyping sentence on every pair. ``stereo`` is CrowS-Pairs' direction: "stereo"
    (``more`` states a stereotype of a disadvantaged group) or "antistereo" (``less`` violates
    one); the score does not read it."""

    more: str
    less: str
    stereo: bool
    category: str


def read_crows_pairs(path: str | os.PathLike) -> list[SentencePair]:
    """CrowS-Pairs (Nangia et al., 2020): ``sent_more``, ``sent_less``, ``stereo_antistereo``,
    ``bias_type`` columns."""
    out = []
    with open(path, encoding="utf-8", newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh), 2):
            direction = row.get("stereo_antistereo")
            if (
                direction not in ("stereo", "antistereo")
                or not row.get("sent_more")
                or not row.get("sent_less")
            ):
                raise InputError(f"{path}: line {line}: not a CrowS-Pairs row ({direction!r})")
            out.append(
                SentencePair(
                    row["sent_more"], row["sent_less"], direction == "stereo", row["bias_type"]
                )
            )
    if not out:
        raise InputError(f"{path}: no CrowS-Pairs rows")
    return out


#: a word of a sentence, compared without case or surrounding punctuation
_WORD = re.compile(r"[\w'-]+")


def swapped_terms(more: str, less: str) -> str:
    """The words a minimal pair swaps, ``"<words of more> | <words of less>"`` in lower case
    (CrowS-Pairs: ``"women | men"``): the unit its pairs share. Pairs that swap the same
    group words are not independent under a model that reads the words alone, so a paired
    comparison resamples and exchanges them together. The words before the first and after
    the last difference are dropped; a pair that differs nowhere gives ``" | "``."""
    a = [w.lower() for w in _WORD.findall(more)]
    b = [w.lower() for w in _WORD.findall(less)]
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return f"{' '.join(a[start : len(a) - end])} | {' '.join(b[start : len(b) - end])}"


@dataclass(frozen=True)
class StereoSetItem:
    """One StereoSet item: a context and its three candidates (sentences, or for the
    intrasentence task the filled-in context), by gold label."""

    id: str
    task: str  # intrasentence | intersentence
    domain: str  # bias_type: gender, profession, race, religion
    context: str
    candidates: dict[str, str]  # stereotype / anti-stereotype / unrelated -> sentence
    target: str = ""  # the target term (the official scores average over these first)


LABELS = ("stereotype", "anti-stereotype", "unrelated")


def read_stereoset(path: str | os.PathLike) -> list[StereoSetItem]:
    """StereoSet (Nadeem et al., 2021) JSON: ``data.intrasentence`` and ``data.intersentence``."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        data = doc["data"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a StereoSet file ({exc})") from exc
    out = []
    for task in ("intrasentence", "intersentence"):
        for n, item in enumerate(data.get(task, [])):
            name = item.get("id", "no id") if isinstance(item, dict) else repr(item)
            where = f"{path}: {task} item {n} ({name})"
            try:
                candidates = {s["gold_label"]: s["sentence"] for s in item["sentences"]}
                fields = item["id"], item["bias_type"], item["context"], item["target"]
            except (KeyError, TypeError) as exc:
                raise InputError(f"{where}: not a StereoSet item, it lacks {exc}") from exc
            if set(candidates) != set(LABELS):
                raise InputError(f"{where}: labels {sorted(candidates)}, expected {LABELS}")
            item_id, domain, context, target = fields
            out.append(StereoSetItem(item_id, task, domain, context, candidates, target))
    return out


@dataclass(frozen=True)
class BecProRow:
    """A BEC-Pro sentence (Bartl et al., 2020) with its masked variants: the person masked
    (``target_masked``), the person and the profession masked (``both_masked``)."""

    sentence: str
    target_masked: str
    both_masked: str
    person: str
    gender: str  # of the person word: male | female
    profession: str
    profession_group: str  # male | female | balanced (by the share of women)


def read_becpro(path: str | os.PathLike) -> list[BecProRow]:
    out = []
    with open(path, encoding="utf-8", newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh, delimiter="\t"), 2):
            try:
                out.append(
                    BecProRow(
                        row["Sentence"],
                        row["Sent_TM"],
                        row["Sent_TAM"],
                        row["Person"],
                        row["Gender"],
                        row["Profession"],
                        row["Prof_Gender"],
                    )
                )
            except KeyError as exc:
                raise InputError(f"{path}: line {line}: no column {exc}") from exc
    if not out:
        raise InputError(f"{path}: no BEC-Pro rows")
    return out


@dataclass(frozen=True)
class WinoBiasItem:
    """A WinoBias sentence: the two occupations, which of them the pronoun refers to (in
    brackets in the file), and the pronoun with its span."""

    sentence: str
    referent: str  # the bracketed noun phrase the pronoun refers to
    other: str  # the other occupation's noun phrase
    pronoun: str
    pronoun_span: tuple[int, int]


_BRACKETS = re.compile(r"\[([^\]]+)\]")


def read_winobias(path: str | os.PathLike, occupations: list[str]) -> list[WinoBiasItem]:
    """WinoBias (Zhao et al., 2018) lines: ``N [The developer] argued ... because [he] ...``;
    ``occupations`` (the file's two lists) find the other occupation's noun phrase."""
    out = []
    for line, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        text = re.sub(r"^\d+\s+", "", text.strip())
        if not text:
            continue
        marked = _BRACKETS.findall(text)
        if len(marked) < 2:  # the referent, then its pronoun (a second pronoun may follow)
            raise InputError(f"{path}: line {line}: expected [bracketed] referent and pronoun")
        plain = _BRACKETS.sub(r"\1", text)
        referent, pronoun = marked[:2]
        start = _find_bracket(text, 1)
        other = _other_occupation(plain, referent, occupations)
        if other is None:
            raise InputError(f"{path}: line {line}: no second occupation in {plain!r}")
        out.append(WinoBiasItem(plain, referent, other, pronoun, (start, start + len(pronoun))))
    return out


def _find_bracket(text: str, k: int) -> int:
    """Character offset of the k-th bracketed phrase in the text with the brackets removed."""
    removed = 0
    for i, m in enumerate(_BRACKETS.finditer(text)):
        if i == k:
            return m.start() - removed
        removed += 2
    raise ValueError(k)


def occupation_of(phrase: str) -> str:
    """The occupation of a noun phrase: its article dropped ("The developer" -> "developer")."""
    words = phrase.split()
    return " ".join(words[1:] if words and words[0].lower() in ("the", "a", "an") else words)


def _other_occupation(sentence: str, referent: str, occupations: list[str]) -> str | None:
    lowered, own = sentence.lower(), occupation_of(referent).lower()
    for occupation in sorted(occupations, key=len, reverse=True):
        if occupation.lower() == own:
            continue
        for article in ("the ", "a ", "an "):
            phrase = article + occupation.lower()
            at = lowered.find(phrase)
            if at >= 0:
                return sentence[at : at + len(phrase)]
    return None


def iter_lines(path: str | os.PathLike) -> Iterator[str]:
    for text in Path(path).read_text(encoding="utf-8").splitlines():
        if text.strip():
            yield text.strip()


def read_word_pairs(path: str | os.PathLike) -> list[tuple[str, str]]:
    """Tab-separated word pairs, one per line (DisCo's name pairs: male, then female)."""
    out = []
    for line, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        pair = [w.strip() for w in text.split("\t")]
        if len(pair) != 2 or not all(pair):
            raise InputError(f"{path}: line {line}: expected two tab-separated words")
        out.append((pair[0], pair[1]))
    if not out:
        raise InputError(f"{path}: no word pairs")
    return out


def read_salary_titles(path: str | os.PathLike, top: int = 1000) -> list[str]:
    """The distinct job titles of the ``top`` best-paid rows of a salary file (column
    ``Job Title``, ranked by ``2017 Annual Salary``), lowercased with digits removed: the
    professions of Delobelle et al.'s LPBS. Ties in salary keep the file's order."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = []
        for line, row in enumerate(reader, 2):
            try:
                rows.append((float(row["2017 Annual Salary"]), line, row["Job Title"]))
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"{path}: line {line}: no usable salary or title ({exc})") from exc
    best = sorted(rows, key=lambda r: (-r[0], r[1]))[:top]
    titles = (re.sub(r"\d", "", title.lower()).strip() for _salary, _line, title in best)
    return list(dict.fromkeys(t for t in titles if t))
