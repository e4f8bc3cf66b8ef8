"""LPBS on double-slot templates for one model and test: every target descriptor, the word-set
variants of Husse & Spitz (2022) and both attribute forms, as tidy score rows.

Variants (encoding column ``<variant>/<attribute form>``):
  full       every target of the descriptor (the ``simplified`` descriptor holds the
             simplified sets of appendix B.2 of the paper)
  reduced    only targets the model's tokenizer keeps as one token (Figure 2); multi-word
             targets never do, so Dis and the I1/I2 terms reduce to nothing ("n/a")
Attribute forms: ``noun`` (the test's attribute words) and ``adjective`` (appendix B.2,
Table 6) where the word-set file defines them.

The target/prior log-probabilities of a (descriptor, form) are computed once for all its
targets; the reduced variant reuses their columns. Scores are averaged over a category's
templates (one bias score per attribute).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from biasbench.errors import InputError
from biasbench.lpbs import bias_scores, lpbs_test, split_double_template
from biasbench.stats import derived_seed
from biasbench.wordsets import LpbsSpec, Resolver, WordSet, read_yaml, resolve_list

#: (template parts, targets, attributes) -> (log p_t, log p_p), each (attributes, targets)
LogProbs = Callable[[tuple[str, str, str], list[str], list[str]], tuple[np.ndarray, np.ndarray]]


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


def template_log_probs(
    log_probs: LogProbs,
    templates: DoubleTemplates,
    category: str,
    targets: list[str],
    plural: frozenset[str],
    attributes: list[str],
) -> tuple[np.ndarray, np.ndarray]:
    """(log p_t, log p_p), each (templates, attributes, targets); a plural target is put in
    the plural counterpart of each singular template."""
    if category not in templates.categories:
        raise InputError(
            f"LPBS: template category {category!r} unknown ({sorted(templates.categories)})"
        )
    singular, plurals = templates.categories[category]
    is_plural = np.array([t in plural for t in targets])
    if is_plural.any() and plurals is None:
        raise InputError(f"LPBS: category {category!r} has no plural templates for {targets}")
    shape = (len(singular), len(attributes), len(targets))
    log_pt, log_pp = np.empty(shape), np.empty(shape)
    for i, template in enumerate(singular):
        for number, text in ((False, template), (True, plurals[i] if plurals else None)):
            cols = np.flatnonzero(is_plural == number)
            if len(cols) == 0:
                continue
            parts = split_double_template(text, templates.target_slot, templates.attribute_slot)
            pt, pp = log_probs(parts, [targets[c] for c in cols], attributes)
            log_pt[i][:, cols], log_pp[i][:, cols] = pt, pp
    return log_pt, log_pp


def template_bias_scores(
    log_pt: np.ndarray, log_pp: np.ndarray, x_cols: list[int], y_cols: list[int]
) -> np.ndarray:
    """bs per attribute, averaged over templates, for the chosen target columns."""
    cols = list(x_cols) + list(y_cols)
    return np.mean(
        [
            bias_scores(pt[:, cols], pp[:, cols], len(x_cols))
            for pt, pp in zip(log_pt, log_pp, strict=True)
        ],
        axis=0,
    )


def lpbs_rows(
    log_probs: LogProbs,
    in_vocabulary: Callable[[str], bool],
    wordsets: Mapping[str, WordSet],
    spec: LpbsSpec,
    templates: DoubleTemplates,
    *,
    model: str,
    exact_max: int,
    n_samples: int,
    seed: int,
) -> pd.DataFrame:
    """Score rows of every (descriptor, variant, attribute form) of one test on one model."""
    rows = []
    for descriptor, wordset in wordsets.items():
        category = spec.templates.get(descriptor)
        if category is None:
            continue
        targets = list(wordset.sets["X"]) + list(wordset.sets["Y"])
        n_x = len(wordset.sets["X"])
        forms = {"noun": (wordset.sets["A"], wordset.sets["B"])}
        if spec.adjectives:
            forms["adjective"] = (spec.adjectives["A"], spec.adjectives["B"])
        job_seed = derived_seed(seed, model, "templates", spec.test, descriptor, "LPBS")
        for form, (attr_a, attr_b) in forms.items():
            attributes = list(attr_a) + list(attr_b)
            log_pt, log_pp = template_log_probs(
                log_probs, templates, category, targets, spec.plural, attributes
            )
            for variant in ("full", "reduced"):
                keep = [variant == "full" or in_vocabulary(t) for t in targets]
                x_cols = [i for i in range(n_x) if keep[i]]
                y_cols = [i for i in range(n_x, len(targets)) if keep[i]]
                dropped = {
                    "X": [targets[i] for i in range(n_x) if not keep[i]],
                    "Y": [targets[i] for i in range(n_x, len(targets)) if not keep[i]],
                }
                stats = {
                    "effect_size": np.nan,
                    "p_value": np.nan,
                    "n_partitions": 0,
                    "exact": False,
                }
                if x_cols and y_cols:
                    bs = template_bias_scores(log_pt, log_pp, x_cols, y_cols)
                    res = lpbs_test(
                        bs[: len(attr_a)],
                        bs[len(attr_a) :],
                        exact_max=exact_max,
                        n_samples=n_samples,
                        seed=job_seed,
                    )
                    stats = {
                        "effect_size": res.effect_size,
                        "p_value": res.p_value,
                        "n_partitions": res.n_partitions,
                        "exact": res.exact,
                    }
                rows.append(
                    {
                        "method": "LPBS",
                        "model": model,
                        "source": "templates",
                        "test": spec.test,
                        "descriptor": descriptor,
                        "encoding": f"{variant}/{form}",
                        "primary": (variant, form) == ("full", "noun"),
                        "unit": "attribute",
                        **stats,
                        "se": np.nan,
                        "tau_squared": np.nan,
                        "n_x": len(x_cols),
                        "n_y": len(y_cols),
                        "n_a": len(attr_a),
                        "n_b": len(attr_b),
                        "dropped_X": len(dropped["X"]),
                        "dropped_Y": len(dropped["Y"]),
                        "dropped_A": 0,
                        "dropped_B": 0,
                        "dropped": ";".join(f"{r}:{w}" for r in "XY" for w in dropped[r]),
                        "seed": job_seed,
                    }
                )
    if not rows:
        raise InputError(f"LPBS: {spec.test}: no descriptor has a template category")
    return pd.DataFrame(rows)


def tokenizer_vocabulary_test(tokenizer) -> Callable[[str], bool]:
    """Is a word one token of the model's vocabulary, as Husse & Spitz reduce word sets?
    (Tokenised alone, without special tokens; a multi-word stimulus never is.)"""

    def in_vocabulary(word: str) -> bool:
        return " " not in word and len(tokenizer(word, add_special_tokens=False)["input_ids"]) == 1

    return in_vocabulary
