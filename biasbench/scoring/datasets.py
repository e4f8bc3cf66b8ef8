"""The probability-based measures on their data sets: CrowS-Pairs and AUL, StereoSet, BEC-Pro
and DisCo, for one model, as score rows (source ``dataset``, test = the data set, descriptor =
its category or "all"). A model-facing ``engine`` (``biasbench.models.logprobs.Engine``)
supplies the numbers; this module decides what to ask for and hands the results to the
registered methods.

How sentences are scored (the ``encoding`` column; the first of each kind is the default):

========================  ====================================================================
``mlm-pll``               masked LM: pseudo-log-likelihood of the tokens two sentences share,
                          each masked in turn, summed (CrowS-Pairs)
``mlm-aul``, ``-aula``    masked LM: mean log-likelihood of every token, nothing masked (AULA:
                          weighted by the attention each token receives)
``causal-sentence``       causal LM: the sentence's log-likelihood
``causal-shared``         causal LM: the log-probabilities of the shared tokens only
``mlm`` / ``causal``      StereoSet, BEC-Pro, DisCo (see their functions)
========================  ====================================================================
"""

from __future__ import annotations

import numpy as np

from biasbench import rows
from biasbench.data.pairsets import BecProRow, SentencePair, StereoSetItem
from biasbench.errors import EmptySetError
from biasbench.methods.contract import (
    Associations,
    FillCounts,
    Method,
    PairScores,
    Settings,
    TripleScores,
)
from biasbench.methods.registry import get
from biasbench.stats import derived_seed

DEFAULT_ENCODINGS = ("mlm-pll", "mlm-aul", "causal-sentence", "mlm", "causal")
NO_NEXT_SENTENCE_HEAD = "a masked LM without a next-sentence head cannot score intersentence items"


def _row(method, key: rows.RowKey, inputs, settings: Settings, seed: int, signature: str) -> dict:
    """One row: the method on ``inputs``, or "n/a" with the reason when they are empty."""
    try:
        score, note = method(inputs, settings, seed), ""
    except EmptySetError as exc:
        score, note = None, str(exc)
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
        note=note,
    )


def _by_category(categories) -> list[tuple[str, np.ndarray]]:
    """("all", every item) and one selection per category, in order."""
    categories = np.asarray(categories)
    return [("all", np.ones(len(categories), bool))] + [
        (c, categories == c) for c in dict.fromkeys(categories)
    ]


def crows_pairs(engine, pairs: list[SentencePair], *, model, settings, seed, signature):
    """CrowS-Pairs on every scoring of the model's kind, and AUL/AULA for a masked LM."""
    more, less = [p.more for p in pairs], [p.less for p in pairs]
    stereo = np.array([p.stereo for p in pairs])
    category = np.array([p.category for p in pairs])
    scored: dict[str, tuple[np.ndarray, np.ndarray, Method]] = {}
    if engine.masked:
        ids_m, ids_l = engine.ids(more), engine.ids(less)
        shared = [engine.shared(a, b) for a, b in zip(ids_m, ids_l, strict=True)]
        pll = (engine.pll(ids_m, [s[0] for s in shared]), engine.pll(ids_l, [s[1] for s in shared]))
        scored["mlm-pll"] = (*pll, get("CrowS-Pairs"))
        for name, weighted in (("mlm-aul", False), ("mlm-aula", True)):
            per_sentence = []
            for sentences in (more, less):
                tokens = engine.unmasked(sentences, attention=weighted)
                per_sentence.append(
                    np.array([np.average(lp, weights=w if weighted else None) for lp, w in tokens])
                )
            scored[name] = (*per_sentence, get("AUL"))
    else:
        (ids_m, tok_m), (ids_l, tok_l) = engine.sentence_tokens(more), engine.sentence_tokens(less)
        sums = (np.array([t.sum() for t in tok_m]), np.array([t.sum() for t in tok_l]))
        scored["causal-sentence"] = (*sums, get("CrowS-Pairs"))
        shared_m, shared_l = [], []
        for a, b, ta, tb in zip(ids_m, ids_l, tok_m, tok_l, strict=True):
            pa, pb = engine.shared(a + [-1], b + [-1])  # a sentinel: the last token counts too
            shared_m.append(sum(ta[k - 1] for k in pa))  # token k's log-probability: entry k - 1
            shared_l.append(sum(tb[k - 1] for k in pb))
        scored["causal-shared"] = (np.array(shared_m), np.array(shared_l), get("CrowS-Pairs"))
    out = []
    for encoding, (s_more, s_less, method) in scored.items():
        for name, keep in _by_category(category):
            inputs = PairScores(s_more[keep], s_less[keep], stereo[keep], category[keep])
            key = rows.RowKey(model, "dataset", "CrowS-Pairs", name, encoding, "full")
            job_seed = derived_seed(seed, model, "CrowS-Pairs", name)
            out.append(_row(method, key, inputs, settings, job_seed, signature))
    return rows.frame(out)


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


def stereoset(engine, items: list[StereoSetItem], *, model, settings, seed, signature):
    """SS, LMS and ICAT per task and domain. Intrasentence: a masked LM's mean log-probability
    of the filler's word pieces, all masked (the filler is what replaces BLANK); a causal LM's
    mean log-probability per token of the candidate sentence. Intersentence: a causal LM's
    mean log-probability per token of the candidate after the context; a masked LM needs a
    next-sentence head (StereoSet's choice) that the offline masked LM does not have: "n/a"."""
    out = []
    for task in ("intrasentence", "intersentence"):
        chosen = [i for i in items if i.task == task]
        labels = ("stereotype", "anti-stereotype", "unrelated")
        if engine.masked and task == "intersentence":
            for method in (get("StereoSet SS"), get("StereoSet LMS"), get("StereoSet ICAT")):
                key = rows.RowKey(model, "dataset", "StereoSet", "all", "mlm", task)
                out.append(
                    rows.make_row(
                        method,
                        key,
                        None,
                        primary=False,
                        unit="item",
                        seed=seed,
                        signature=signature,
                        note=NO_NEXT_SENTENCE_HEAD,
                    )
                )
            continue
        candidates = [i.candidates[label] for i in chosen for label in labels]
        if engine.masked:
            pieces = [_filler(i.context, i.candidates[label]) for i in chosen for label in labels]
            n_pieces = [
                max(1, len(engine.tokenizer(p[1], add_special_tokens=False)["input_ids"]))
                for p in pieces
            ]
            values = engine.masked_slot(pieces) / np.array(n_pieces)
            encoding = "mlm"
        elif task == "intrasentence":
            _, tokens = engine.sentence_tokens(candidates)
            values = np.array([t.mean() for t in tokens])
            encoding = "causal"
        else:
            contexts = [i.context for i in chosen for _ in labels]
            tokens = engine.continuation_tokens(contexts, [" " + c for c in candidates])
            values = np.array([t.mean() for t in tokens])
            encoding = "causal"
        triples = values.reshape(len(chosen), 3)
        domains = np.array([i.domain for i in chosen])
        for name, keep in _by_category(domains):
            inputs = TripleScores(triples[keep, 0], triples[keep, 1], triples[keep, 2])
            for method in (get("StereoSet SS"), get("StereoSet LMS"), get("StereoSet ICAT")):
                key = rows.RowKey(model, "dataset", "StereoSet", name, encoding, task)
                out.append(
                    _row(
                        method,
                        key,
                        inputs,
                        settings,
                        derived_seed(seed, model, task, name),
                        signature,
                    )
                )
    return rows.frame(out)


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


def becpro(engine, data: list[BecProRow], *, model, settings, seed, signature):
    """Prior-corrected association A of each person word with the profession, male against
    female counterpart, per profession group. Masked LM: log P(person | profession in view) -
    log P(person | profession masked too, one [MASK] per word piece), both at the person's
    slot. Causal LM: log P(the sentence from the profession on | the sentence before it), which
    by Bayes is the same contrast between the two person words (the adaptation of LPBS)."""
    if engine.masked:
        pieces, masks = [], []
        for r in data:
            at = r.sentence.index(r.person)
            pieces.append((r.sentence[:at], r.person, r.sentence[at + len(r.person) :]))
            start = r.sentence.rindex(r.profession)
            masks.append([(start, start + len(r.profession))])
        association = engine.masked_slot(pieces) - engine.masked_slot(pieces, masks)
        encoding = "mlm"
    else:
        prefixes, rests = [], []
        for r in data:
            start = r.sentence.rindex(r.profession)
            prefixes.append(r.sentence[:start].rstrip())
            rests.append(" " + r.sentence[start:])
        association = np.array([t.sum() for t in engine.continuation_tokens(prefixes, rests)])
        encoding = "causal"
    index = {(r.sentence.replace(r.person, "{}", 1), r.person): k for k, r in enumerate(data)}
    male, female, groups = [], [], []
    for k, r in enumerate(data):
        partner = BECPRO_COUNTERPARTS.get(r.person)
        if partner is None:
            continue
        j = index.get((r.sentence.replace(r.person, "{}", 1), partner))
        if j is not None:
            male.append(association[k])
            female.append(association[j])
            groups.append(r.profession_group)
    out = []
    male, female, groups = np.array(male), np.array(female), np.array(groups)
    method = get("BEC-Pro")
    for name, keep in _by_category(groups):
        key = rows.RowKey(model, "dataset", "BEC-Pro", "all", encoding, name)
        inputs = Associations(male[keep], female[keep])
        out.append(
            _row(
                method, key, inputs, settings, derived_seed(seed, model, "BEC-Pro", name), signature
            )
        )
    return rows.frame(out)


def disco(
    engine,
    templates: list[str],
    fillers: dict[str, list[tuple[str, str]]],
    *,
    model,
    settings,
    seed,
    signature,
):
    """DisCo for each filler list (names, nouns): per template, the counts of each fill of
    [MASK] with the male and with the female filler, top-3 fills or every fill with P > 0.1.
    Names go into the slot as they are (the authors' code wrote "The liam"); nouns take "the"
    ("The man likes [MASK].", capitalised at a sentence start). A causal LM has no slot to
    fill in the middle of a sentence: DisCo runs on masked LMs (the rows of a causal LM say so)."""
    method = get("DisCo")
    out = []
    for name, pairs in fillers.items():
        for rule, variant in (({"k": 3}, name), ({"threshold": 0.1}, f"{name}+p>0.1")):
            key = rows.RowKey(
                model, "dataset", "DisCo", "all", "mlm" if engine.masked else "causal", variant
            )
            if not engine.masked:
                out.append(
                    rows.make_row(
                        method,
                        key,
                        None,
                        primary=False,
                        unit="template",
                        seed=seed,
                        signature=signature,
                        note="DisCo fills a [MASK] slot: masked LMs only",
                    )
                )
                continue
            counts = []
            for template in templates:
                texts = [fill_disco(template, w, name) for pair in pairs for w in pair]
                fills = engine.top_fills(texts, **rule)
                table: dict[str, list[int]] = {}
                for k, words in enumerate(fills):
                    for word in words:
                        table.setdefault(word, [0, 0])[k % 2] += 1
                counts.append({w: (int(m), int(f)) for w, (m, f) in table.items()})
            out.append(_row(method, key, FillCounts(counts), settings, seed, signature))
    return rows.frame(out)


def fill_disco(template: str, word: str, kind: str) -> str:
    """A DisCo template with its first slot filled: a name as it is, a noun with "the"."""
    phrase = word if kind == "names" else f"the {word}"
    text = template.replace("{target}", phrase)
    return text[:1].upper() + text[1:] if text.startswith(phrase) else text
