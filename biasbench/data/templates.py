"""Templates: single-slot ones that put a stimulus in a sentence (SEAT's contexts), and
double-slot ones with a target slot before an attribute slot (LPBS). Both load from
``resources/templates/<id>.yaml``; a list may point into a pinned external file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from biasbench.config import read_yaml
from biasbench.data.wordsets import Resolver, resolve_list
from biasbench.errors import InputError


@dataclass(frozen=True)
class TemplateSet:
    id: str
    targets: dict[str, tuple[tuple[str, str], ...]]  # kind -> (prefix, suffix) pairs
    attributes: dict[str, tuple[tuple[str, str], ...]]
    #: template -> note, where the file wrote a template in another Unicode form than NFC
    notes: dict[str, str] = field(default_factory=dict)


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
    notes: dict[str, str] = {}
    for group in ("targets", "attributes"):
        kinds = doc.get(group)
        if not isinstance(kinds, dict) or not kinds:
            raise InputError(f"{path}: field {group!r} must map template kinds to lists")
        groups[group] = {}
        for kind, spec in kinds.items():
            where = f"{path}: {group}.{kind}"
            slot = spec.get("slot", default_slot) if isinstance(spec, dict) else default_slot
            templates = resolve_list(spec, where, resolve, notes)
            groups[group][kind] = tuple(_split_slot(t, slot, where) for t in templates)
    return TemplateSet(
        str(doc.get("id", Path(path).stem)), groups["targets"], groups["attributes"], notes
    )


def fill(prefix: str, suffix: str, stimulus: str) -> tuple[str, int, int]:
    """Sentence with the stimulus in the slot, capitalised when it opens the sentence."""
    word = stimulus[:1].upper() + stimulus[1:] if not prefix else stimulus
    return prefix + word + suffix, len(prefix), len(prefix) + len(word)


def split_double_template(
    template: str, target_slot: str, attribute_slot: str
) -> tuple[str, str, str]:
    """'TTT likes AAA.' -> ('', ' likes ', '.'); the target slot must come first, once."""
    if template.count(target_slot) != 1 or template.count(attribute_slot) != 1:
        raise InputError(
            f"double template {template!r} must hold {target_slot} and {attribute_slot} once each"
        )
    head, rest = template.split(target_slot)
    if attribute_slot in head:
        raise InputError(
            f"double template {template!r}: the target slot must precede the attribute slot"
        )
    middle, tail = rest.split(attribute_slot)
    return head, middle, tail


@dataclass(frozen=True)
class DoubleTemplates:
    """Per category, the singular templates and (optionally) their plural counterparts."""

    target_slot: str
    attribute_slot: str
    categories: Mapping[str, tuple[tuple[str, ...], tuple[str, ...] | None]]


def load_double_templates(path: str | os.PathLike, resolve: Resolver) -> DoubleTemplates:
    doc = read_yaml(path)
    slots = (doc.get("target_slot"), doc.get("attribute_slot"))
    if not all(isinstance(s, str) and s for s in slots):
        raise InputError(f"{path}: target_slot and attribute_slot must be non-empty strings")
    categories = {}
    for name, entry in (doc.get("categories") or {}).items():
        where = f"{path}: categories.{name}"
        if not isinstance(entry, dict) or "singular" not in entry:
            raise InputError(f"{where} must be a mapping with 'singular' (and 'plural')")
        singular = tuple(resolve_list(entry["singular"], f"{where}.singular", resolve))
        plural = None
        if "plural" in entry:
            plural = tuple(resolve_list(entry["plural"], f"{where}.plural", resolve))
            if len(plural) != len(singular):
                raise InputError(f"{where}: singular and plural templates must pair up")
        for template in singular + (plural or ()):
            split_double_template(template, *slots)  # fails naming the bad template
        categories[name] = (singular, plural)
    if not categories:
        raise InputError(f"{path}: no template categories")
    return DoubleTemplates(slots[0], slots[1], categories)
