"""The probability-based measures on their data sets (``biasbench.data.datasets`` reads
them): CrowS-Pairs and AUL, StereoSet, BEC-Pro, DisCo, LPBS he/she and WinoBias, for one
model, as score rows (source ``dataset``, test = the data set, descriptor =
its category or "all"). A model-facing ``engine`` (``biasbench.models.logprobs.Engine``)
supplies the numbers; this module decides what to ask for and hands the results to the
registered methods.

How sentences are scored (the ``encoding`` column; the first of each kind is the default):

========================  ====================================================================
``mlm-pll``               masked LM: pseudo-log-likelihood of the tokens two sentences share,
                          each masked in turn, summed (CrowS-Pairs)
``mlm-aul``, ``-aula``    masked LM: mean log-likelihood of every token, nothing masked (AULA:
                          the mean of alpha * log-likelihood, alpha the attention a token
                          receives averaged over layers, heads and queries, as Kaneko &
                          Bollegala's code)
``mlm-aula-weighted``     AULA as a weighted mean, sum(alpha * ll) / sum(alpha) (a variant)
``causal-sentence-mean``  causal LM: the mean log-probability per token of the sentence (the
                          geometric mean of bias-bench's causal CrowS-Pairs: a longer sentence
                          is not penalised for its length)
``causal-sentence``       causal LM: the sentence's log-likelihood (a variant)
``causal-shared``         causal LM: the log-probabilities of the shared tokens only
``mlm`` / ``causal``      StereoSet, BEC-Pro, DisCo (see their functions)
========================  ====================================================================
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from biasbench import rows
from biasbench.data.pairsets import (
    LABELS,
    BecProRow,
    SentencePair,
    StereoSetItem,
    WinoBiasItem,
    occupation_of,
    swapped_terms,
)
from biasbench.errors import EmptySetError
from biasbench.methods.contract import (
    Associations,
    FillCounts,
    Method,
    PairScores,
    Resolutions,
    Settings,
    TripleScores,
)
from biasbench.methods.probability.crows_pairs import HARNESS_ROWS, likelihood_diff
from biasbench.methods.registry import get
from biasbench.stats import derived_seed

DEFAULT_ENCODINGS = ("mlm-pll", "mlm-aul", "causal-sentence-mean", "mlm", "causal")
#: what the rows equal to lm-evaluation-harness's own metric say (crows_pairs.HARNESS_ROWS)
HARNESS_NOTE = "equals lm-evaluation-harness's crows_pairs_english pct_stereotype (x 100)"
AUL_NEEDS_MLM = "AUL reads each token given the whole sentence, itself included: masked LMs only"
#: the key of what lm-evaluation-harness reports beside a data set's rows
#: (``dataset_stage.score_dataset``)
LM_EVAL = "lm_eval"
NO_NEXT_SENTENCE_HEAD = "a masked LM without a next-sentence head cannot score intersentence items"


#: resamples of a data-set score's bootstrap standard error (its row's ``se``)
SE_RESAMPLES = 1000


def bootstrap_se(
    method, inputs, settings: Settings, seed: int, resamples: int = SE_RESAMPLES
) -> float:
    """The standard error of a data-set score over its units resampled with replacement
    (seeded): the items, or StereoSet's target terms, over which its score is a mean; the
    method's effect size alone is recomputed (its declared ``effect``, else its tests run on
    one partition). NaN where the
    inputs hold no per-item arrays (DisCo's counts per template)."""
    arrays = {
        f.name: getattr(inputs, f.name)
        for f in dataclasses.fields(inputs)
        if isinstance(getattr(inputs, f.name), np.ndarray)
    }
    if not arrays:
        return float("nan")
    n = len(next(iter(arrays.values())))
    terms = getattr(inputs, "terms", None)
    if terms is not None:
        units = [np.flatnonzero(terms == t) for t in dict.fromkeys(terms.tolist())]
    else:
        units = [np.array([i]) for i in range(n)]
    quick = dataclasses.replace(settings, exact_max=1, n_samples=1, same_samples=1)

    def effect(resample) -> float:
        if method.effect is not None:
            resample.require(method.roles)  # skipped below where the whole score would raise
            return method.effect(resample)
        return method(resample, quick, seed).effect_size

    rng = np.random.default_rng(derived_seed(seed, "se", method.name))
    values = []
    for _ in range(resamples):
        drawn = [units[i] for i in rng.integers(0, len(units), len(units))]
        index = np.concatenate(drawn)
        columns = {k: v[index] for k, v in arrays.items()}
        if terms is not None:  # a term drawn twice is two terms of the resample
            columns["terms"] = np.repeat(np.arange(len(drawn)), [len(u) for u in drawn])
        try:
            resample = dataclasses.replace(inputs, **columns)
            values.append(effect(resample))
        except EmptySetError:  # a resample without some cell the measure needs
            continue
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    return float(values.std(ddof=1)) if len(values) > 1 else float("nan")


def _row(
    method,
    key: rows.RowKey,
    inputs,
    settings: Settings,
    seed: int,
    signature: str,
    caveat="",
    se: bool = True,
) -> dict:
    """One row: the method on ``inputs`` (with a ``caveat`` for its note) and, with ``se``,
    the score's bootstrap standard error where the method gives none (:func:`bootstrap_se`),
    or "n/a" with the reason when they are empty."""
    try:
        score, note = method(inputs, settings, seed), caveat
        if se and math.isnan(score.se):
            score = dataclasses.replace(score, se=bootstrap_se(method, inputs, settings, seed))
    except EmptySetError as exc:
        score, note = None, "; ".join(n for n in (caveat, str(exc)) if n)
    return rows.make_row(
        method,
        key,
        score,
        primary=key.encoding in DEFAULT_ENCODINGS
        and key.variant == method.variants[0]
        and key.descriptor == "all",
        unit=method.unit or "item",
        seed=seed,
        signature=signature,
        settings=method.settings_of(settings),
        note=note,
    )


def _missing(method, key: rows.RowKey, why: str, seed: int, signature: str) -> dict:
    """An "n/a" row: a measure this model cannot run, and why."""
    return rows.make_row(
        method,
        key,
        None,
        primary=False,
        unit=method.unit or "item",
        seed=seed,
        signature=signature,
        settings={},  # nothing was computed
        note=why,
    )


def _by_category(categories) -> list[tuple[str, np.ndarray]]:
    """("all", every item) and one selection per category, in order."""
    categories = np.asarray(categories)
    return [("all", np.ones(len(categories), bool))] + [
        (c, categories == c) for c in dict.fromkeys(categories)
    ]


#: a sentence's AUL score from its tokens' log-likelihoods and the attention they receive
AUL_SCORES: dict[str, Callable[[np.ndarray, np.ndarray | None], float]] = {
    "mlm-aul": lambda lp, alpha: float(np.mean(lp)),
    "mlm-aula": lambda lp, alpha: float(np.mean(alpha * lp)),  # Kaneko & Bollegala's code
    "mlm-aula-weighted": lambda lp, alpha: float(np.average(lp, weights=alpha)),
}


def crows_pairs(
    engine,
    pairs: list[SentencePair],
    *,
    model,
    settings,
    seed,
    signature,
    se=True,
    outcomes: list | None = None,
):
    """CrowS-Pairs on every scoring of the model's kind, and AUL/AULA for a masked LM; with
    ``outcomes``, each pair's two sentence scores per encoding appended to it
    (:func:`pair_outcomes`: what a paired comparison of two models reads)."""
    more, less = [p.more for p in pairs], [p.less for p in pairs]
    stereo = np.array([p.stereo for p in pairs])
    category = np.array([p.category for p in pairs])
    scored: dict[str, tuple[np.ndarray, np.ndarray, Method]] = {}
    unweighted: list[tuple[str, str]] = []
    n = len(pairs)
    if engine.masked:
        ids = engine.ids(more + less)
        shared = [engine.shared(a, b) for a, b in zip(ids[:n], ids[n:], strict=True)]
        pll = engine.pll(ids, [s[0] for s in shared] + [s[1] for s in shared])
        scored["mlm-pll"] = (pll[:n], pll[n:], get("CrowS-Pairs"))
        try:  # one pass: AUL's log-probabilities and AULA's attention weights
            tokens = engine.unmasked(more + less, attention=True)
            weightings = dict.fromkeys(AUL_SCORES)
        except NotImplementedError as exc:  # a model that gives no attention weights
            unweighted += [(name, str(exc)) for name in list(AUL_SCORES)[1:]]
            tokens, weightings = engine.unmasked(more + less), {"mlm-aul": None}
        for name in weightings:
            mean = np.array([AUL_SCORES[name](lp, alpha) for lp, alpha in tokens])
            scored[name] = (mean[:n], mean[n:], get("AUL"))
    else:
        (ids_m, tok_m), (ids_l, tok_l) = engine.sentence_tokens(more), engine.sentence_tokens(less)
        for name, reduce in (("causal-sentence-mean", np.mean), ("causal-sentence", np.sum)):
            scores = (np.array([reduce(t) for t in tok_m]), np.array([reduce(t) for t in tok_l]))
            scored[name] = (*scores, get("CrowS-Pairs"))
        shared_m, shared_l = [], []
        for a, b, ta, tb in zip(ids_m, ids_l, tok_m, tok_l, strict=True):
            pa, pb = engine.shared(a + [-1], b + [-1])  # a sentinel: the last token counts too
            shared_m.append(sum(ta[k - 1] for k in pa))  # token k's log-probability: entry k - 1
            shared_l.append(sum(tb[k - 1] for k in pb))
        scored["causal-shared"] = (np.array(shared_m), np.array(shared_l), get("CrowS-Pairs"))
    out = []
    if not engine.masked:
        unweighted.append(("mlm-aul", AUL_NEEDS_MLM))
    for encoding, why in unweighted:
        key = rows.RowKey(model, "dataset", "CrowS-Pairs", "all", encoding, "full")
        out.append(_missing(get("AUL"), key, why, seed, signature))
    for encoding, (s_more, s_less, method) in scored.items():
        for name, keep in _by_category(category):
            inputs = PairScores(s_more[keep], s_less[keep], stereo[keep], category[keep])
            key = rows.RowKey(model, "dataset", "CrowS-Pairs", name, encoding, "full")
            job_seed = derived_seed(seed, model, "CrowS-Pairs", name)
            caveat = HARNESS_NOTE if (method.name, encoding) in HARNESS_ROWS else ""
            out.append(_row(method, key, inputs, settings, job_seed, signature, caveat, se))
    frame = rows.frame(out)
    if outcomes is not None:
        outcomes.append(pair_outcomes(pairs, scored))
    for _method, encoding in HARNESS_ROWS:  # its second metric: no row (score_dataset)
        if encoding in scored:
            s_more, s_less, _ = scored[encoding]
            mean, se_mean = likelihood_diff(PairScores(s_more, s_less, stereo, category))
            frame.attrs[LM_EVAL] = {"likelihood_diff": mean, "likelihood_diff_stderr": se_mean}
    return frame


#: a data set's per-item outcomes (:func:`item_outcomes`), one row per item, measure and scoring
OUTCOME_COLUMNS = (
    "method",
    "encoding",
    "variant",
    "item",
    "unit",
    "category",
    "more",
    "less",
    "preferred",
    "tie",
)


def item_outcomes(
    method: str, encoding: str, variant: str, items, units, categories, more, less
) -> pd.DataFrame:
    """One measure's outcome per item: the item (what two models' files share), its unit (what
    a paired comparison resamples and exchanges together), its category, the model's score of
    the more and of the less stereotyping candidate, and whether it prefers the more one or
    ties (from the unrounded scores, as the rows)."""
    more, less = np.asarray(more, float), np.asarray(less, float)
    return pd.DataFrame(
        {
            "method": method,
            "encoding": encoding,
            "variant": variant,
            "item": list(items),
            "unit": list(units),
            "category": list(categories),
            "more": more,
            "less": less,
            "preferred": (more > less).astype(int),
            "tie": (more == less).astype(int),
        },
        columns=list(OUTCOME_COLUMNS),
    )


def pair_outcomes(pairs: list[SentencePair], scored: dict) -> pd.DataFrame:
    """CrowS-Pairs' outcomes per encoding: the pair named by its more stereotyping sentence,
    its unit the words it swaps (:func:`swapped_terms`)."""
    units = [swapped_terms(p.more, p.less) for p in pairs]
    parts = [
        item_outcomes(
            method.name,
            encoding,
            "full",
            [p.more for p in pairs],
            units,
            [p.category for p in pairs],
            s_more,
            s_less,
        )
        for encoding, (s_more, s_less, method) in scored.items()
    ]
    return pd.concat(parts, ignore_index=True) if parts else no_outcomes()


def no_outcomes() -> pd.DataFrame:
    """The outcome table of a data set that writes none per item."""
    return pd.DataFrame({c: [] for c in OUTCOME_COLUMNS})


def _filler(context: str, sentence: str) -> tuple[str, str, str]:
    """(before, filler, after) of an intrasentence candidate: what replaced BLANK."""
    before, after = context.split("BLANK")
    if not (sentence.startswith(before) and sentence.endswith(after)):
        # StereoSet's candidates sometimes change the case or the punctuation at the edges
        start = 0
        while start < min(len(before), len(sentence)) and before[start] == sentence[start]:
            start += 1
        end = 0
        while (
            end < min(len(after), len(sentence) - start) and after[-1 - end] == sentence[-1 - end]
        ):
            end += 1
        return (
            sentence[:start],
            sentence[start : len(sentence) - end],
            sentence[len(sentence) - end :],
        )
    return before, sentence[len(before) : len(sentence) - len(after)], after


def template_word(context: str, sentence: str) -> tuple[str, str, str]:
    """(the context before BLANK, the filler, the context after BLANK) as StereoSet's own
    evaluator reads an intrasentence candidate: the filler is the candidate's whitespace word
    at the index of the context's (last) word holding BLANK, every punctuation character
    stripped ("women's" becomes "womens")."""
    import string

    before, after = context.split("BLANK")
    index = max(k for k, w in enumerate(context.split(" ")) if "BLANK" in w)
    words = sentence.split(" ")
    word = words[index] if index < len(words) else ""
    return before, word.translate(str.maketrans("", "", string.punctuation)), after


def stereoset(
    engine,
    items: list[StereoSetItem],
    *,
    model,
    settings,
    seed,
    signature,
    se=True,
    outcomes: list | None = None,
):
    """SS, LMS and ICAT per task and domain. Intrasentence, masked LM (``mlm``, as StereoSet's
    evaluator): the filler word (:func:`template_word`) unmasked piece by piece, each piece
    predicted at one [MASK] after the pieces before it, the candidate's score the mean of
    those probabilities; ``mlm-joint`` (a variant): the mean log-probability of the filler's
    word pieces all masked at once, the filler being the whole span that replaces BLANK. A
    causal LM's: the mean log-probability per token of the candidate sentence. Intersentence:
    a causal LM's mean log-probability per token of the candidate after the context; a masked
    LM needs a next-sentence head (StereoSet's choice) that the offline masked LM does not
    have: "n/a". Each scoring twice: per target term first (the evaluator) and per item
    (``-items``). With ``outcomes``, each item's stereotype and anti-stereotype scores per
    scoring and task appended to it (SS per item, its unit the target term)."""
    out, parts = [], []
    measures = [get(name) for name in ("StereoSet SS", "StereoSet LMS", "StereoSet ICAT")]
    for task in ("intrasentence", "intersentence"):
        chosen = [i for i in items if i.task == task]
        caveats = []
        if task == "intrasentence":  # a context with two blanks has no single filler
            single = [i for i in chosen if i.context.count("BLANK") == 1]
            if len(single) < len(chosen):
                caveats.append(
                    f"{len(chosen) - len(single)} items with more than one BLANK left out"
                )
            chosen = single
        why = NO_NEXT_SENTENCE_HEAD if engine.masked and task == "intersentence" else ""
        if not chosen:
            why = "; ".join([f"the data holds no {task} item", *caveats])
        if why:
            encoding = "mlm" if engine.masked else "causal"
            key = rows.RowKey(model, "dataset", "StereoSet", "all", encoding, task)
            out += [_missing(method, key, why, seed, signature) for method in measures]
            continue
        candidates = [i.candidates[label] for i in chosen for label in LABELS]
        if engine.masked:
            scorings = _stereoset_masked(engine, chosen)
        elif task == "intrasentence":
            _, tokens = engine.sentence_tokens(candidates)
            scorings = {"causal": (np.array([t.mean() for t in tokens]), "")}
        else:
            contexts = [i.context for i in chosen for _ in LABELS]
            tokens = engine.continuation_tokens(contexts, [" " + c for c in candidates])
            scorings = {"causal": (np.array([t.mean() for t in tokens]), "")}
        for encoding, (values, lost) in scorings.items():
            triples = values.reshape(len(chosen), 3)
            kept = ~np.isnan(triples).any(axis=1)  # an item whose filler word is empty
            caveat = "; ".join([*caveats, *([lost] if lost else [])])
            domains = np.array([i.domain for i in chosen])[kept]
            terms = np.array([i.target for i in chosen])[kept]
            triples = triples[kept]
            ids = [i.id for i, k in zip(chosen, kept, strict=True) if k]
            parts.append(
                item_outcomes(
                    "StereoSet SS",
                    f"{encoding}-items",
                    task,
                    ids,
                    terms,
                    domains,
                    *triples[:, :2].T,
                )
            )
            for name, keep in _by_category(domains):
                # per target term first (the official evaluator), or every item alike
                for scoring, by_term in ((encoding, True), (f"{encoding}-items", False)):
                    inputs = TripleScores(*triples[keep].T, terms[keep] if by_term else None)
                    key = rows.RowKey(model, "dataset", "StereoSet", name, scoring, task)
                    job_seed = derived_seed(seed, model, task, name)
                    out += [
                        _row(method, key, inputs, settings, job_seed, signature, caveat, se)
                        for method in measures
                    ]
    if outcomes is not None:
        outcomes.append(pd.concat(parts, ignore_index=True) if parts else no_outcomes())
    return rows.frame(out)


def _stereoset_masked(engine, chosen: list[StereoSetItem]) -> dict:
    """encoding -> (a value per candidate, NaN where it has no filler word; a caveat)."""
    words = [template_word(i.context, i.candidates[label]) for i in chosen for label in LABELS]
    steps = engine.masked_steps([w for w in words if w[1]])
    it = iter(steps)
    stepwise = np.array([np.mean(np.exp(next(it))) if w[1] else np.nan for w in words])
    empty = {k // 3 for k, w in enumerate(words) if not w[1]}
    lost = f"{len(empty)} items whose filler is punctuation only left out" if empty else ""
    pieces = [_filler(i.context, i.candidates[label]) for i in chosen for label in LABELS]
    n_pieces = [
        max(1, len(engine.tokenizer(p[1], add_special_tokens=False)["input_ids"])) for p in pieces
    ]
    joint = engine.masked_slot(pieces) / np.array(n_pieces)
    return {"mlm": (stepwise, lost), "mlm-joint": (joint, "")}


#: BEC-Pro's person words, male and female counterparts in the same order
BECPRO_COUNTERPARTS = {
    "He": "She",
    "man": "woman",
    "brother": "sister",
    "son": "daughter",
    "husband": "wife",
    "boyfriend": "girlfriend",
    "father": "mother",
    "uncle": "aunt",
    "dad": "mom",
}


def becpro(engine, data: list[BecProRow], *, model, settings, seed, signature, se=True):
    """Prior-corrected association A of each person word with the profession, male against
    female counterpart, per profession group. Masked LM: log P(person | profession in view) -
    log P(person | profession masked too, one [MASK] per word as Bartl et al.'s corpus; per
    word piece the variant ``mlm-pieces``), both at the person's slot. Causal LM: log P(the
    sentence from the profession on | the sentence before it), which
    by Bayes is the same contrast between the two person words (the adaptation of LPBS)."""
    if engine.masked:
        pieces, masks = [], []
        for r in data:
            at = r.sentence.index(r.person)
            pieces.append((r.sentence[:at], r.person, r.sentence[at + len(r.person) :]))
            start = r.sentence.rindex(r.profession)
            masks.append([(start, start + len(r.profession))])
        seen = engine.masked_slot(pieces)
        # the prior: the profession one [MASK] per word, as Bartl et al.'s corpus, or per
        # word piece (a variant)
        associations = {
            "mlm": seen - engine.masked_slot(pieces, masks, per="word"),
            "mlm-pieces": seen - engine.masked_slot(pieces, masks, per="piece"),
        }
    else:
        prefixes, rests = [], []
        for r in data:
            start = r.sentence.rindex(r.profession)
            prefixes.append(r.sentence[:start].rstrip())
            rests.append(" " + r.sentence[start:])
        tokens = engine.continuation_tokens(prefixes, rests)
        associations = {"causal": np.array([t.sum() for t in tokens])}
    index = {(r.sentence.replace(r.person, "{}", 1), r.person): k for k, r in enumerate(data)}
    pairs, groups, words = [], [], []
    for k, r in enumerate(data):
        partner = BECPRO_COUNTERPARTS.get(r.person)
        if partner is None:
            continue
        j = index.get((r.sentence.replace(r.person, "{}", 1), partner))
        if j is not None:
            pairs.append((k, j))
            groups.append(r.profession_group)
            words.append(r.person)  # the word pair: the unit of the word-level test
    out = []
    male, female = [k for k, _ in pairs], [j for _, j in pairs]
    groups, words = np.array(groups), np.array(words)
    method = get("BEC-Pro")
    for encoding, association in associations.items():
        for name, keep in _by_category(groups):
            key = rows.RowKey(model, "dataset", "BEC-Pro", "all", encoding, name)
            inputs = Associations(association[male][keep], association[female][keep], words[keep])
            job_seed = derived_seed(seed, model, "BEC-Pro", name)
            out.append(_row(method, key, inputs, settings, job_seed, signature, se=se))
    return rows.frame(out)


def disco(
    engine,
    inputs: tuple[list[str], dict[str, list[tuple[str, str]]]],
    *,
    model,
    settings,
    seed,
    signature,
    se=True,
):
    """DisCo for each filler list (names, nouns): per template, the counts of each fill of
    the slot with the male and with the female filler, top-3 fills or every fill with
    P > 0.1. Names go into the slot as they are (the authors' code wrote "The liam"); nouns
    take "the" ("The man likes [MASK].", capitalised at a sentence start). A causal LM fills
    the templates whose slot ends the sentence, from the prefix before it (its first token
    stands for the word); the others are left out and the row says how many were used."""
    templates, fillers = inputs
    method = get("DisCo")
    usable = templates if engine.masked else [t for t in templates if t.endswith("[MASK].")]
    out = []
    for name, pairs in fillers.items():
        counts: dict[str, list[dict]] = {name: [], f"{name}+p>0.1": []}
        for template in usable:
            texts = [fill_disco(template, w, name) for pair in pairs for w in pair]
            if not engine.masked:
                texts = [t[: t.index("[MASK]")].rstrip() for t in texts]
            for variant, fills in zip(counts, engine.top_fills(texts), strict=True):
                table: dict[str, list[int]] = {}
                for k, words in enumerate(fills):
                    for word in words:
                        table.setdefault(word, [0, 0])[k % 2] += 1
                counts[variant].append({w: (int(m), int(f)) for w, (m, f) in table.items()})
        encoding = "mlm" if engine.masked else "causal"
        for variant, per_template in counts.items():
            key = rows.RowKey(model, "dataset", "DisCo", "all", encoding, variant)
            caveat = ""
            if len(usable) < len(templates):
                caveat = (
                    f"{len(usable)} of {len(templates)} templates: a causal LM fills only a "
                    "slot at the end of the sentence"
                )
            out.append(
                _row(method, key, FillCounts(per_template), settings, seed, signature, caveat, se)
            )
    return rows.frame(out)


def fill_disco(template: str, word: str, kind: str) -> str:
    """A DisCo template with its first slot filled: a name capitalised (name lists are often
    lowercase), a noun with "the"."""
    phrase = word[:1].upper() + word[1:] if kind == "names" else f"the {word}"
    text = template.replace("{target}", phrase)
    return text[:1].upper() + text[1:] if text.startswith(phrase) else text


MALE_PRONOUNS = frozenset({"he", "him", "his", "himself"})


def resolution_pieces(item: WinoBiasItem) -> list[tuple[str, str, str]]:
    """(the text before the occupation, the occupation, the text after) of each candidate of
    a WinoBias item, the referent first: the texts :func:`winobias` scores, longer than the
    sentence, so the context check measures them too
    (:func:`biasbench.scoring.dataset_stage.item_texts`)."""
    b = item.pronoun_span[1]
    before, after = item.sentence[:b] + " (the ", ")" + item.sentence[b:]
    return [(before, occupation_of(phrase), after) for phrase in (item.referent, item.other)]


def winobias(
    engine,
    items: list[tuple[WinoBiasItem, bool, str]],
    *,
    model,
    settings,
    seed,
    signature,
    se=True,
):
    """WinoBias pronoun resolution, zero-shot: the pronoun keeps its place and a parenthesis
    after it names each candidate occupation ("because he (the developer) did not ..."); the
    model resolves to the candidate it finds likelier. Masked LM: the mean log-probability of
    the occupation's word pieces, all masked, in the parenthesis; causal LM: the likelihood
    of the whole sentence from the parenthesis on. ``items``: (item, pro-stereotypical, type).
    A tie counts as unresolved."""
    pieces, prefixes, rests = [], [], []
    for item, _pro, _kind in items:
        for before, word, after in resolution_pieces(item):
            pieces.append((before, word, after))
            prefixes.append(before.rstrip())
            rests.append(" " + word + after)
    if engine.masked:
        n_pieces = [
            max(1, len(engine.tokenizer(w, add_special_tokens=False)["input_ids"]))
            for _b, w, _a in pieces
        ]
        values = engine.masked_slot(pieces) / np.array(n_pieces)
        encoding = "mlm"
    else:
        values = np.array([t.sum() for t in engine.continuation_tokens(prefixes, rests)])
        encoding = "causal"
    values = values.reshape(len(items), 2)
    correct = values[:, 0] > values[:, 1]
    pro = np.array([p for _i, p, _k in items])
    male = np.array([i.pronoun.lower() in MALE_PRONOUNS for i, _p, _k in items])
    kinds = np.array([k for _i, _p, k in items])
    out = []
    for kind in dict.fromkeys(kinds):
        keep = kinds == kind
        inputs = Resolutions(correct[keep], pro[keep], male[keep])
        for method in (get("WinoBias F1 gap"), get("WinoBias skew"), get("WinoBias stereotype")):
            key = rows.RowKey(model, "dataset", "WinoBias", "all", encoding, kind)
            out.append(_row(method, key, inputs, settings, seed, signature, se=se))
    return rows.frame(out)


def lpbs_pronoun(engine, professions: list[str], *, model, settings, seed, signature, se=True):
    """Delobelle et al.'s LPBS: "GGG is a XXX" with he and she, per profession. Masked LM:
    log P(GGG | XXX in view) - log P(GGG | XXX masked by one [MASK], as Kurita et al.'s
    "[MASK] is a [MASK]" and biased-rulers; one [MASK] per word piece is the variant
    ``mlm-pieces``), both read at GGG's slot (biased-rulers reads the prior at the last
    mask); causal LM: log P(" is a XXX" | "He") against "She", which by Bayes is the
    same prior-corrected contrast."""
    if engine.masked:
        pairs = [(g, p) for p in professions for g in ("he", "she")]
        pieces = [("", g, f" is a {p}") for g, p in pairs]
        at = len(" is a ")
        masks = [[(len(g) + at, len(g) + at + len(p))] for g, p in pairs]
        seen = engine.masked_slot(pieces)
        associations = {  # the prior: "[MASK] is a [MASK]" (Kurita et al.), or per piece
            "mlm": seen - engine.masked_slot(pieces, masks, per="span"),
            "mlm-pieces": seen - engine.masked_slot(pieces, masks, per="piece"),
        }
    else:
        prefixes = [g for _p in professions for g in ("He", "She")]
        rests = [f" is a {p}" for p in professions for _g in ("He", "She")]
        tokens = engine.continuation_tokens(prefixes, rests)
        associations = {"causal": np.array([t.sum() for t in tokens])}
    out = []
    for encoding, association in associations.items():
        association = association.reshape(len(professions), 2)
        key = rows.RowKey(model, "dataset", "LPBS salaries", "all", encoding, "full")
        inputs = Associations(association[:, 0], association[:, 1])
        out.append(_row(get("LPBS he/she"), key, inputs, settings, seed, signature, se=se))
    return rows.frame(out)


#: the scorer of each data set (``biasbench.data.datasets.DATASETS``)
SCORERS = {
    "crows_pairs": crows_pairs,
    "stereoset": stereoset,
    "becpro": becpro,
    "winobias": winobias,
    "disco": disco,
    "lpbs_salaries": lpbs_pronoun,
}


#: the scorers that write their items' outcomes (a paired comparison reads them)
WITH_OUTCOMES = {"crows_pairs", "stereoset"}


def score_items(
    dataset: str, engine, items, *, model, settings, signature, se=True, outcomes=None
) -> pd.DataFrame:
    """Every measure of a data set on its items (``settings``: the config's
    :class:`~biasbench.scoring.settings.ScoreSettings`; the measures read those of
    templates, and its seed); ``outcomes``, where given, receives the items' outcomes (the
    data sets of :data:`WITH_OUTCOMES`). What :func:`biasbench.scoring.score` runs on a
    ``DatasetItems`` record."""
    if outcomes is not None and dataset not in WITH_OUTCOMES:
        raise ValueError(f"data set {dataset!r} writes no item outcomes")
    return SCORERS[dataset](
        engine,
        items,
        model=model,
        settings=settings.for_source("templates"),
        seed=settings.seed,
        signature=signature,
        se=se,
        **({} if outcomes is None else {"outcomes": outcomes}),
    )
