"""Null-model calibration: enough null cells to tell a calibrated test from one that is not.

A test is calibrated when it calls about alpha of its cells significant on models that hold
no learned association. The null-model control (``synthesis_null``) counts these cells; with
three null models on six tests it had ~40 per method, too few to tell a false-positive share
of 1% from 5%. This stage scores many seeded null copies of each null architecture, one job
per architecture that builds every copy in memory (a model load costs seconds, a job's start
two; nothing is written but score rows):

* a transformer's copies (:class:`biasbench.models.null.Architecture`: its configuration and
  tokenizer, weights as ``from_config`` draws them) encode the configured tests' template
  contexts once per copy and score them with every method on context vectors
  (each method's primary encoding), LPBS on the double-slot templates and the data-set
  measures on the configured item samples, and probability-based CEAT on a corpus' pair
  contexts of the LPBS tests, each through :func:`biasbench.scoring.score` as the zoo's
  models are scored;
* a static model's copies (:func:`random_static`) give each stimulus a seeded random direction
  of the base vector's norm, scored on the words alone as the static models are.

Random weights lack what trained ones have (anisotropy, frequency, the geometry every real
vector shares), so beside them stands a **trained-weight null** (:func:`trained_null_rows`): a
real model's own vectors, each test's words reassigned to its sets at random
(:func:`biasbench.nulls.reassign`), so that no word's set has anything to do with
its vector; a draw is a model ``<model>-reassigned-r<i>``
(:meth:`biasbench.nulls.TrainedNull.draw_names`). Each kind of such draws is one record of
:data:`biasbench.nulls.TRAINED_NULLS`.

Every row keeps the one row schema (``biasbench.rows``); the model column names the copy,
``<base>-null-s<i>`` (:func:`copy_names`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from biasbench.models.null import copy_names
from biasbench.nulls import REASSIGNED, TrainedNull
from biasbench.stats import derived_seed

if TYPE_CHECKING:  # the report modules import this one while the DAG is planned: kept light
    from biasbench.data.templates import DoubleTemplates
    from biasbench.data.wordsets import LpbsSpec, WordSet
    from biasbench.models.load import StaticVectors
    from biasbench.models.specs import ModelSpec
    from biasbench.scoring import EncodedContexts
    from biasbench.scoring.settings import ScoreSettings
    from biasbench.studies.generated import GeneratedDesign


def copy_seed(seed: int, name: str) -> int:
    """The seed of a copy's random weights (or vectors): its name under the global seed."""
    return derived_seed(seed, "null_calibration", name)


def capped(settings: ScoreSettings, partitions: int) -> ScoreSettings:
    """The scoring settings of the copies: every permutation test enumerates or samples at
    most ``partitions`` partitions (its p-value resolved to about 1/partitions)."""
    return dataclasses.replace(
        settings,
        exact_max=min(settings.exact_max, partitions),
        n_samples=min(settings.n_samples, partitions),
        same_samples=min(settings.same_samples, partitions),
    )


@dataclass(frozen=True)
class TestInputs:
    """One test's contexts and word sets per descriptor, and the signature of its files."""

    contexts: Mapping[str, pd.DataFrame]
    wordsets: Mapping[str, WordSet]
    signature: str


@dataclass(frozen=True)
class LpbsInputs:
    """One test's LPBS word sets (per target descriptor), settings and double templates, and
    per corpus its pair contexts (:func:`biasbench.scoring.corpus.pair_contexts`), which the
    copies run probability-based CEAT on."""

    wordsets: Mapping[str, WordSet]
    spec: LpbsSpec
    templates: DoubleTemplates
    signature: str
    contexts: Mapping[str, pd.DataFrame] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class GeneratedLpbs:
    """LPBS on the first ``count`` generated designs of a transformer's copies: X and Y the
    targets, A and B the attributes, in the double templates' ``category`` (on random
    weights a design's words need no grammar of their own)."""

    count: int
    templates: DoubleTemplates
    category: str


@dataclass(frozen=True)
class DatasetInputs:
    """A data set's items (already read and sampled) and the signature of its files."""

    items: object
    signature: str


def null_cell(contexts: pd.DataFrame, arrays, words: WordSet, **where) -> EncodedContexts:
    """A null cell's vectors as the scoring entry reads them (``where``: kind, is_decoder,
    source, test, descriptor): each method's primary encoding, the word set's sets and pairs,
    and an "n/a" row where a method is undefined on a degenerate draw."""
    from biasbench.scoring import EncodedContexts

    pairs = list(zip(words.sets["A"], words.sets["B"], strict=True)) if words.paired else None
    return EncodedContexts(
        contexts=contexts,
        arrays=arrays,
        expected=words.sets,
        pairs=pairs,
        primary_only=True,
        undefined_as_na=True,
        **where,
    )


def score_tests(
    name: str,
    arrays_of: Callable[[pd.DataFrame], dict[str, np.ndarray]],
    tests: Mapping[str, TestInputs],
    *,
    kind: str,
    is_decoder: bool,
    source: str,
    settings: ScoreSettings,
    seed: int,
) -> list[pd.DataFrame]:
    """Every method on context vectors, primary encodings, on every descriptor of ``tests``:
    all contexts encoded in one call of ``arrays_of`` (identical sentences once)."""
    from biasbench.io import signature_of
    from biasbench.scoring import score

    frames = [(t, d, c) for t, inputs in tests.items() for d, c in inputs.contexts.items()]
    if not frames:
        return []
    arrays = arrays_of(pd.concat([c for _t, _d, c in frames], ignore_index=True))
    out, start = [], 0
    for test, descriptor, contexts in frames:
        stop = start + len(contexts)
        words = tests[test].wordsets[descriptor]
        encoded = null_cell(
            contexts,
            {k: v[start:stop] for k, v in arrays.items()},
            words,
            kind=kind,
            is_decoder=is_decoder,
            source=source,
            test=test,
            descriptor=descriptor,
        )
        signature = signature_of([], tests[test].signature, str(seed))
        out.append(score(encoded, model=name, settings=settings, signature=signature))
        start = stop
    return out


def design_inputs(designs: Iterable[GeneratedDesign], signature: str):
    """Each design as the null calibration's test inputs: its word set and its words alone
    (:class:`TestInputs`), by test. A and B, of one size, are definitional pairs by position
    (A[i] ~ B[i]): on random weights any pairing is as null as a paper's, and RIPA and Direct
    Bias, which read pairs, get a design each as the set tests do."""
    from biasbench.data.contexts import word_contexts
    from biasbench.data.wordsets import WordSet
    from biasbench.io import signature_of

    out = {}
    for d in designs:
        words = WordSet(d.test, d.kind, "generated", "terms", "terms", d.sets, {}, paired=True)
        out[d.test] = TestInputs(
            {d.kind: word_contexts(words)},
            {d.kind: words},
            signature_of([], signature, f"{d.test}:{d.kind}"),
        )
    return out


def generated_rows(
    base: str,
    designs: Sequence[GeneratedDesign],
    encoder: Callable[[int, TestInputs], Callable[[pd.DataFrame], dict[str, np.ndarray]]],
    *,
    kind: str,
    is_decoder: bool,
    settings: ScoreSettings,
    seed: int,
    also: Callable[[str, int, GeneratedDesign, TestInputs], list[pd.DataFrame]] | None = None,
) -> list[pd.DataFrame]:
    """Every method on context vectors on each generated design (:mod:`.generated`), its
    words alone, on a copy of its own (``<base>-null-g<i>``): ``encoder(copy seed, inputs)``
    gives the copy's encoding of the design's contexts; ``also(name, copy seed, design,
    inputs)``: more rows of the same copy (a transformer's LPBS)."""
    from biasbench.models.null import design_copy_name

    out = []
    for design, inputs in zip(designs, design_inputs(designs, base).values(), strict=True):
        name = design_copy_name(base, design.index)
        copy = copy_seed(seed, name)
        out += score_tests(
            name,
            encoder(copy, inputs),
            {design.test: inputs},
            kind=kind,
            is_decoder=is_decoder,
            source="words",
            settings=settings,
            seed=copy,
        )
        if also is not None:
            out += also(name, copy, design, inputs)
    return out


def item_design_rows(
    base: str,
    designs: Mapping[str, Sequence[DatasetInputs]],
    engine_of: Callable[[int], object],
    *,
    settings: ScoreSettings,
    seed: int,
) -> list[pd.DataFrame]:
    """The data-set measures on each item design (data set -> its disjoint item samples), a
    design on a copy of its own (``<base>-null-i<k>``, numbered across the data sets in
    order; ``engine_of(copy seed)``: that copy's scoring engine). The copies share no weights
    and the samples no item, so each design is one independent cluster of the null control,
    where the seeded copies, which score one sample, give one cluster per data set."""
    from biasbench.io import signature_of
    from biasbench.models.null import item_copy_names
    from biasbench.scoring import DatasetItems, score

    flat = [(d, inputs) for d, samples in designs.items() for inputs in samples]
    out = []
    for name, (dataset, inputs) in zip(item_copy_names(base, len(flat)), flat, strict=True):
        copy = copy_seed(seed, name)
        items = DatasetItems(dataset=dataset, engine=engine_of(copy), items=inputs.items)
        signature = signature_of([], inputs.signature, str(copy))
        out.append(score(items, model=name, settings=settings, signature=signature))
    return out


#: the character n-grams of the generated designs' random static vectors (fastText's 3-6)
DESIGN_GRAMS = (3, 6)


def char_ngrams(word: str, grams: tuple[int, int]) -> list[str]:
    """A word's character n-grams as fastText reads them: the word in boundary marks
    (``<word>``), every n-gram of it for n in ``grams`` (inclusive), and the whole word."""
    marked = f"<{word}>"
    low, high = grams
    out = [marked[i : i + n] for n in range(low, high + 1) for i in range(len(marked) - n + 1)]
    return list(dict.fromkeys([*out, marked]))


def random_static(
    vectors: StaticVectors,
    stimuli: Iterable[str],
    seed: int,
    grams: tuple[int, int] | None = None,
) -> StaticVectors:
    """Null static vectors of ``stimuli`` scaled to the norm of the base model's vector of
    each stimulus; a stimulus the base model lacks stays out of vocabulary. The direction is
    seeded by the stimulus under ``seed`` (a word has one vector whatever test it is in):
    without ``grams``, uniform on the sphere, i.i.d. across words; with ``grams``, the sum of
    seeded random vectors of its character n-grams (:func:`char_ngrams`), as an untrained
    fastText composes it, so that words sharing a spelling share part of their direction: a
    static model that learned nothing yet still sees spelling."""
    from biasbench.models.load import StaticVectors

    words: dict[str, int] = {}
    rows_: list[np.ndarray] = []
    dim = vectors.vectors.shape[1]
    gram_vectors: dict[str, np.ndarray] = {}

    def gram_vector(gram: str) -> np.ndarray:
        if gram not in gram_vectors:
            rng = np.random.default_rng(derived_seed(seed, "gram", gram))
            gram_vectors[gram] = rng.standard_normal(dim)
        return gram_vectors[gram]

    for stimulus in dict.fromkeys(str(s) for s in stimuli):
        base = vectors.lookup(stimulus)
        key = stimulus.lower() if vectors.lowercase else stimulus
        if base is None or key in words:
            continue
        if grams is None:
            direction = np.random.default_rng(derived_seed(seed, key)).standard_normal(dim)
        else:
            direction = np.sum([gram_vector(g) for g in char_ngrams(key, grams)], axis=0)
        norm = float(np.linalg.norm(np.asarray(base, np.float64)))
        words[key] = len(rows_)
        rows_.append(direction / np.linalg.norm(direction) * norm)
    matrix = np.array(rows_, np.float32).reshape(len(rows_), dim)
    return StaticVectors(words, matrix, vectors.lowercase)


def static_null_rows(
    base: ModelSpec,
    vectors: StaticVectors,
    seeds: int,
    tests: Mapping[str, TestInputs],
    *,
    settings: ScoreSettings,
    seed: int,
    designs: Sequence[GeneratedDesign] = (),
    design_grams: tuple[int, int] | None = DESIGN_GRAMS,
    log: Callable[[str], None] = print,
) -> pd.DataFrame:
    """Score rows of ``seeds`` random static copies of ``base`` on the words alone (i.i.d.
    directions), and of each generated design on a copy of its own (:func:`generated_rows`)
    whose vectors are composed of character n-grams (``design_grams``; None: i.i.d. too)."""
    from biasbench import rows
    from biasbench.models.extract import encode_static

    stimuli = [s for t in tests.values() for c in t.contexts.values() for s in c["stimulus"]]
    out = []
    for name in copy_names(base.name, seeds):
        null = random_static(vectors, stimuli, copy_seed(seed, name))
        out += score_tests(
            name,
            partial(encode_static, null),
            tests,
            kind="static",
            is_decoder=False,
            source="words",
            settings=settings,
            seed=copy_seed(seed, name),
        )
        log(f"{name}: scored")

    def encoder(copy: int, inputs: TestInputs):
        words = [s for c in inputs.contexts.values() for s in c["stimulus"]]
        return partial(encode_static, random_static(vectors, words, copy, design_grams))

    out += generated_rows(
        base.name,
        designs,
        encoder,
        kind="static",
        is_decoder=False,
        settings=settings,
        seed=seed,
    )
    log(f"{len(designs)} generated designs: scored")
    return pd.concat(out, ignore_index=True) if out else rows.frame([])


def transformer_null_rows(
    base: ModelSpec,
    architecture,
    seeds: int,
    tests: Mapping[str, TestInputs],
    *,
    settings: ScoreSettings,
    seed: int,
    extraction: Mapping,
    lpbs: Mapping[str, LpbsInputs] | None = None,
    datasets: Mapping[str, DatasetInputs] | None = None,
    item_designs: Mapping[str, Sequence[DatasetInputs]] | None = None,
    batch: int | None,
    lpbs_batch: int,
    max_gap: int | None = None,
    device: str = "cpu",
    dtype: str = "float32",
    designs: Sequence[GeneratedDesign] = (),
    lpbs_designs: GeneratedLpbs | None = None,
    log: Callable[[str], None] = print,
) -> pd.DataFrame:
    """Score rows of ``seeds`` random copies of a transformer (``architecture``:
    :class:`biasbench.models.null.Architecture` of ``base``): every method on the context
    vectors of ``tests`` (templates), LPBS on the tests of ``lpbs`` (and probability-based
    CEAT on their pair contexts within ``max_gap`` words) and the data-set measures of
    ``datasets`` (data set -> its items); ``batch``: sentences per forward pass of the
    data sets' engine, ``lpbs_batch``: of a causal LM's LPBS; ``device`` (a
    ``compute.device`` setting) and ``dtype``: where and in what precision the copies run;
    each data set's item designs (``item_designs``: data set -> its disjoint item samples,
    :func:`biasbench.data.datasets.disjoint_samples`) and each generated design on a copy of
    its own (:func:`item_design_rows`, :func:`generated_rows`), the first of those
    (``lpbs_designs``) scored with LPBS too (:class:`GeneratedLpbs`)."""
    from biasbench import rows
    from biasbench.data.wordsets import LpbsSpec, check_distinct_after
    from biasbench.io import signature_of
    from biasbench.models.device import describe
    from biasbench.models.extract import encode_transformer
    from biasbench.models.load import stimulus_normaliser, tokenizer_vocabulary_test
    from biasbench.models.logprobs import Engine
    from biasbench.models.logprobs.causal import causal_context_log_probs, causal_log_probs
    from biasbench.models.logprobs.masked import mlm_context_log_probs, mlm_log_probs
    from biasbench.scoring import (
        DatasetItems,
        PairContextProbabilities,
        TemplateProbabilities,
        score,
    )
    from biasbench.scoring.corpus import with_log_probs

    tokenizer, masked = architecture.tokenizer, architecture.masked
    normalise = stimulus_normaliser(base, tokenizer)
    for test, inputs in tests.items():  # stimuli the tokenizer cannot tell apart fail first
        for descriptor, words in inputs.wordsets.items():
            check_distinct_after(words.sets, normalise, f"{test}/{descriptor} on {base.name}")
    in_vocabulary = tokenizer_vocabulary_test(tokenizer)
    encoding = "mlm" if masked else "causal"

    def template_probe(model):
        """A copy's log-probabilities in double-slot templates (LPBS)."""
        if masked:
            return partial(mlm_log_probs, model, tokenizer)
        return partial(causal_log_probs, model, tokenizer, batch=lpbs_batch)

    def encode_with(model):
        """A copy's encoding of contexts, as the zoo's models encode them."""
        return partial(
            encode_transformer,
            model.base_model,
            tokenizer,
            layer=base.layer,
            name=base.name,
            progress=False,
            **extraction,
        )

    out = []
    for name in copy_names(base.name, seeds):
        weights_seed = copy_seed(seed, name)
        model = architecture.random(weights_seed, device=device, dtype=dtype)
        out += score_tests(
            name,
            encode_with(model),
            tests,
            kind="transformer",
            is_decoder=not masked,
            source="templates",
            settings=settings,
            seed=weights_seed,
        )
        if masked:
            context_probe = partial(mlm_context_log_probs, model, tokenizer)
        else:
            context_probe = partial(causal_context_log_probs, model, tokenizer, batch=lpbs_batch)
        for test, inputs in (lpbs or {}).items():
            signature = signature_of([], inputs.signature, str(weights_seed))
            probabilities = TemplateProbabilities(
                log_probs=template_probe(model),
                in_vocabulary=in_vocabulary,
                wordsets=inputs.wordsets,
                spec=inputs.spec,
                templates=inputs.templates,
                encoding=encoding,
            )
            out.append(score(probabilities, model=name, settings=settings, signature=signature))
            if inputs.contexts and max_gap is None:
                raise ValueError("p-CEAT on pair contexts needs lpbs.max_gap")
            for corpus, contexts in inputs.contexts.items():
                pairs = PairContextProbabilities(
                    contexts=with_log_probs(contexts, context_probe),
                    wordsets=inputs.wordsets,
                    in_vocabulary=in_vocabulary,
                    corpus=corpus,
                    test=test,
                    encoding=encoding,
                    max_gap=max_gap,
                    windows=[],  # no window sweep
                    primary_descriptor=next(iter(inputs.wordsets)),
                )
                out.append(score(pairs, model=name, settings=settings, signature=signature))
        engine = Engine(model, tokenizer, masked, batch=batch)
        for dataset, inputs in (datasets or {}).items():
            items = DatasetItems(dataset=dataset, engine=engine, items=inputs.items)
            signature = signature_of([], inputs.signature, str(weights_seed))
            out.append(score(items, model=name, settings=settings, signature=signature))
        log(f"{name}: scored ({architecture.weights(weights_seed)}; {describe(model)})")

    out += item_design_rows(
        base.name,
        item_designs or {},
        lambda copy: Engine(
            architecture.random(copy, device=device, dtype=dtype), tokenizer, masked, batch=batch
        ),
        settings=settings,
        seed=seed,
    )
    log(f"{sum(map(len, (item_designs or {}).values()))} data-set item designs: scored")

    @lru_cache(maxsize=1)  # a design's copy, for its encoding and its LPBS
    def design_copy(copy: int):
        return architecture.random(copy, device=device, dtype=dtype)

    def encoder(copy: int, _inputs: TestInputs):
        return encode_with(design_copy(copy))

    def with_lpbs(name: str, copy: int, design: GeneratedDesign, inputs: TestInputs):
        if lpbs_designs is None or design.index >= lpbs_designs.count:
            return []
        probabilities = TemplateProbabilities(
            log_probs=template_probe(design_copy(copy)),
            in_vocabulary=in_vocabulary,
            wordsets=inputs.wordsets,
            spec=LpbsSpec(
                design.test,
                dict.fromkeys(inputs.wordsets, lpbs_designs.category),
                frozenset(),
                None,
            ),
            templates=lpbs_designs.templates,
            encoding=encoding,
        )
        signature = signature_of([], inputs.signature, str(copy))  # as its other rows'
        return [score(probabilities, model=name, settings=settings, signature=signature)]

    out += generated_rows(
        base.name,
        designs,
        encoder,
        kind="transformer",
        is_decoder=not masked,
        settings=settings,
        seed=seed,
        also=with_lpbs,
    )
    log(f"{len(designs)} generated designs: scored")
    return pd.concat(out, ignore_index=True) if out else rows.frame([])


@dataclass(frozen=True)
class TrainedInputs:
    """One test of a trained model: per descriptor its contexts, their vectors (the
    embeddings file's arrays) and word set; whether the model is a decoder; the signature."""

    contexts: Mapping[str, pd.DataFrame]
    arrays: Mapping[str, dict[str, np.ndarray]]
    wordsets: Mapping[str, WordSet]
    is_decoder: bool
    signature: str


def trained_null_rows(
    spec: ModelSpec,
    test: str,
    inputs: TrainedInputs,
    draws: int,
    *,
    source: str,
    settings: ScoreSettings,
    seed: int,
    kind: TrainedNull = REASSIGNED,
) -> pd.DataFrame:
    """Score rows of ``draws`` draws of a trained-weight null ``kind`` (:mod:`biasbench.nulls`;
    the default reassigns the words, :func:`~biasbench.nulls.reassign`) of one test on a trained
    model's own vectors: every method on context vectors, each method's primary encoding;
    draw ``i`` of every (test, descriptor) is seeded by its name and the kind, so a draw is
    reproducible alone."""
    from biasbench import rows
    from biasbench.io import signature_of
    from biasbench.scoring import score

    out = []
    for name in kind.draw_names(spec.name, draws):
        for descriptor, contexts in inputs.contexts.items():
            rng = np.random.default_rng(derived_seed(seed, kind.infix, name, test, descriptor))
            moved, words = kind.draw(contexts, inputs.wordsets[descriptor], rng)
            encoded = null_cell(
                moved,
                inputs.arrays[descriptor],
                words,
                kind=spec.kind,
                is_decoder=inputs.is_decoder,
                source=source,
                test=test,
                descriptor=descriptor,
            )
            signature = signature_of([], inputs.signature, name)
            out.append(score(encoded, model=name, settings=settings, signature=signature))
    return pd.concat(out, ignore_index=True) if out else rows.frame([])


def read_tests(
    files: Mapping[str, Mapping[str, tuple[str, str]]], extra: str = ""
) -> dict[str, TestInputs]:
    """Test -> descriptor -> (contexts file, word-set file), read and checked; ``extra``
    enters each test's signature (the model's provenance)."""
    from biasbench.data.contexts import check_contexts
    from biasbench.data.wordsets import WordSet
    from biasbench.io import read_sealed, read_tsv, signature_of

    out = {}
    for test, descriptors in files.items():
        paths = [c for c, _w in descriptors.values()]
        contexts = {d: read_tsv(c) for d, (c, _w) in descriptors.items()}
        for d, (c, _w) in descriptors.items():
            check_contexts(contexts[d], c)
        out[test] = TestInputs(
            contexts,
            {d: WordSet.from_json(read_sealed(w)) for d, (_c, w) in descriptors.items()},
            signature_of([*paths, *(w for _c, w in descriptors.values())], extra),
        )
    return out
