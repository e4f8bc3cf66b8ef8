"""LPBS on double-slot templates for one model and test: every target descriptor, the word-set
variants of Husse & Spitz (2022) and both attribute forms, as tidy score rows.

Variants (column ``variant``: ``<targets>`` or ``<targets>+adjective``):
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

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from biasbench import rows
from biasbench.data.templates import DoubleTemplates, split_double_template
from biasbench.data.wordsets import LpbsSpec, WordSet, shared_words_note
from biasbench.errors import EmptySetError, InputError
from biasbench.methods.contract import Settings, TemplateLogProbs
from biasbench.methods.registry import get
from biasbench.scoring.corpus import identity
from biasbench.stats import derived_seed

#: (template parts, targets, attributes) -> (log p_t, log p_p), each (attributes, targets)
LogProbs = Callable[[tuple[str, str, str], list[str], list[str]], tuple[np.ndarray, np.ndarray]]


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


def lpbs_rows(
    log_probs: LogProbs,
    in_vocabulary: Callable[[str], bool],
    wordsets: Mapping[str, WordSet],
    spec: LpbsSpec,
    templates: DoubleTemplates,
    *,
    model: str,
    encoding: str,
    settings: Settings,
    seed: int,
    signature: str,
    arrays: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Score rows of every (descriptor, variant, attribute form) of one test on one model;
    ``encoding`` says how the probabilities were obtained (``mlm`` or ``causal``). ``arrays``,
    where given, receives each (descriptor, form)'s log-probabilities as
    ``<descriptor><form>|log_pt`` and ``|log_pp`` (templates, attributes, targets: what a
    paired comparison reads) with their ``|targets`` and ``|attributes``, ``encoding`` and
    the file's identity."""
    method = get("LPBS")
    out = []
    for descriptor, wordset in wordsets.items():
        category = spec.templates.get(descriptor)
        if category is None:
            continue
        targets = list(wordset.sets["X"]) + list(wordset.sets["Y"])
        n_x = len(wordset.sets["X"])
        forms = {"": (wordset.sets["A"], wordset.sets["B"])}
        if spec.adjectives:
            forms["+adjective"] = (spec.adjectives["A"], spec.adjectives["B"])
        job_seed = derived_seed(seed, model, "templates", spec.test, descriptor, "LPBS")
        for form, (attr_a, attr_b) in forms.items():
            attributes = list(attr_a) + list(attr_b)
            shared = {**wordset.sets, "A": attr_a, "B": attr_b}
            caveat = shared_words_note(shared, method.roles)
            log_pt, log_pp = template_log_probs(
                log_probs, templates, category, targets, spec.plural, attributes
            )
            if arrays is not None:
                arrays[f"{descriptor}{form}|log_pt"] = log_pt
                arrays[f"{descriptor}{form}|log_pp"] = log_pp
                arrays[f"{descriptor}{form}|targets"] = np.array(targets)
                arrays[f"{descriptor}{form}|attributes"] = np.array(attributes)
                arrays |= {
                    "encoding": np.array(encoding),
                    **identity(model, "templates", spec.test),
                }
            for reduction in ("full", "reduced"):
                keep = [reduction == "full" or in_vocabulary(t) for t in targets]
                x_cols = [i for i in range(n_x) if keep[i]]
                y_cols = [i for i in range(n_x, len(targets)) if keep[i]]
                cols = x_cols + y_cols
                dropped = {
                    "X": [targets[i] for i in range(n_x) if not keep[i]],
                    "Y": [targets[i] for i in range(n_x, len(targets)) if not keep[i]],
                }
                inputs = TemplateLogProbs(
                    log_pt[:, :, cols], log_pp[:, :, cols], len(x_cols), len(attr_a)
                )
                score, note = None, ""
                try:
                    score = method(inputs, settings, job_seed)
                except EmptySetError as exc:
                    note = str(exc)
                variant = reduction + form
                out.append(
                    rows.make_row(
                        method,
                        rows.RowKey(model, "templates", spec.test, descriptor, encoding, variant),
                        score,
                        primary=variant == method.variants[0],
                        unit=method.unit,
                        seed=job_seed,
                        signature=signature,
                        settings=method.settings_of(settings),
                        dropped=dropped,
                        sizes=None
                        if score
                        else {
                            "X": len(x_cols),
                            "Y": len(y_cols),
                            "A": len(attr_a),
                            "B": len(attr_b),
                        },
                        note="; ".join(n for n in (note, caveat) if n),
                    )
                )
    if not out:
        raise InputError(f"LPBS: {spec.test}: no descriptor has a template category")
    return rows.frame(out)
