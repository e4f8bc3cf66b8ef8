"""From one embeddings file to score rows: every registered method on context vectors (WEAT,
s-SEAT, w-SEAT, CEAT, MAC, ...) on every encoding it declares that the model provides.

Items of the sets are the contexts (``unit: context``, as in the SEAT code of May et al.,
where every template sentence is a set member) or the per-stimulus mean over its contexts
(``unit: stimulus``; ``corpus_unit`` for natural contexts). Stimuli without a usable encoding
(out of vocabulary, span lost, never seen in a corpus) are dropped and counted in the row; a
set losing more than ``max_drop_share`` of its stimuli gets an "n/a" row whose note says so.
A method's extra variants (CEAT on targets reduced to single tokens) run on its primary
encoding.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from biasbench import rows
from biasbench.data.wordsets import ROLES, shared_words_note
from biasbench.encodings import available_encodings
from biasbench.errors import EmptySetError, InputError
from biasbench.methods.contract import ContextVectors
from biasbench.methods.registry import consuming
from biasbench.scoring.settings import ScoreSettings
from biasbench.stats import derived_seed


def stimulus_groups(
    contexts: pd.DataFrame,
    vectors: np.ndarray,
    valid: np.ndarray,
    expected: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, list[np.ndarray]], dict[str, list[str]]]:
    """Per role: one (contexts, dim) matrix per kept stimulus (first-seen order), and the
    stimuli dropped: those of ``expected`` (default: those in the table) without any usable
    encoding -- including stimuli a corpus never mentions."""
    groups, dropped = {}, {}
    roles = list(expected) if expected is not None else list(dict.fromkeys(contexts["role"]))
    for role in dict.fromkeys([*ROLES, *roles]):
        mask = (contexts["role"] == role).to_numpy()
        stimuli = contexts.loc[mask, "stimulus"].to_numpy()
        ok = valid[mask]
        usable = vectors[mask][ok]
        members: dict[str, list[int]] = {}  # stimulus -> its usable rows, first-seen order
        for i, s in enumerate(stimuli[ok]):  # one pass (a mask per stimulus: rows x stimuli)
            members.setdefault(s, []).append(i)
        kept = list(members)
        groups[role] = [usable[i] for i in members.values()]
        wanted = expected.get(role, ()) if expected is not None else stimuli
        dropped[role] = sorted(set(wanted) - set(kept))
    return groups, dropped


def stimulus_strata(
    contexts: pd.DataFrame, pieces: np.ndarray | None, valid: np.ndarray, roles: Iterable[str]
) -> dict[str, list[int]] | None:
    """Per role, each stimulus :func:`stimulus_groups` keeps, in its order: the number of word
    pieces most of its usable contexts pool it from (a tie: the smaller), its stratum in the
    stratified word-level test (``p_word_strata``); None without pieces (static vectors)."""
    if pieces is None:
        return None
    stimuli, role_of = contexts["stimulus"].to_numpy(), contexts["role"].to_numpy()
    out = {}
    for role in roles:
        mask = (role_of == role) & valid
        counts: dict[str, dict[int, int]] = {}
        for stimulus, n in zip(stimuli[mask], pieces[mask], strict=True):
            tally = counts.setdefault(stimulus, {})
            tally[int(n)] = tally.get(int(n), 0) + 1
        out[role] = [min(t, key=lambda n, t=t: (-t[n], n)) for t in counts.values()]
    return out


def definitional_pairs(
    contexts: pd.DataFrame,
    vectors: np.ndarray,
    valid: np.ndarray,
    pairs: Sequence[tuple[str, str]],
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Per definitional pair (A[i], B[i]) both of whose words have a usable encoding, the
    contexts of each word: a pair never loses its partner to a shifted position."""
    out = []
    role, stimulus = contexts["role"].to_numpy(), contexts["stimulus"].to_numpy()
    for a, b in pairs:
        rows_a = (role == "A") & (stimulus == a) & valid
        rows_b = (role == "B") & (stimulus == b) & valid
        if rows_a.any() and rows_b.any():
            out.append((vectors[rows_a], vectors[rows_b]))
    return tuple(out)


def coverage_note(dropped: Mapping[str, list[str]], kept: Mapping[str, int], limit: float) -> str:
    """Why a set cannot be scored: it lost more than ``limit`` of its stimuli ("" if none)."""
    for role in dropped:
        total = kept[role] + len(dropped[role])
        share = len(dropped[role]) / total if total else 1.0
        if share > limit:
            return (
                f"coverage: set {role} lost {len(dropped[role])} of {total} stimuli "
                f"({share:.0%} > max_drop_share {limit:.0%}): {dropped[role]}"
            )
    return ""


def score_file(
    contexts: pd.DataFrame,
    arrays: dict[str, np.ndarray],
    *,
    model: str,
    kind: str,
    is_decoder: bool,
    source: str,
    test: str,
    descriptor: str,
    settings: ScoreSettings,
    signature: str,
    expected: Mapping[str, Sequence[str]] | None = None,
    single_token: Collection[str] | None = None,
    samples: dict[str, np.ndarray] | None = None,
    pairs: Sequence[tuple[str, str]] | None = None,
    primary_only: bool = False,
    stimulus_notes: Mapping[str, str] | None = None,
    undefined_as_na: bool = False,
) -> pd.DataFrame:
    """Rows of every method on context vectors, encoding and variant for one (model, source,
    test, descriptor). ``single_token`` (a contextual model's single-token stimuli) enables
    the ``reduced`` variants; ``samples``, if given, receives the per-sample effect sizes of
    primary encodings, keyed ``method|descriptor|encoding|variant`` (Figure 3); ``pairs``, the
    word set's definitional pairs (A[i], B[i]) if it declares them (Direct Bias, RIPA);
    ``primary_only``: each method's primary encoding and variant alone. A method's rows carry
    the caveats of its roles: a word in a target and an attribute set
    (:func:`~biasbench.data.wordsets.shared_words_note`, from ``expected``) and
    ``stimulus_notes`` (stimulus -> note: the embedding's, e.g. static vectors listing the
    word twice). A method undefined on the vectors (every stimulus the same vector, as on a
    random model's copy whose tokenizer knows none of a design's words) stops the run naming
    the cell, or with ``undefined_as_na`` (the null copies: what a degenerate draw gives is no
    finding, and not a reason to lose the others) gives an "n/a" row saying why."""
    method_settings = settings.for_source(source)
    # one seed per job: its methods and encodings are tested on the same partitions
    seed = derived_seed(settings.seed, model, source, test, descriptor)
    available = available_encodings(kind, is_decoder)
    pieces = arrays.get("pieces")  # per context, the tokens its stimulus is pooled from
    # encoding -> (valid mask, dropped, its ContextVectors), once each: the methods on an
    # encoding share one ContextVectors, and with it what they derive from it
    grouped: dict[str, tuple] = {}
    out = []
    for method in consuming(ContextVectors):
        if kind not in method.model_kinds:
            continue
        encodings = method.encodings_for(available)
        for k, encoding in enumerate(encodings[:1] if primary_only else encodings):
            if encoding not in grouped:
                valid = (
                    arrays["valid"]
                    if encoding.startswith("word/")
                    else np.ones(len(contexts), bool)
                )
                groups, dropped = stimulus_groups(contexts, arrays[encoding], valid, expected)
                paired = None
                if pairs is not None:
                    paired = definitional_pairs(contexts, arrays[encoding], valid, pairs)
                strata = stimulus_strata(contexts, pieces, valid, groups)
                grouped[encoding] = (valid, dropped, ContextVectors(groups, paired, strata))
            valid, dropped, inputs = grouped[encoding]
            note = coverage_note(
                {r: dropped[r] for r in method.roles},
                {r: len(inputs.groups[r]) for r in method.roles},
                settings.max_drop_share,
            )
            caveat = _caveats(method.roles, contexts, expected, stimulus_notes)
            for variant in method.variants if k == 0 and not primary_only else method.variants[:1]:
                if variant == "reduced" and single_token is None:
                    continue  # static vectors have no tokenizer to reduce to
                variant_inputs, removed = inputs, dropped
                if variant == "reduced":
                    keep = ~contexts["role"].isin(["X", "Y"]) | contexts["stimulus"].isin(
                        single_token
                    )
                    mask = keep.to_numpy()
                    used, removed = stimulus_groups(
                        contexts[mask], arrays[encoding][mask], valid[mask], expected
                    )
                    strata = stimulus_strata(
                        contexts[mask], None if pieces is None else pieces[mask], valid[mask], used
                    )
                    variant_inputs = ContextVectors(used, inputs.pairs, strata)
                key = rows.RowKey(model, source, test, descriptor, encoding, variant)
                score, why = None, note
                if not note:
                    try:
                        score = method(variant_inputs, method_settings, seed)
                    except EmptySetError as exc:
                        why = str(exc)
                    except ValueError as exc:
                        if undefined_as_na:
                            why = f"undefined on these vectors: {exc}"
                        else:
                            raise InputError(
                                f"{test}/{descriptor} on {model}, {method.name} {encoding}: {exc}"
                            ) from exc
                if k == 0 and samples is not None and score and score.samples is not None:
                    name = f"{method.name}|{descriptor}|{encoding}|{variant}"
                    samples[name] = score.samples.astype(np.float32)
                out.append(
                    rows.make_row(
                        method,
                        key,
                        score,
                        primary=k == 0 and variant == method.variants[0],
                        unit=method.unit or method_settings.unit,
                        seed=seed,
                        signature=signature,
                        # the coverage check reads max_drop_share for every method here
                        settings={
                            **method.settings_of(method_settings),
                            "drop": settings.max_drop_share,
                        },
                        dropped=removed,
                        sizes=None
                        if score
                        else {r: len(g) for r, g in variant_inputs.groups.items()},
                        note="; ".join(n for n in (why, caveat) if n),
                    )
                )
    return rows.frame(out)


def _caveats(
    roles: Sequence[str],
    contexts: pd.DataFrame,
    expected: Mapping[str, Sequence[str]] | None,
    stimulus_notes: Mapping[str, str] | None,
) -> str:
    """The notes of a method's rows that its inputs, legal but suspect, call for."""
    notes = [shared_words_note(expected, roles)] if expected is not None else []
    if stimulus_notes:
        if expected is not None:
            mine = [w for r in roles for w in expected.get(r, ())]
        else:
            mine = contexts.loc[contexts["role"].isin(list(roles)), "stimulus"].tolist()
        notes += [stimulus_notes[w] for w in dict.fromkeys(mine) if w in stimulus_notes]
    return "; ".join(n for n in notes if n)
