"""Did the second model move on the embedding measures? Two models' vectors of the same test,
compared measure by measure on the test's independent unit: its stimulus words.

Both models encoded the same contexts (a test's templates; a static model's words). A unit is
one target word with all its contexts, or one definitional pair of attribute words (A[i],
B[i]) with theirs, or one attribute word where the word set declares no pairs. Each measure
(every registered method on context vectors, on its primary encoding and variant) is scored
on both models by the method itself, its difference taken against minus base, and:

both models exchange whole units in the paired test and are resampled together by unit in
the interval (:mod:`biasbench.studies.unit_exchange`).

The exchange puts one model's vectors beside the other's in one computation: it needs one
vector space, as between a model and its debiased, quantized or fine-tuned version. Models
whose encodings differ in dimension, or that did not encode the same contexts, are not
comparable here (:func:`not_comparable` says why, and the card repeats it).

The statistic needs only each method's effect size, so its own tests are cut to one draw
(:func:`effect_settings`): the effect does not depend on them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from biasbench.methods.contract import ContextVectors, Method, Settings
from biasbench.methods.registry import consuming
from biasbench.stats import derived_seed
from biasbench.studies.unit_exchange import CEAT_SAMPLES, N_BOOT, N_PERM, exchange_measure


def effect_settings(settings: Settings) -> Settings:
    """``settings`` with every test a method runs cut to one draw: its effect size alone is
    what a comparison recomputes, thousands of times; CEAT's samples at most
    :data:`CEAT_SAMPLES`."""
    return replace(
        settings,
        exact_max=0,
        n_samples=1,
        same_samples=1,
        ceat_samples=min(settings.ceat_samples, CEAT_SAMPLES),
    )


@dataclass(frozen=True)
class Units:
    """One test's stimuli with usable contexts in both models, and its units: per role the
    stimuli (first-seen order) and each one's context rows; ``members`` lists each unit's
    (role, stimulus index) and ``kinds`` its resampling stratum (X, Y, pair, A or B)."""

    names: Mapping[str, list[str]]
    rows: Mapping[str, list[np.ndarray]]
    members: list[list[tuple[str, int]]]
    kinds: list[str]
    paired: bool

    def context_units(self, n_rows: int) -> np.ndarray:
        """Each context row's unit (-1: a row no unit holds)."""
        out = np.full(n_rows, -1)
        for u, members in enumerate(self.members):
            for role, i in members:
                out[self.rows[role][i]] = u
        return out


def stimulus_units(
    contexts: pd.DataFrame,
    valid: np.ndarray,
    roles: Sequence[str],
    pairs: Sequence[tuple[str, str]] | None,
) -> Units:
    """The units of one test (``contexts``: its role and stimulus per context row; ``valid``:
    the rows both models encoded; ``pairs``: the word set's definitional pairs, or None)."""
    role_of, stimulus_of = contexts["role"].to_numpy(), contexts["stimulus"].to_numpy()
    names: dict[str, list[str]] = {}
    rows: dict[str, list[np.ndarray]] = {}
    for role in roles:
        mask = (role_of == role) & valid
        order = list(dict.fromkeys(stimulus_of[mask]))
        names[role] = order
        rows[role] = [np.flatnonzero(mask & (stimulus_of == s)) for s in order]
    members: list[list[tuple[str, int]]] = []
    kinds: list[str] = []
    paired_words: dict[str, set[int]] = {"A": set(), "B": set()}
    if pairs is not None and {"A", "B"} <= set(roles):
        for a, b in pairs:
            if a in names["A"] and b in names["B"]:
                i, j = names["A"].index(a), names["B"].index(b)
                members.append([("A", i), ("B", j)])
                kinds.append("pair")
                paired_words["A"].add(i)
                paired_words["B"].add(j)
    for role in roles:
        for i in range(len(names[role])):
            if i not in paired_words.get(role, ()):
                members.append([(role, i)])
                kinds.append(role)
    return Units(names, rows, members, kinds, paired=pairs is not None)


def vectors_of(units: Units, vectors: np.ndarray, draw: Sequence[int] | None = None):
    """The :class:`ContextVectors` a method reads from per-row ``vectors``, over the units of
    ``draw`` (default: every unit once; a bootstrap draw repeats some)."""
    chosen = range(len(units.members)) if draw is None else draw
    groups: dict[str, list[np.ndarray]] = {role: [] for role in units.names}
    pairs = []
    for u in chosen:
        for role, i in units.members[u]:
            groups[role].append(vectors[units.rows[role][i]])
        if units.kinds[u] == "pair":
            (_, i), (_, j) = units.members[u]
            pairs.append((vectors[units.rows["A"][i]], vectors[units.rows["B"][j]]))
    return ContextVectors(groups, tuple(pairs) if units.paired else None)


def not_comparable(base: np.ndarray, against: np.ndarray) -> str:
    """Why two models' vectors of one encoding cannot be exchanged ("" where they can)."""
    if base.shape[0] != against.shape[0]:
        return f"the two models encoded different contexts ({base.shape[0]} and {against.shape[0]})"
    if base.shape[1:] != against.shape[1:]:
        return (
            f"their vectors differ in dimension ({base.shape[1]} and {against.shape[1]}): "
            "exchanging a unit's vectors needs one space"
        )
    return ""


def paired_measure(
    method: Method,
    units: Units,
    base: np.ndarray,
    against: np.ndarray,
    settings: Settings,
    seed: int,
    n_perm: int = N_PERM,
    n_boot: int = N_BOOT,
) -> dict:
    """One measure on both models' per-row vectors of one encoding: each model's effect size,
    the difference (against minus base) with its interval over the units, the exchange test's
    two-sided p with its floor (:func:`biasbench.studies.unit_exchange.exchange_measure`),
    and the units' and contexts' counts."""
    cheap = effect_settings(settings)
    row_unit = units.context_units(len(base))
    held = row_unit >= 0

    def effect(vectors: np.ndarray, draw) -> float:
        return float(method(vectors_of(units, vectors, draw), cheap, seed).effect_size)

    def effects(flip, draw) -> tuple[float, float]:
        if flip is None:
            return effect(base, draw), effect(against, draw)
        moved = np.zeros(len(base), bool)
        moved[held] = flip[row_unit[held]]
        return (
            effect(np.where(moved[:, None], against, base), draw),
            effect(np.where(moved[:, None], base, against), draw),
        )

    measured = exchange_measure(effects, units.kinds, seed, n_perm, n_boot)
    return {**measured, "items": int(held.sum())}


@dataclass(frozen=True)
class ModelVectors:
    """One model's encoding of one test: its contexts (role, stimulus per row), its arrays
    (encoding -> per-row vectors, ``valid`` for word encodings), its model kind."""

    contexts: pd.DataFrame
    arrays: Mapping[str, np.ndarray]
    kind: str
    available: Sequence[str]


def embedding_rows(
    base: ModelVectors,
    against: ModelVectors,
    *,
    test: str,
    names: tuple[str, str],
    pairs: Sequence[tuple[str, str]] | None,
    settings: Settings,
    seed: int,
    n_perm: int = N_PERM,
    n_boot: int = N_BOOT,
) -> tuple[list[dict], list[dict]]:
    """(rows, left out) of one test both models encoded: a row per method on context vectors
    that runs on both models' kind, on its primary encoding where both have it, and per
    measure left out the reason (:func:`not_comparable`, or no shared encoding)."""
    if not base.contexts[["role", "stimulus"]].equals(against.contexts[["role", "stimulus"]]):
        return [], [
            {
                "dataset": test,
                "method": "every embedding method",
                "why": ("the two models encoded different contexts of this test"),
            }
        ]
    rows, left_out = [], []
    units_of: dict[str, Units] = {}
    for method in consuming(ContextVectors):
        if base.kind not in method.model_kinds or against.kind not in method.model_kinds:
            continue
        shared = [e for e in method.encodings_for(base.available) if e in against.available]
        if not shared:
            left_out.append(
                {"dataset": test, "method": method.name, "why": "no encoding both models have"}
            )
            continue
        encoding = shared[0]
        why = not_comparable(base.arrays[encoding], against.arrays[encoding])
        if why:
            left_out.append({"dataset": test, "method": method.name, "why": why})
            continue
        if encoding not in units_of:
            valid = np.ones(len(base.contexts), bool)
            if encoding.startswith("word/"):
                valid = base.arrays["valid"].astype(bool) & against.arrays["valid"].astype(bool)
            units_of[encoding] = stimulus_units(base.contexts, valid, ("X", "Y", "A", "B"), pairs)
        part_seed = derived_seed(seed, test, method.name, encoding, *names)
        try:
            measured = paired_measure(
                method,
                units_of[encoding],
                base.arrays[encoding],
                against.arrays[encoding],
                settings,
                part_seed,
                n_perm,
                n_boot,
            )
        except (ValueError, ArithmeticError) as exc:  # EmptySetError is a ValueError
            left_out.append({"dataset": test, "method": method.name, "why": str(exc)})
            continue
        rows.append(
            {
                "dataset": test,
                "method": method.name,
                "encoding": encoding,
                "variant": method.variants[0],
                "base": names[0],
                "against": names[1],
                **measured,
            }
        )
    return rows, left_out
