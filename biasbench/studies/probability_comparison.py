"""Did the second model move on LPBS and p-CEAT? Two models' log-probabilities of the same
templates (LPBS) or corpus contexts (p-CEAT), compared on the measures' own unit: the
attribute word.

Both measures score each attribute word by eq. 10 (Kurita et al.: the prior-corrected
log-probability of the X targets minus the Y targets beside it) and contrast the A words with
the B words. A word's templates or contexts are not independent of each other (they share
the word's own position in the model: ``biasbench.methods.probability.lpbs`` shows how far a
test over them errs), so a unit is one attribute word with all its templates or contexts,
the unit the measures' own tests permute. Its bias scores are computed once per model:
LPBS's averaged over the templates, p-CEAT's per sampled context set (the same seed for both
models, so both draw the same contexts of each pair). The paired test exchanges whole words'
scores between the models and the interval resamples words within A and within B
(:mod:`biasbench.studies.unit_exchange`).

Both models must have read the same templates or contexts (the same targets and attributes;
for p-CEAT the same contexts of every pair) with probabilities of one kind, both masked or
both causal (:func:`not_comparable` says why not). The interval resamples the attribute
words with the targets fixed: it is conditional on the test's target words. The comparison's
p-CEAT draws at most ``unit_exchange.CEAT_SAMPLES`` samples with a seed of its own, so its
two scores can differ from the models' own p-CEAT scores by the samples' spread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from biasbench.errors import EmptySetError, UndefinedEffectError
from biasbench.methods.contract import ContextLogProbs, TemplateLogProbs
from biasbench.methods.probability.lpbs import template_bias_scores
from biasbench.methods.probability.pceat import combined_effect, sampled_bias_scores
from biasbench.scoring.corpus import context_cells, pair_contexts
from biasbench.stats import derived_seed, effect_size
from biasbench.studies.unit_exchange import CEAT_SAMPLES, N_BOOT, N_PERM, exchange_measure


@dataclass(frozen=True)
class AttributeScores:
    """One model's bias scores by attribute word: ``scores`` (samples, attributes A then B;
    LPBS has one sample), the first ``n_a`` of A; ``words``: what they were scored on (the
    targets and attributes, or the contexts' pairs and gaps); ``items``: the templates or
    contexts read; ``encoding``: how the probabilities were obtained (mlm, causal)."""

    scores: np.ndarray
    n_a: int
    words: tuple
    items: int
    encoding: str


def lpbs_effect(scores: np.ndarray, n_a: int) -> float:
    """LPBS's effect size (eq. 11) of one row of bias scores."""
    return effect_size(scores[0, :n_a], scores[0, n_a:], ddof=1)


#: each measure's effect size of attribute scores (what the exchange recomputes)
EFFECTS: dict[str, Callable[[np.ndarray, int], float]] = {
    "LPBS": lpbs_effect,
    "p-CEAT": combined_effect,
}


def lpbs_scores(arrays: Mapping[str, np.ndarray], descriptor: str, n_x: int, n_a: int):
    """LPBS's bias score per attribute of one descriptor's noun form in a model's arrays
    (:func:`biasbench.scoring.templates.lpbs_rows`: log-probabilities by template, attribute
    and target)."""
    log_pt, log_pp = arrays[f"{descriptor}|log_pt"], arrays[f"{descriptor}|log_pp"]
    bs = template_bias_scores(TemplateLogProbs(log_pt, log_pp, n_x, n_a))
    words = tuple(tuple(arrays[f"{descriptor}|{k}"]) for k in ("targets", "attributes"))
    items = log_pt.shape[0] * log_pt.shape[1]
    return AttributeScores(bs[None, :], n_a, (log_pt.shape, *words), items, str(arrays["encoding"]))


def pceat_scores(contexts: pd.DataFrame, sets: Mapping, n_samples: int, seed: int, encoding: str):
    """p-CEAT's bias scores per sampled context set and usable attribute (``contexts``: one
    row per context of the word set's pairs, with target, attribute, gap, log_pt and
    log_pp)."""
    sampled = sampled_bias_scores(ContextLogProbs(context_cells(contexts), sets), n_samples, seed)
    words = tuple(map(tuple, contexts[["target", "attribute", "gap"]].to_numpy()))
    return AttributeScores(sampled.bs, sampled.n_a, words, len(contexts), encoding)


def attribute_measure(
    method: str,
    base: AttributeScores,
    against: AttributeScores,
    seed: int,
    n_perm: int = N_PERM,
    n_boot: int = N_BOOT,
) -> dict:
    """One measure on both models' attribute scores: each model's effect, the difference
    with its interval over the words, the exchange test's p with its floor."""
    effect = EFFECTS[method]
    n_a = base.n_a

    def effects(flip, draw) -> tuple[float, float]:
        first, second = base.scores, against.scores
        if flip is not None:
            first, second = np.where(flip, second, first), np.where(flip, first, second)
        if draw is not None:
            first, second = first[:, draw], second[:, draw]
        return effect(first, n_a), effect(second, n_a)

    n_units = base.scores.shape[1]
    kinds = ["A"] * n_a + ["B"] * (n_units - n_a)
    return {**exchange_measure(effects, kinds, seed, n_perm, n_boot), "items": base.items}


def not_comparable(base: AttributeScores, against: AttributeScores) -> str:
    """Why two models' attribute scores cannot be exchanged ("" where they can)."""
    if base.encoding != against.encoding:
        return (
            f"one model's probabilities are {base.encoding}, the other's {against.encoding}: "
            "a masked and a causal LM's bias scores are not one scale"
        )
    # the words read fix the attribute words scored (their number, how many of A)
    if (base.words, base.n_a) != (against.words, against.n_a):
        return "the two models read different templates, contexts or words"
    return ""


def lpbs_template_rows(
    base: Mapping[str, np.ndarray],
    against: Mapping[str, np.ndarray],
    wordsets: Mapping,
    *,
    test: str,
    names: tuple[str, str],
    seed: int,
    n_perm: int = N_PERM,
    n_boot: int = N_BOOT,
) -> tuple[list[dict], list[dict]]:
    """(rows, left out) of LPBS on one test's templates, a row per descriptor on its primary
    variant (every target, the nouns: ``full``); ``base``/``against``: each model's log-prob
    arrays (:func:`biasbench.scoring.templates.lpbs_rows`'s ``arrays``)."""
    out, left_out = [], []
    for descriptor, wordset in wordsets.items():
        n_x, n_a = len(wordset.sets["X"]), len(wordset.sets["A"])
        scores = [lpbs_scores(arrays, descriptor, n_x, n_a) for arrays in (base, against)]
        where = f"{test}/{descriptor}"
        row = _row("LPBS", scores, where, names, seed, n_perm, n_boot)
        (out if "why" not in row else left_out).append(row)
    return out, left_out


def pceat_rows(
    base: Mapping[str, np.ndarray],
    against: Mapping[str, np.ndarray],
    wordsets: Mapping,
    *,
    corpus: str,
    test: str,
    max_gap: int,
    ceat_samples: int,
    names: tuple[str, str],
    seed: int,
    n_perm: int = N_PERM,
    n_boot: int = N_BOOT,
) -> tuple[list[dict], list[dict]]:
    """(rows, left out) of p-CEAT on one test's contexts of a corpus, a row per descriptor on
    its primary variant (every target), the contexts within ``max_gap`` words, at most
    :data:`CEAT_SAMPLES` samples (as CEAT in a comparison); ``base``/``against``: each
    model's per-context arrays (:func:`biasbench.scoring.corpus.log_prob_arrays`)."""
    frames = [_contexts(arrays, max_gap) for arrays in (base, against)]
    samples = min(ceat_samples, CEAT_SAMPLES)
    out, left_out = [], []
    for descriptor, wordset in wordsets.items():
        where = f"{test}/{descriptor} ({corpus})"
        part_seed = derived_seed(seed, corpus, test, descriptor, "p-CEAT", *names)
        try:
            scores = [
                pceat_scores(
                    pair_contexts(frame, {descriptor: wordset}),
                    wordset.sets,
                    samples,
                    part_seed,
                    str(arrays["encoding"]),
                )
                for frame, arrays in zip(frames, (base, against), strict=True)
            ]
        except EmptySetError as exc:
            left_out.append({"dataset": where, "method": "p-CEAT", "why": str(exc)})
            continue
        row = _row("p-CEAT", scores, where, names, seed, n_perm, n_boot)
        (out if "why" not in row else left_out).append(row)
    return out, left_out


def _contexts(arrays: Mapping[str, np.ndarray], max_gap: int) -> pd.DataFrame:
    frame = pd.DataFrame({k: arrays[k] for k in ("target", "attribute", "gap", "log_pt", "log_pp")})
    return frame[frame["gap"] <= max_gap].reset_index(drop=True)


def _row(method, scores, where, names, seed, n_perm, n_boot) -> dict:
    """A measure's row of the comparison's table, or its left-out entry (a ``why``)."""
    why = not_comparable(*scores)
    if why:
        return {"dataset": where, "method": method, "why": why}
    encoding = scores[0].encoding
    part_seed = derived_seed(seed, where, method, encoding, *names)
    try:
        measured = attribute_measure(method, *scores, part_seed, n_perm, n_boot)
    except (EmptySetError, UndefinedEffectError) as exc:  # no effect on either model
        return {"dataset": where, "method": method, "why": str(exc)}
    return {
        "dataset": where,
        "method": method,
        "encoding": encoding,
        "variant": "full",
        "base": names[0],
        "against": names[1],
        **measured,
    }
