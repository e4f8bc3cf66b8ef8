"""The method contract, checked on every method in the registry: what swapping the target sets
does, byte-identical rows from one seed, exactly the schema's columns, and an empty set that
raises the documented error instead of giving NaN."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench import rows
from biasbench.errors import EmptySetError
from biasbench.methods.contract import (
    SETTING_KEYS,
    Associations,
    ContextLogProbs,
    ContextVectors,
    FillCounts,
    GroupAssociations,
    PairScores,
    Resolutions,
    Settings,
    TemplateLogProbs,
    TripleScores,
)
from biasbench.methods.registry import REGISTRY
from biasbench.scoring.embeddings import score_file
from biasbench.scoring.settings import ScoreSettings

SETTINGS = Settings(exact_max=5000, n_samples=500, ceat_samples=300)
SIZES = {"X": 4, "Y": 4, "A": 3, "B": 3}


def context_vectors(rng) -> ContextVectors:
    """One context per stimulus (a word), pointing somewhere between two directions, so that
    X leans to A and Y to B with noise."""
    lean = {"X": 0.8, "Y": 0.2, "A": 0.9, "B": 0.1}
    groups = {}
    for role, n in SIZES.items():
        base = np.array([lean[role], 1 - lean[role], 0, 0, 0])
        groups[role] = [base + rng.normal(scale=0.3, size=(1, 5)) for _ in range(n)]
    return ContextVectors(groups, tuple(zip(groups["A"], groups["B"], strict=False)))


def template_log_probs(rng) -> TemplateLogProbs:
    n_t, n_a = SIZES["X"] + SIZES["Y"], SIZES["A"] + SIZES["B"]
    log_pt = rng.normal(-10, 3, size=(2, n_a, n_t))
    return TemplateLogProbs(log_pt, log_pt - rng.uniform(0, 4, size=log_pt.shape), 4, 3)


def context_log_probs(rng) -> ContextLogProbs:
    sets = {r: tuple(f"{r.lower()}{i}" for i in range(n)) for r, n in SIZES.items()}
    cells = {
        (t, a): np.column_stack([v := rng.normal(-20, 4, size=k), v - rng.uniform(0, 3, k)])
        for t in sets["X"] + sets["Y"]
        for a in sets["A"] + sets["B"]
        if (k := int(rng.integers(0, 4)))
    }
    for t, a in zip(sets["X"] + sets["Y"], (sets["A"] + sets["B"]) * 2, strict=False):
        cells.setdefault((t, a), np.array([[-15.0, -16.0]]))
    return ContextLogProbs(cells, sets)


def pair_scores(rng) -> PairScores:
    n = 40
    return PairScores(
        rng.normal(size=n) + 0.3, rng.normal(size=n), rng.random(n) < 0.8, np.array(["x"] * n)
    )


def triple_scores(rng) -> TripleScores:
    n = 30
    terms = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]  # target terms, as StereoSet
    return TripleScores(rng.normal(size=n) + 0.2, rng.normal(size=n), rng.normal(size=n) - 1, terms)


def associations(rng) -> Associations:
    return Associations(rng.normal(size=25) + 0.5, rng.normal(size=25))


def fill_counts(rng) -> FillCounts:
    words = [f"w{i}" for i in range(6)]
    return FillCounts(
        [
            {w: (int(rng.integers(0, 30)), int(rng.integers(0, 30))) for w in words}
            | {"x": (40, 1)}
            for _ in range(4)
        ]
    )


def resolutions(rng) -> Resolutions:
    n = 80
    pro, male = np.arange(n) % 2 == 0, np.arange(n) % 4 < 2
    return Resolutions(rng.random(n) < np.where(pro, 0.8, 0.6), pro, male)


def group_associations(rng) -> GroupAssociations:
    return GroupAssociations(rng.random((int(rng.integers(2, 8)), int(rng.integers(2, 4)))))


MAKE = {
    ContextVectors: context_vectors,
    TemplateLogProbs: template_log_probs,
    ContextLogProbs: context_log_probs,
    PairScores: pair_scores,
    TripleScores: triple_scores,
    Associations: associations,
    FillCounts: fill_counts,
    Resolutions: resolutions,
    GroupAssociations: group_associations,
}


def emptied(inputs, role):
    if isinstance(inputs, PairScores | TripleScores | Associations | Resolutions):
        return type(inputs)(
            *(None if v is None else np.array(v)[:0] for v in vars(inputs).values())
        )
    if isinstance(inputs, FillCounts):
        return FillCounts([])
    if isinstance(inputs, GroupAssociations):
        return GroupAssociations(inputs.strengths[:0])
    if isinstance(inputs, ContextVectors):
        return ContextVectors({**inputs.groups, role: []})
    if isinstance(inputs, ContextLogProbs):
        return ContextLogProbs(inputs.cells, {**inputs.sets, role: ()})
    n_t, n_attr = inputs.log_pt.shape[2], inputs.log_pt.shape[1]
    keep_t = {"X": np.arange(inputs.n_x, n_t), "Y": np.arange(inputs.n_x)}.get(role)
    keep_a = {"A": np.arange(inputs.n_a, n_attr), "B": np.arange(inputs.n_a)}.get(role)
    pt, pp = inputs.log_pt, inputs.log_pp
    if keep_t is not None:
        pt, pp = pt[:, :, keep_t], pp[:, :, keep_t]
        return TemplateLogProbs(pt, pp, 0 if role == "X" else inputs.n_x, inputs.n_a)
    pt, pp = pt[:, keep_a], pp[:, keep_a]
    return TemplateLogProbs(pt, pp, inputs.n_x, 0 if role == "A" else inputs.n_a)


def row_of(method, score):
    key = rows.RowKey("m", "templates", "T", "names", method.encodings[0])
    return rows.make_row(
        method,
        key,
        score,
        primary=True,
        unit="u",
        seed=1,
        signature="s",
        settings=method.settings_of(SETTINGS),
    )


METHODS = pytest.mark.parametrize("method", REGISTRY, ids=lambda m: m.name)


@METHODS
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_swapping_the_target_sets(method, seed):
    inputs = MAKE[method.consumes](np.random.default_rng(seed))
    score = method(inputs, SETTINGS, 7)
    swapped = method(inputs.swapped(), SETTINGS, 7)
    assert math.isfinite(score.effect_size)
    expected = {
        "negates": -score.effect_size,
        "keeps": score.effect_size,
        "complements": 100 - score.effect_size,
    }[method.swap]
    assert swapped.effect_size == pytest.approx(expected, rel=1e-9, abs=1e-12)


WITH_EFFECT = [m for m in REGISTRY if m.effect is not None]


@pytest.mark.parametrize("method", WITH_EFFECT, ids=lambda m: m.name)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_declared_effect_is_the_effect_size_of_the_whole_score(method, seed):
    """The bootstrap standard error recomputes ``effect`` alone: it must be the score's own
    effect size, swapped inputs included."""
    inputs = MAKE[method.consumes](np.random.default_rng(seed))
    for given_inputs in (inputs, inputs.swapped()):
        whole = method(given_inputs, SETTINGS, 7).effect_size
        assert method.effect(given_inputs) == pytest.approx(whole, rel=1e-12, abs=1e-12)


def test_the_costly_tests_declare_their_effect():
    """Each data-set measure with a test declares its effect: without it the bootstrap runs
    the test on every one of its 1,000 resamples."""
    names = {m.name for m in WITH_EFFECT}
    assert {"CrowS-Pairs", "AUL", "BEC-Pro", "StereoSet SS", "WinoBias F1 gap"} <= names


@METHODS
def test_same_seed_same_bytes(method):
    inputs = MAKE[method.consumes](np.random.default_rng(3))
    once = rows.frame([row_of(method, method(inputs, SETTINGS, 11))]).to_csv()
    again = rows.frame([row_of(method, method(inputs, SETTINGS, 11))]).to_csv()
    assert once == again


@METHODS
def test_rows_have_exactly_the_schema_columns(method):
    inputs = MAKE[method.consumes](np.random.default_rng(4))
    scored = rows.frame([row_of(method, method(inputs, SETTINGS, 1))])
    assert list(scored.columns) == rows.COLUMNS
    missing = rows.make_row(
        method,
        rows.RowKey("m", "templates", "T", "names", "e"),
        None,
        primary=False,
        unit="u",
        seed=1,
        signature="s",
        settings={},
        note="why",
    )
    assert list(rows.frame([missing]).columns) == rows.COLUMNS
    with pytest.raises(ValueError, match="needs a note"):
        row_of(method, None)


class Recording(Settings):
    """Settings that note each field a method reads."""

    def __getattribute__(self, name):
        if name in SETTING_KEYS:
            object.__getattribute__(self, "read").add(name)
        return object.__getattribute__(self, name)


@METHODS
def test_a_method_reads_exactly_the_settings_it_declares(method):
    """What it declares is what its rows record and sign: a setting it reads but does not
    declare would change its score and leave its signature as it was."""
    settings = Recording(**vars(SETTINGS))
    object.__setattr__(settings, "read", set())
    method(MAKE[method.consumes](np.random.default_rng(9)), settings, 1)
    assert settings.read == set(method.reads)


@METHODS
def test_an_empty_set_raises_the_documented_error(method):
    inputs = MAKE[method.consumes](np.random.default_rng(5))
    for role in method.roles:
        with pytest.raises(EmptySetError, match="set "):
            method(emptied(inputs, role), SETTINGS, 1)


def test_an_all_oov_set_gives_a_row_that_says_why_never_a_bare_nan():
    groups = context_vectors(np.random.default_rng(6)).groups
    records = [
        (role, f"{role}{i}", v) for role, g in groups.items() for i, m in enumerate(g) for v in m
    ]
    frame = pd.DataFrame([(r, s) for r, s, _ in records], columns=["role", "stimulus"])
    vectors = np.array([v for *_, v in records], np.float32)
    valid = (frame["role"] != "X").to_numpy()  # every X stimulus out of vocabulary
    arrays = {e: vectors for e in ("sent/cls", "sent/last", "sent/mean")}
    arrays |= {e: vectors for e in ("word/mean", "word/first", "word/last")}
    for kind in ("static", "transformer"):
        out = score_file(
            frame,
            {**arrays, "valid": valid},
            model="m",
            kind=kind,
            is_decoder=False,
            source="templates",
            test="T",
            descriptor="d",
            settings=ScoreSettings(exact_max=5000, n_samples=200, ceat_samples=50),
            signature="s",
            single_token=None if kind == "static" else {"x0", "Y0"},
        )
        nan = out["effect_size"].isna()
        assert (out.loc[nan, "note"] != "").all() and nan.any()
        word = out["encoding"].str.startswith("word/")
        assert out.loc[word, "note"].str.startswith("coverage: set X lost 4 of 4").all()
        assert out.loc[~word & ~nan, "effect_size"].notna().all()  # sentences are not OOV


def test_context_vectors_derive_once_and_a_swap_starts_afresh():
    inputs = context_vectors(np.random.default_rng(8))
    calls = []
    for _ in range(2):
        assert inputs.derived("k", lambda: calls.append(1) or len(calls)) == 1
    assert inputs.swapped().derived("k", lambda: 2) == 2


def test_every_probability_measure_names_its_reference_code():
    """The probability family's defaults follow the authors' (or peers') code: each method
    names it, and its card shows it beside the named variants."""
    from biasbench.reports.cards import card

    for method in (m for m in REGISTRY if m.family == "probability" and m.name != "p-CEAT"):
        assert ": " in method.reference, method.name  # "owner/repository: path"
        text = card(method, None, pd.DataFrame())
        assert f"reference: {method.reference}" in text and ", ".join(method.encodings) in text
