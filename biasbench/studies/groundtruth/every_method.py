"""Every registered method on the ground-truth study's models, each scored against the bias
injected into them: the validity league's truth column for the whole embedding family and for
LPBS, not only for the data sets.

The study's own test (``groundtruth/occupations``): targets X and Y are the study's occupations
that debiaswe rates male and female stereotyped, attributes A and B its definitional male and
female words (paired, for Direct Bias and RIPA). Each study model encodes the test in the configured
single-slot templates with its trained top layers over the frozen lower layers, which are
computed once for all models of a job; every method then scores them exactly as it scores a
zoo model (``score_file``), and again on random halves of the words and of the templates (how
far word and template choice move a score, against how far the injected bias moves it).

What a method's score should rise with: its declared truth (``Method.truth``).
"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd

from biasbench.data.contexts import template_contexts
from biasbench.data.wordsets import WordSet
from biasbench.rows import frame as rows_frame
from biasbench.studies.groundtruth.data import StudyData
from biasbench.studies.groundtruth.surgery import forward

TEST, DESCRIPTOR = "groundtruth", "occupations"
#: the columns of the reliability halves (each facet, split and half of a model's score)
HALVES_COLUMNS = ["model", "method", "resample", "split", "half", "effect_size"]


def few_partitions(settings):
    """``settings`` with tests on few partitions: for scores whose effect sizes alone are
    kept (the reliability halves), which no effect size reads."""
    return replace(settings, exact_max=0, n_samples=99, same_samples=99)


def study_wordset(data: StudyData) -> WordSet:
    """The study's occupations split by debiaswe's stereotype (those it rates neither way are
    left out) against its definitional pairs."""
    return WordSet(
        test=TEST,
        descriptor=DESCRIPTOR,
        source="Schröder et al. (2021) section 5; stereotypes and pairs of debiaswe",
        target_kind="person",
        attribute_kind="basic",
        sets={
            "X": tuple(o for o, s in zip(data.occupations, data.stereotype, strict=True) if s > 0),
            "Y": tuple(o for o, s in zip(data.occupations, data.stereotype, strict=True) if s < 0),
            "A": tuple(data.male),
            "B": tuple(data.female),
        },
        labels={
            "X": "male-stereotyped occupations",
            "Y": "female-stereotyped occupations",
            "A": "male definitional words",
            "B": "female definitional words",
        },
        paired=True,
    )


class StudyEncoder:
    """A study model as ``encode_transformer`` calls an encoder: the frozen lower layers once
    per batch of inputs (``cache``, shared by the models of a job: the batches repeat), then
    the model's trained top layers at every position."""

    def __init__(self, shared):
        self.shared, self.config = shared, shared.config

    @property
    def device(self):
        return self.shared.device

    def __call__(self, input_ids, attention_mask, output_hidden_states=False):
        import torch

        if output_hidden_states:
            raise NotImplementedError("a study model gives its last layer only")
        lower = self.shared.lower_states(input_ids, attention_mask)
        n, width = input_ids.shape
        every = torch.arange(width, device=input_ids.device).expand(n, width)
        with torch.inference_mode():
            top = forward(self.shared.layers, lower, attention_mask, every)
        return SimpleNamespace(last_hidden_state=top)


def halves(
    frame: pd.DataFrame, resample: str, rng: np.random.Generator, pairs: list[tuple[str, str]]
) -> np.ndarray:
    """A mask of the contexts that keep a random half of the templates of each group
    (``templates``; the group read from ``provenance``), or of the X and Y words and of the
    definitional pairs (``words``); its complement is the other half."""
    if resample == "templates":
        group = frame["provenance"].str.split("[").str[0]
        keep = np.zeros(len(frame), bool)
        for name in sorted(set(group)):
            values = sorted(set(frame["provenance"][group == name]))
            chosen = rng.choice(values, size=max(1, len(values) // 2), replace=False)
            keep |= frame["provenance"].isin(chosen).to_numpy()
        return keep
    chosen = set()
    for role in ("X", "Y"):
        words = list(dict.fromkeys(frame["stimulus"][frame["role"] == role]))
        chosen |= {
            (role, w) for w in rng.choice(words, size=max(1, len(words) // 2), replace=False)
        }
    for i in rng.choice(len(pairs), size=max(1, len(pairs) // 2), replace=False):
        chosen |= {("A", pairs[i][0]), ("B", pairs[i][1])}
    return np.array(
        [(r, w) in chosen for r, w in zip(frame["role"], frame["stimulus"], strict=True)]
    )


def lpbs_wordset(data: StudyData) -> WordSet:
    """LPBS's form of the study's test: he against she in the pronoun slot, the occupations
    split by stereotype in the other."""
    occupations = study_wordset(data)
    return WordSet(
        test=TEST,
        descriptor=DESCRIPTOR,
        source=occupations.source,
        target_kind="",
        attribute_kind="",
        sets={"X": ("he",), "Y": ("she",), "A": occupations.sets["X"], "B": occupations.sets["Y"]},
        labels={
            "X": "he",
            "Y": "she",
            "A": "male-stereotyped occupations",
            "B": "female-stereotyped occupations",
        },
    )


def lpbs_templates(data: StudyData):
    """The study's subject test templates whose pronoun comes before the occupation (LPBS's
    double templates put the target first) as one template category."""
    from biasbench.data.templates import DoubleTemplates

    first = [t for t in data.test["subject"] if t.index(data.mask) < t.index(data.slot)]
    return DoubleTemplates(data.mask, data.slot, {"subject": (tuple(first), None)})


def divdist_row(
    name: str, contexts: pd.DataFrame, arrays: dict, *, negative: str, seed: int, signature: str
) -> dict:
    """DivDist on a study model's template vectors, its primary distance from the uniform
    reference: each occupation's mean vector (X and Y together) against the mean vectors of the
    male and of the female words (Bommasani and Liang's reduction of contexts, here the study's
    templates: the study's models read no corpus)."""
    from biasbench import rows
    from biasbench.methods.contract import GroupAssociations, Settings
    from biasbench.methods.distribution.association import embedding_association
    from biasbench.methods.registry import get

    method, settings = get("DivDist"), Settings()
    valid = np.asarray(arrays["valid"], bool)
    vectors = np.asarray(arrays["word/mean"], np.float64)
    mean = {}
    for key, index in contexts.groupby(["role", "stimulus"], sort=False).indices.items():
        index = index[valid[index]]
        if len(index):
            mean[key] = vectors[index].mean(axis=0)
    targets = np.stack([v for (role, _), v in mean.items() if role in "XY"])
    groups = [np.stack([v for (role, _), v in mean.items() if role == g]) for g in "AB"]
    variant = method.variants[0]
    strengths = embedding_association(targets, groups)
    score = method(GroupAssociations(strengths, None, variant, negative), settings, seed)
    return rows.make_row(
        method,
        rows.RowKey(name, "templates", TEST, DESCRIPTOR, "word/mean", variant),
        score,
        primary=True,
        unit="occupation",
        seed=seed,
        signature=signature,
        settings={"negative": negative, **method.settings_of(settings)},
    )


def pceat_row(
    name: str, log_pt: np.ndarray, log_pp: np.ndarray, words: WordSet, *, settings, seed, signature
) -> dict:
    """Probability-based CEAT on a study model: LPBS's log-probabilities of he and she in each
    of the study's templates (templates, attributes, targets) as the contexts of each (target,
    occupation) pair, combined as in CEAT (the study's models read no corpus: the templates
    stand in for natural contexts). Its full variant (the primary)."""
    from biasbench import rows
    from biasbench.errors import EmptySetError
    from biasbench.methods.contract import ContextLogProbs
    from biasbench.methods.registry import get

    method = get("p-CEAT")
    targets = [*words.sets["X"], *words.sets["Y"]]
    attributes = [*words.sets["A"], *words.sets["B"]]
    cells = {
        (t, a): np.stack([log_pt[:, i, j], log_pp[:, i, j]], axis=1)
        for j, t in enumerate(targets)
        for i, a in enumerate(attributes)
    }
    score, note = None, ""
    try:
        score = method(ContextLogProbs(cells, words.sets), settings, seed)
    except EmptySetError as exc:  # fewer than two occupations on a side
        note = str(exc)
    return rows.make_row(
        method,
        rows.RowKey(name, "templates", TEST, DESCRIPTOR, "mlm", method.variants[0]),
        score,
        primary=True,
        unit="template",
        seed=seed,
        signature=signature,
        settings=method.settings_of(settings),
        note=note,
    )


class _Once:
    """A log-probability function that computes every attribute of a (template, targets) once:
    the halves of the robustness draws read their columns."""

    def __init__(self, log_probs, attributes: list[str]):
        self.log_probs, self.attributes, self.memo = log_probs, attributes, {}

    def __call__(self, parts, targets, attributes):
        key = (parts, tuple(targets))
        if key not in self.memo:
            self.memo[key] = self.log_probs(parts, targets, self.attributes)
        rows = [self.attributes.index(a) for a in attributes]
        return tuple(m[rows] for m in self.memo[key])


def score_study_models(
    models,
    tokenizer,
    data: StudyData,
    templates,
    *,
    settings,
    signature: str,
    extraction: dict,
    splits: int = 0,
    negative: str = "clip",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows of every method on context vectors (the study's test in ``templates``, each
    method's primary encoding and variant) and of LPBS (in the study's own templates) for each
    (name, study model) of ``models``; and their effect sizes on ``splits`` random splits of
    the words, and of the templates, into two complementary halves per model (the league's
    split-half reliability; p-values there on few permutations: effect sizes do not read
    them). DivDist reads the same vectors and p-CEAT
    LPBS's log-probabilities (``negative``: DivDist's handling of a negative cosine)."""
    from functools import partial

    from biasbench.data.wordsets import LpbsSpec
    from biasbench.models.extract import encode_transformer
    from biasbench.models.load import tokenizer_vocabulary_test
    from biasbench.models.logprobs.masked import mlm_log_probs
    from biasbench.scoring import EncodedContexts, TemplateProbabilities, score
    from biasbench.scoring.templates import template_log_probs
    from biasbench.stats import derived_seed

    wordset, lpbs_words, double = study_wordset(data), lpbs_wordset(data), lpbs_templates(data)
    frame = template_contexts(wordset, templates)
    in_vocabulary = tokenizer_vocabulary_test(tokenizer)
    single = {s for words in wordset.sets.values() for s in words if in_vocabulary(s)}
    pairs = list(zip(wordset.sets["A"], wordset.sets["B"], strict=True))
    quick = few_partitions(settings)
    spec = LpbsSpec(TEST, {DESCRIPTOR: "subject"}, frozenset(), None)

    def vectors(name, contexts, arrays, with_settings):
        expected = {r: tuple(dict.fromkeys(g["stimulus"])) for r, g in contexts.groupby("role")}
        seed = derived_seed(settings.seed, name, TEST, "DivDist")
        divdist = divdist_row(
            name, contexts, arrays, negative=negative, seed=seed, signature=signature
        )
        encoded = EncodedContexts(
            contexts=contexts,
            arrays=arrays,
            kind="transformer",
            is_decoder=False,
            source="templates",
            test=TEST,
            descriptor=DESCRIPTOR,
            expected=expected,
            pairs=[(a, b) for a, b in pairs if a in expected["A"] and b in expected["B"]],
            single_token=single,
            primary_only=True,
        )
        rows = score(encoded, model=name, settings=with_settings, signature=signature)
        return pd.concat([rows, rows_frame([divdist])], ignore_index=True)

    def lpbs(name, log_probs, words, category, with_settings):
        kept = replace(double, categories={"subject": (category, None)})
        targets = [*words.sets["X"], *words.sets["Y"]]
        attributes = [*words.sets["A"], *words.sets["B"]]
        log_pt, log_pp = template_log_probs(
            log_probs, kept, "subject", targets, frozenset(), attributes
        )
        pceat = pceat_row(
            name,
            log_pt,
            log_pp,
            words,
            settings=with_settings.for_source("templates"),
            seed=derived_seed(settings.seed, name, TEST, "p-CEAT"),
            signature=signature,
        )
        probabilities = TemplateProbabilities(
            log_probs=log_probs,
            in_vocabulary=in_vocabulary,
            wordsets={DESCRIPTOR: words},
            spec=spec,
            templates=kept,
            encoding="mlm",
        )
        rows = score(probabilities, model=name, settings=with_settings, signature=signature)
        return pd.concat([rows, rows_frame([pceat])], ignore_index=True)

    frames, spread = [], []
    for name, shared in models:
        arrays = encode_transformer(
            StudyEncoder(shared), tokenizer, frame, progress=False, **extraction
        )
        attributes = [*lpbs_words.sets["A"], *lpbs_words.sets["B"]]
        log_probs = _Once(partial(mlm_log_probs, shared, tokenizer), attributes)
        all_templates = double.categories["subject"][0]
        frames += [
            vectors(name, frame, arrays, settings),
            lpbs(name, log_probs, lpbs_words, all_templates, settings),
        ]
        rng = np.random.default_rng(derived_seed(settings.seed, name, "halves"))
        for resample in ("words", "templates"):
            for split in range(splits):
                first = halves(frame, resample, rng, pairs)
                n_templates = len(all_templates)
                picked = rng.choice(n_templates, max(1, n_templates // 2), replace=False)
                for half, keep in enumerate((first, ~first)):
                    part = frame[keep].reset_index(drop=True)
                    rows = vectors(name, part, {k: v[keep] for k, v in arrays.items()}, quick)
                    words, category = lpbs_words, all_templates
                    if resample == "words":
                        chosen = set(part["stimulus"])
                        words = replace(
                            lpbs_words,
                            sets={**lpbs_words.sets}
                            | {
                                r: tuple(w for w in lpbs_words.sets[r] if w in chosen) for r in "AB"
                            },
                        )
                    else:
                        mine = np.isin(np.arange(len(all_templates)), picked) == (half == 0)
                        category = tuple(np.asarray(all_templates, object)[mine])
                    if category and all(words.sets[r] for r in "AB"):  # else no LPBS half
                        rows = pd.concat([rows, lpbs(name, log_probs, words, category, quick)])
                    rows = rows[rows["primary"].astype(bool)]
                    spread += [
                        {
                            "model": name,
                            "method": m,
                            "resample": resample,
                            "split": split,
                            "half": half,
                            "effect_size": e,
                        }
                        for m, e in zip(rows["method"], rows["effect_size"], strict=True)
                    ]
    scores = pd.concat(frames, ignore_index=True) if frames else rows_frame([])
    return scores, pd.DataFrame(spread, columns=HALVES_COLUMNS)


def refit_facet(scores: pd.DataFrame, refits: dict[str, str]) -> pd.DataFrame:
    """The league's test-retest facet across fine-tuning seeds, as halves rows (resample
    ``fit``, split 0) from the primary rows of the study models and of their refits
    (``refits``: refit name -> its model's name): every model's effect size as half 0 (the
    spread across models the error is set against), a refit's as half 1 of its model; no
    rows without refits (the facet is not run)."""
    if not refits:
        return pd.DataFrame(columns=HALVES_COLUMNS)
    primary = scores[scores["primary"].astype(bool)]
    return pd.DataFrame(
        {
            "model": primary["model"].map(lambda m: refits.get(m, m)),
            "method": primary["method"],
            "resample": "fit",
            "split": 0,
            "half": primary["model"].isin(refits).astype(int),
            "effect_size": primary["effect_size"],
        }
    ).reset_index(drop=True)


def item_halves(items, rng: np.random.Generator):
    """A random split of a data set's items into two complementary halves, each in file order
    (DisCo's ``(templates, fillers)``: its templates split, every filler in both)."""
    if isinstance(items, tuple):
        templates, fillers = items
        return tuple((half, fillers) for half in item_halves(list(templates), rng))
    first = np.zeros(len(items), bool)
    first[rng.choice(len(items), size=max(1, len(items) // 2), replace=False)] = True
    return tuple(
        [item for item, keep in zip(items, mask, strict=True) if keep] for mask in (first, ~first)
    )


def dataset_halves(engine, items: dict, *, model: str, settings, splits: int) -> list[dict]:
    """Each data-set measure's primary effect size on both halves of ``splits`` random splits
    of each data set's items (data set -> its items; ``settings``: the config's scoring
    settings): the league's split-half reliability of the data-set measures. ``engine``
    should remember the items it has scored (``RememberingEngine``): the halves then cost no
    model call. The effect sizes alone are kept, so the halves skip the bootstrap standard
    error and test on few partitions."""
    from biasbench.scoring import DatasetItems, score
    from biasbench.stats import derived_seed

    quick = few_partitions(settings)
    rng = np.random.default_rng(derived_seed(settings.seed, model, "item halves"))
    out = []
    for split in range(splits):
        for dataset, its_items in items.items():
            for half, part in enumerate(item_halves(its_items, rng)):
                rows = score(
                    DatasetItems(dataset=dataset, engine=engine, items=part, se=False),
                    model=model,
                    settings=quick,
                    signature="",
                )
                rows = rows[rows["primary"].astype(bool) & (rows["descriptor"] == "all")]
                out += [
                    {
                        "model": model,
                        "method": m,
                        "resample": "items",
                        "split": split,
                        "half": half,
                        "effect_size": e,
                    }
                    for m, e in zip(rows["method"], rows["effect_size"], strict=True)
                ]
    return out
