"""Word sets (bias tests): two target sets X/Y per descriptor and two attribute sets A/B, and
any further roles a method needs, under ``roles:``: word lists (e.g. ``N``, neutral words such as
professions, or one list per group) and lists of pairs (e.g. ``D``, the definitional pairs of
Direct Bias and RIPA). A pair role ``D`` becomes two aligned word roles ``D.1`` and ``D.2``.

A word list in a resource file is either written out or points into a pinned external file:
``{external: <manifest id>, key: dotted.path.into.the.json}``. Loading resolves those
pointers and validates the result, naming the file and field of every problem.
"""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biasbench.config import read_yaml
from biasbench.errors import InputError
from biasbench.io import read_sealed

ROLES = ("X", "Y", "A", "B")  # the roles of a WEAT-style test, which every word set has
TARGET_KINDS = ("thing", "person")
ATTRIBUTE_KINDS = ("basic", "time")

#: maps a manifest id to the local path of the fetched file
Resolver = Callable[[str], Path]


def _walk_specs(node: Any):
    """Yield every ``{external: ...}`` pointer inside a resource document."""
    if isinstance(node, dict):
        if "external" in node:
            yield node
        for value in node.values():
            yield from _walk_specs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk_specs(value)


def external_ids(path: str | os.PathLike) -> list[str]:
    """Manifest ids a resource file draws on (so the workflow can fetch them first)."""
    return sorted({spec["external"] for spec in _walk_specs(read_yaml(path))})


def _walk(node: Any, parts: list[str]) -> Any:
    """Follow a dotted key path: a mapping key, a list index, or ``*`` for every element of a
    list (``*.1`` on a list of pairs: each pair's second word)."""
    if not parts:
        return node
    head, rest = parts[0], parts[1:]
    if head == "*" and isinstance(node, list):
        return [_walk(item, rest) for item in node]
    if isinstance(node, list):
        return _walk(node[int(head)], rest)
    if isinstance(node, dict):
        return _walk(node[head], rest)
    raise TypeError(f"cannot descend into {type(node).__name__} with {head!r}")


def resolve_list(
    spec: Any, where: str, resolve: Resolver, notes: dict[str, str] | None = None
) -> list[str]:
    """A written-out list of strings, or the list an external pointer designates, each entry
    in Unicode's composed form (NFC; see :func:`composed`), a note in ``notes`` for each entry
    written otherwise."""
    if isinstance(spec, dict) and "external" in spec:
        source = resolve(spec["external"])
        try:
            node: Any = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"{where}: cannot read external file {source}: {exc}") from exc
        key = str(spec.get("key", ""))
        try:
            spec = _walk(node, key.split(".") if key else [])
        except (KeyError, IndexError, TypeError) as exc:
            raise InputError(f"{where}: key {key!r} not found in {source}") from exc
    if not isinstance(spec, list):
        raise InputError(f"{where}: expected a list of strings")
    for i, w in enumerate(spec):
        if not isinstance(w, str):
            raise InputError(f"{where}: entry {i + 1} {_not_a_string(w)}")
    forms: dict[str, str] = {}
    words = [composed(w.strip(), where, forms) for w in spec]
    if not words:
        raise InputError(f"{where}: the list is empty")
    if any(not w for w in words):
        raise InputError(f"{where}: contains an empty string")
    dupes = sorted({w for w in words if words.count(w) > 1})
    if dupes:
        changed = [forms[w] for w in dupes if w in forms]
        raise InputError(
            f"{where}: duplicate entries {dupes}"
            + (f" (once Unicode forms are one: {'; '.join(changed)})" if changed else "")
        )
    _check_spacing(words, where)
    if notes is not None:
        notes.update(forms)
    return words


def composed(text: str, where: str, notes: dict[str, str] | None = None) -> str:
    """``text`` in Unicode's composed form (NFC). ``café`` typed with a combining accent
    (NFD) and with the precomposed letter are one word to a reader but two strings to Python,
    a vocabulary and a corpus match: one form is looked up, the other reads as missing, and
    the two could stand in X and Y as different words. Every text a test is built from is
    read in one form, and ``notes`` (stimulus -> note) records where the file wrote another."""
    if unicodedata.is_normalized("NFC", text):
        return text
    form = "NFD" if unicodedata.is_normalized("NFD", text) else "a mixed form"
    fixed = unicodedata.normalize("NFC", text)
    if notes is not None:
        notes[fixed] = (
            f"{fixed!r}: {where} writes it in Unicode {form} ({len(text)} code points); read "
            f"as NFC ({len(fixed)})"
        )
    return fixed


def merged_notes(*notes: Mapping[str, str]) -> dict[str, str]:
    """Stimulus -> note from several sources, a stimulus's notes joined in order."""
    out: dict[str, str] = {}
    for mapping in notes:
        for stimulus, note in mapping.items():
            out[stimulus] = f"{out[stimulus]}; {note}" if stimulus in out else note
    return out


def _not_a_string(value: Any) -> str:
    """Why a list entry is not a stimulus: YAML reads unquoted ``yes``, ``no``, ``on``,
    ``off``, ``true``, ``false`` as booleans, ``null`` and ``~`` as null, ``1`` as a number."""
    if isinstance(value, bool):
        return (
            f"is the YAML boolean {str(value).lower()} (yes, no, on, off, true and false "
            "unquoted are booleans, not words): quote it, e.g. 'yes'"
        )
    if value is None:
        return "is YAML's null (null, ~ or nothing, unquoted): quote it, e.g. 'null'"
    if isinstance(value, int | float):
        return f"is the number {value!r}: quote it, e.g. '{value}'"
    return f"is a {type(value).__name__}, not a word ({value!r}): write a string"


def _check_spacing(words: Sequence[str], where: str) -> None:
    """Two entries that differ only in the spaces inside them (``old  man`` and ``old man``)
    are one stimulus to every model (a tokenizer splits on whitespace, static vectors look up
    the words of a phrase): an error, as an exact duplicate is, not a silent de-duplication,
    because a set's size and order are part of its design (equal target sets, definitional
    pairs A[i] with B[i], a paper's published lists); the file's author chooses which to keep."""
    seen: dict[str, str] = {}
    for word in words:
        key = " ".join(word.split())
        if key in seen:
            raise InputError(
                f"{where}: {seen[key]!r} and {word!r} are the same stimulus (they differ only "
                f"in their spaces): remove one"
            )
        seen[key] = word


@dataclass(frozen=True)
class WordSet:
    """One bias test under one target descriptor (names or terms), fully resolved."""

    test: str
    descriptor: str
    source: str
    target_kind: str
    attribute_kind: str
    sets: Mapping[str, tuple[str, ...]]  # role -> stimuli (X, Y, A, B and any other roles)
    labels: Mapping[str, str]
    #: role -> template group of its contexts (``targets`` or ``attributes``); X/Y/A/B implied
    template_groups: Mapping[str, str] = field(default_factory=dict)
    #: A[i] and B[i] are definitional pairs (``definitional_pairs: true``): Direct Bias and RIPA
    paired: bool = False
    #: stimulus -> note, where the file wrote a stimulus in another Unicode form than NFC
    notes: Mapping[str, str] = field(default_factory=dict)

    @property
    def roles(self) -> tuple[str, ...]:
        return tuple(self.sets)

    def pairs(self, role: str) -> list[tuple[str, str]]:
        """The pairs of a pair role (``D`` -> zip of ``D.1`` and ``D.2``)."""
        return list(zip(self.sets[f"{role}.1"], self.sets[f"{role}.2"], strict=True))

    def template_group(self, role: str) -> str:
        return {"X": "targets", "Y": "targets", "A": "attributes", "B": "attributes"}.get(
            role, self.template_groups.get(role, "targets")
        )

    def to_json(self) -> str:
        fields = {
            "test": self.test,
            "descriptor": self.descriptor,
            "source": self.source,
            "target_kind": self.target_kind,
            "attribute_kind": self.attribute_kind,
            "sets": {r: list(w) for r, w in self.sets.items()},
            "labels": dict(self.labels),
            "template_groups": dict(self.template_groups),
            "paired": self.paired,
        }
        if self.notes:  # only where a form changed: a word set written in NFC reads as before
            fields["notes"] = dict(self.notes)
        return json.dumps(fields, indent=1, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> WordSet:
        d = json.loads(text)
        d["sets"] = {r: tuple(w) for r, w in d["sets"].items()}
        return cls(**d)


def read_wordset_files(paths: list[str]) -> list[WordSet]:
    """Resolved word sets: the JSON files the ``wordset`` rule writes."""
    return [WordSet.from_json(read_sealed(p)) for p in paths]


def descriptors(path: str | os.PathLike) -> list[str]:
    """Target descriptors (e.g. names, terms) a word-set file defines."""
    targets = read_yaml(path).get("targets")
    if not isinstance(targets, dict) or not targets:
        raise InputError(f"{path}: field 'targets' must map descriptors to X/Y sets")
    return list(targets)


def has_pairs(path: str | os.PathLike) -> bool:
    """Whether a word-set file declares its attributes definitional pairs (A[i] ~ B[i])."""
    return read_yaml(path).get("definitional_pairs", False) is True


def load_wordset(path: str | os.PathLike, descriptor: str, resolve: Resolver) -> WordSet:
    """Resolve and validate one descriptor of a word-set file."""
    doc = read_yaml(path)
    stem = Path(path).stem
    if doc.get("id") != stem:
        raise InputError(f"{path}: field 'id' is {doc.get('id')!r}, expected {stem!r}")
    for key in ("source", "targets", "attributes", "templates"):
        if key not in doc:
            raise InputError(f"{path}: missing field {key!r}")
    kinds = doc["templates"]
    if not isinstance(kinds, dict) or kinds.get("targets") not in TARGET_KINDS:
        raise InputError(f"{path}: templates.targets must be one of {TARGET_KINDS}")
    if kinds.get("attributes") not in ATTRIBUTE_KINDS:
        raise InputError(f"{path}: templates.attributes must be one of {ATTRIBUTE_KINDS}")
    targets = doc["targets"]
    if not isinstance(targets, dict) or descriptor not in targets:
        raise InputError(f"{path}: no target descriptor {descriptor!r} under 'targets'")
    groups = {**(targets[descriptor] or {}), **(doc["attributes"] or {})}
    sets: dict[str, tuple[str, ...]] = {}
    labels: dict[str, str] = {}
    notes: dict[str, str] = {}
    for role in ROLES:
        where = f"targets.{descriptor}.{role}" if role in "XY" else f"attributes.{role}"
        entry = groups.get(role)
        if not isinstance(entry, dict) or "words" not in entry:
            raise InputError(f"{path}: {where} must be a mapping with 'words'")
        sets[role] = tuple(resolve_list(entry["words"], f"{path}: {where}.words", resolve, notes))
        labels[role] = str(entry.get("label", role))
    template_groups = _extra_roles(doc.get("roles") or {}, path, resolve, sets, labels, notes)
    for first, second in (("X", "Y"), ("A", "B")):
        shared = sorted(set(sets[first]) & set(sets[second]))
        if shared:
            forms = [notes[w] for w in shared if w in notes]
            raise InputError(
                f"{path}: {shared} appear in both {first} and {second}"
                + (f" (once Unicode forms are one: {'; '.join(forms)})" if forms else "")
            )
    paired = doc.get("definitional_pairs", False)
    if paired not in (True, False) or (paired and len(sets["A"]) != len(sets["B"])):
        raise InputError(
            f"{path}: definitional_pairs: true pairs A[i] with B[i] and needs equal lists "
            f"(|A|={len(sets['A'])}, |B|={len(sets['B'])}); got {paired!r}"
        )
    if len(sets["X"]) != len(sets["Y"]) and not doc.get("allow_unequal", False):
        raise InputError(
            f"{path}: targets.{descriptor} has |X|={len(sets['X'])} but |Y|={len(sets['Y'])}; "
            "WEAT-style tests need equal target sets (set allow_unequal: true to override)"
        )
    return WordSet(
        test=stem,
        descriptor=descriptor,
        source=str(doc["source"]).strip(),
        target_kind=kinds["targets"],
        attribute_kind=kinds["attributes"],
        sets=sets,
        labels=labels,
        template_groups=template_groups,
        paired=paired,
        notes=notes,
    )


def _extra_roles(
    roles: dict,
    path: str | os.PathLike,
    resolve: Resolver,
    sets: dict[str, tuple[str, ...]],
    labels: dict[str, str],
    notes: dict[str, str],
) -> dict[str, str]:
    """Add the ``roles:`` section's word and pair roles to ``sets``/``labels``; returns each
    new role's template group."""
    groups = {}
    if not isinstance(roles, dict):
        raise InputError(f"{path}: 'roles' must map role names to word or pair lists")
    for role, entry in roles.items():
        where = f"{path}: roles.{role}"
        if role in ROLES or not str(role).isidentifier():
            raise InputError(f"{where}: a role name is an identifier other than {ROLES}")
        if not isinstance(entry, dict) or ("words" in entry) == ("pairs" in entry):
            raise InputError(f"{where} must be a mapping with 'words' or 'pairs'")
        group = entry.get("template", "targets")
        if group not in ("targets", "attributes"):
            raise InputError(f"{where}.template must be 'targets' or 'attributes'")
        label = str(entry.get("label", role))
        if "words" in entry:
            sets[role] = tuple(resolve_list(entry["words"], f"{where}.words", resolve, notes))
            labels[role], groups[role] = label, group
            continue
        pairs = entry["pairs"]
        for i, pair in enumerate(pairs if isinstance(pairs, list) else []):
            for k, w in enumerate(pair if isinstance(pair, list) else []):
                if not isinstance(w, str):
                    raise InputError(
                        f"{where}.pairs: pair {i + 1}, word {k + 1} {_not_a_string(w)}"
                    )
        if (
            not isinstance(pairs, list)
            or not pairs
            or any(
                not isinstance(p, list) or len(p) != 2 or not all(isinstance(w, str) for w in p)
                for p in pairs
            )
        ):
            raise InputError(f"{where}.pairs must be a non-empty list of [word, word] pairs")
        for k in (1, 2):
            name = f"{role}.{k}"
            sets[name] = tuple(
                resolve_list([p[k - 1] for p in pairs], f"{where}.pairs", resolve, notes)
            )
            labels[name], groups[name] = f"{label} ({k})", group
    return groups


@dataclass(frozen=True)
class LpbsSpec:
    """A test's LPBS settings: double-template category per target descriptor, the target
    words that take plural templates, and optional adjective forms of the attributes."""

    test: str
    templates: Mapping[str, str]
    plural: frozenset[str]
    adjectives: Mapping[str, tuple[str, ...]] | None

    def to_json(self) -> str:
        return json.dumps(
            {
                "test": self.test,
                "templates": dict(self.templates),
                "plural": sorted(self.plural),
                "adjectives": None
                if self.adjectives is None
                else {r: list(w) for r, w in self.adjectives.items()},
            },
            indent=1,
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> LpbsSpec:
        d = json.loads(text)
        adjectives = d["adjectives"] and {r: tuple(w) for r, w in d["adjectives"].items()}
        return cls(d["test"], d["templates"], frozenset(d["plural"]), adjectives)


def load_lpbs_spec(path: str | os.PathLike, resolve: Resolver) -> LpbsSpec:
    """The ``lpbs`` section of a word-set file, resolved and validated."""
    doc = read_yaml(path)
    section = doc.get("lpbs")
    if not isinstance(section, dict):
        raise InputError(f"{path}: no 'lpbs' section (the test cannot run LPBS)")
    templates = section.get("templates")
    known = descriptors(path)
    if not isinstance(templates, dict) or not templates:
        raise InputError(f"{path}: lpbs.templates must map target descriptors to categories")
    unknown = sorted(set(templates) - set(known))
    if unknown:
        raise InputError(f"{path}: lpbs.templates names {unknown}; descriptors are {known}")
    plural = section.get("plural") or []
    if not isinstance(plural, list):
        raise InputError(f"{path}: lpbs.plural must be a list of target words")
    adjectives = None
    if "adjectives" in section:
        adjectives = {
            r: tuple(
                resolve_list(section["adjectives"].get(r), f"{path}: lpbs.adjectives.{r}", resolve)
            )
            for r in ("A", "B")
        }
    return LpbsSpec(Path(path).stem, dict(templates), frozenset(plural), adjectives)


def shared_words_note(sets: Mapping[str, Sequence[str]], roles: Iterable[str]) -> str:
    """A note for the rows of a method that reads ``roles``, where one word is in a target set
    (X or Y) and an attribute set (A or B) among them ("" where none is): legal, but the word's
    similarity to itself (1 for the cosine) enters the effect size, so a test of whether
    targets associate with attributes partly measures that the word is itself."""
    roles = set(roles)
    shared = []
    for target in ("X", "Y"):
        for attribute in ("A", "B"):
            if {target, attribute} <= roles:
                words = set(sets.get(attribute, ()))
                shared += [
                    f"{w!r} ({target} and {attribute})" for w in sets.get(target, ()) if w in words
                ]
    if not shared:
        return ""
    return (
        f"a word in a target and an attribute set: {', '.join(shared)}; its similarity to "
        "itself enters the score (check the word set)"
    )


def check_distinct_after(
    sets: Mapping[str, Sequence[str]], normalise: Callable[[str], str], where: str
) -> None:
    """Fail when a model cannot tell stimuli apart: two stimuli of a role, or one of X and
    one of Y (of A and one of B), that are the same after the model's normalisation (a
    lowercasing vocabulary sees ``man`` and ``Man`` as one word, so they would count twice,
    and X = [he], Y = [He] would score d = 0 as an ordinary row)."""
    seen: dict[str, dict[str, str]] = {}
    for role, words in sets.items():
        seen[role] = {}
        for word in words:
            key = normalise(word)
            if key in seen[role]:
                raise InputError(
                    f"{where}: set {role} holds {seen[role][key]!r} and {word!r}, the same "
                    f"word {key!r} for this model"
                )
            seen[role][key] = word
    for first, second in (("X", "Y"), ("A", "B")):
        shared = sorted(set(seen.get(first, {})) & set(seen.get(second, {})))
        if shared:
            pairs = [f"{seen[first][k]!r}/{seen[second][k]!r}" for k in shared]
            raise InputError(
                f"{where}: sets {first} and {second} share {', '.join(pairs)} for this model "
                f"(the same word after its normalisation)"
            )
