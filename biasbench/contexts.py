"""Context tables: one row per (stimulus, sentence) with the stimulus' character span.

Columns: context_id, role, stimulus, sentence, start, end, provenance. Every later stage
finds the stimulus through ``sentence[start:end]``, so the span is checked on the way in.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from biasbench.errors import InputError
from biasbench.wordsets import ROLES, Resolver, WordSet, read_yaml, resolve_list

CONTEXT_COLUMNS = ["context_id", "role", "stimulus", "sentence", "start", "end", "provenance"]


@dataclass(frozen=True)
class TemplateSet:
    id: str
    targets: dict[str, tuple[tuple[str, str], ...]]  # kind -> (prefix, suffix) pairs
    attributes: dict[str, tuple[tuple[str, str], ...]]


def _split_slot(template: str, slot: str, where: str) -> tuple[str, str]:
    parts = template.split(slot)
    if len(parts) != 2:
        raise InputError(f"{where}: template {template!r} must hold the slot {slot!r} once")
    return parts[0], parts[1]


def load_templates(path: str | os.PathLike, resolve: Resolver) -> TemplateSet:
    doc = read_yaml(path)
    default_slot = doc.get("slot")
    if not isinstance(default_slot, str) or not default_slot:
        raise InputError(f"{path}: missing field 'slot' (the placeholder for the stimulus)")
    groups: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {}
    for group in ("targets", "attributes"):
        kinds = doc.get(group)
        if not isinstance(kinds, dict) or not kinds:
            raise InputError(f"{path}: field {group!r} must map template kinds to lists")
        groups[group] = {}
        for kind, spec in kinds.items():
            where = f"{path}: {group}.{kind}"
            slot = spec.get("slot", default_slot) if isinstance(spec, dict) else default_slot
            templates = resolve_list(spec, where, resolve)
            groups[group][kind] = tuple(_split_slot(t, slot, where) for t in templates)
    return TemplateSet(str(doc.get("id", Path(path).stem)), groups["targets"], groups["attributes"])


def fill(prefix: str, suffix: str, stimulus: str) -> tuple[str, int, int]:
    """Sentence with the stimulus in the slot, capitalised when it opens the sentence."""
    word = stimulus[:1].upper() + stimulus[1:] if not prefix else stimulus
    return prefix + word + suffix, len(prefix), len(prefix) + len(word)


def template_contexts(wordset: WordSet, templates: TemplateSet) -> pd.DataFrame:
    """Every stimulus of every role in every template of its kind (singles)."""
    kinds = {
        "X": ("targets", wordset.target_kind),
        "Y": ("targets", wordset.target_kind),
        "A": ("attributes", wordset.attribute_kind),
        "B": ("attributes", wordset.attribute_kind),
    }
    rows = []
    for role in ROLES:
        group, kind = kinds[role]
        pairs = getattr(templates, group).get(kind)
        if pairs is None:
            raise InputError(f"template set {templates.id}: no {group} templates of kind {kind!r}")
        for stimulus in wordset.sets[role]:
            for t_index, (prefix, suffix) in enumerate(pairs):
                sentence, start, end = fill(prefix, suffix, stimulus)
                rows.append(
                    (
                        role,
                        stimulus,
                        sentence,
                        start,
                        end,
                        f"{templates.id}:{group}.{kind}[{t_index}]",
                    )
                )
    return _numbered(rows)


def word_contexts(wordset: WordSet) -> pd.DataFrame:
    """The bare stimuli, one row each: the 'context' of a static embedding."""
    rows = [(role, s, s, 0, len(s), "word") for role in ROLES for s in wordset.sets[role]]
    return _numbered(rows)


def _numbered(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=CONTEXT_COLUMNS[1:])
    frame.insert(0, "context_id", range(len(frame)))
    return frame


def check_contexts(frame: pd.DataFrame, where: str) -> None:
    """Fail unless every row's span holds its stimulus (case-insensitively)."""
    missing = [c for c in CONTEXT_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{where}: context table lacks columns {missing}")
    if frame.empty:
        raise InputError(f"{where}: context table is empty")
    for row in frame.itertuples(index=False):
        span = row.sentence[row.start : row.end] if 0 <= row.start < row.end else ""
        if span.casefold() != row.stimulus.casefold():
            raise InputError(
                f"{where}: context {row.context_id}: span [{row.start}:{row.end}] of "
                f"{row.sentence!r} is {span!r}, not the stimulus {row.stimulus!r}"
            )
    bad_roles = sorted(set(frame["role"]) - set(ROLES))
    if bad_roles:
        raise InputError(f"{where}: unknown roles {bad_roles}")
