"""The null sources: what each randomizes, the "exact by construction" label of every
registered method on every source, the scale-free declaration checked on the methods
themselves, the detection check by simulation (a known-bad test is caught where it can
be, and a source that cannot catch it gives no verdict), and the verdict's own probability."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.registry import REGISTRY
from biasbench.studies import calibration as cal

from .conftest import score_row

TESTED = [m for m in REGISTRY if m.consumes is ContextVectors and m.permutes is not None]


def _vectors(rng, scale=None) -> ContextVectors:
    """One vector per word, X leaning to A; ``scale``: per role, each word's factor."""
    lean = {"X": 0.8, "Y": 0.2, "A": 0.9, "B": 0.1}
    groups = {}
    for role, n in {"X": 5, "Y": 5, "A": 4, "B": 4}.items():
        base = np.array([lean[role], 1 - lean[role], 0.0, 0.0, 0.0])
        words = [base + rng.normal(scale=0.3, size=(1, 5)) for _ in range(n)]
        if scale is not None:
            words = [w * f for w, f in zip(words, scale[role], strict=True)]
        groups[role] = words
    return ContextVectors(groups, tuple(zip(groups["A"], groups["B"], strict=True)))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_scale_free_methods_read_directions_alone(seed):
    """Every method that declares ``scale_free`` gives the same effect and p when each word's
    vector is rescaled by its own factor; RIPA, which reads raw norms, does not (so the
    declaration is what decides the label on random static vectors)."""
    rng = np.random.default_rng(seed)
    scale = {r: rng.uniform(0.2, 5.0, n) for r, n in {"X": 5, "Y": 5, "A": 4, "B": 4}.items()}
    plain = _vectors(np.random.default_rng(seed))
    scaled = _vectors(np.random.default_rng(seed), scale)
    options = Settings(exact_max=300, n_samples=300, ceat_samples=50)
    for method in TESTED:
        a, b = method(plain, options, 1), method(scaled, options, 1)
        same = np.isclose(a.effect_size, b.effect_size) and np.isclose(a.p_value, b.p_value)
        if method.scale_free:
            assert same, method.name
    ripa = next(m for m in TESTED if m.name == "RIPA")
    assert not ripa.scale_free
    assert not np.isclose(ripa(plain, options, 1).effect_size, ripa(scaled, options, 1).effect_size)


def _cells(method, sources=("words", "templates", "natural"), test="T"):
    units = {"words": "context", "templates": "context", "natural": "sampled context"}
    return pd.DataFrame(
        [
            score_row(method=method.name, model="m", source=s, unit=units[s], test=test)
            for s in sources
        ]
    )


@pytest.mark.parametrize("source", cal.SOURCES, ids=lambda s: s.key)
def test_every_method_s_label_on_every_source(source):
    """The label per registered method, design and cell, from what the source randomizes:
    nothing is exact where nothing is randomized; on i.i.d. directions the tests of
    scale-free methods that exchange words; under reassignment the tests that exchange what
    was shuffled freely (targets always; attributes unless the test holds definitional
    pairs, which are flipped by a coin). A paper test over contexts or sampled contexts
    never exchanges words."""
    for method in TESTED:
        for paired in ((), ("T",)):
            cells = _cells(method)
            sampled = method.unit == "sampled context"
            word = cal.exact_by_construction(cells, "word", source.randomizes, paired)
            paper = cal.exact_by_construction(cells, "paper", source.randomizes, paired)
            if source.randomizes is None:
                expect = False
            elif source.randomizes == "directions":
                expect = method.scale_free
            else:
                expect = method.permutes == "targets" or not paired
            assert list(word) == [expect] * 3, (method.name, source.key, paired)
            assert list(paper) == [expect and not sampled, False, False], (method.name, paired)
    with pytest.raises(ValueError, match="unknown randomized unit"):
        cal.exact_by_construction(_cells(TESTED[0]), "word", "contexts")


def test_same_under_flipped_pairs_is_not_exact_but_weat_is():
    """The reassignment flips each definitional pair by a coin; SAME's test re-splits A and
    B freely, so on a paired test it is not exact there, while WEAT's target test is."""
    rows = [
        score_row(method=m, model="m-reassigned-r0", source="words", test=t)
        for m in ("SAME", "SAME skew", "WEAT")
        for t in ("WEAT7", "C6")
    ]
    cells = pd.DataFrame(rows)
    exact = cal.exact_by_construction(cells, "word", "words", paired=("WEAT7",))
    assert list(exact) == [False, True, False, True, True, True]


def test_each_source_declares_its_unit_and_known_bad_test():
    assert [s.randomizes for s in cal.SOURCES] == [None, None, "directions", None, "words"]
    # i.i.d. directions: every word test of a scale-free method is exact, so no known-bad
    # test can be caught there and the source gives no verdict; the generated designs' static
    # vectors are composed of character n-grams, where spelling can fail a word test
    assert all(s.known_bad is None for s in cal.SOURCES if s.randomizes == "directions")
    assert all(s.known_bad is not None for s in cal.SOURCES if s.randomizes != "directions")


@pytest.mark.parametrize("clusters", [67, 231, 2000, 6000])
def test_chance_calibrated_is_the_verdict_s_own_probability(clusters):
    """The binomial sum over exactly the rejection counts the verdict calls "calibrated":
    at many clusters some counts have an upper bound under 2 x alpha and a lower bound
    above alpha; those are "miscalibrated" and not counted."""
    alpha = 0.05
    k = np.arange(clusters + 1)
    low, high = cal.clopper_pearson(k, clusters)
    called = [
        cal.verdict(lo, hi, clusters, alpha) == "calibrated"
        for lo, hi in zip(low, high, strict=True)
    ]
    expected = sps.binom.pmf(k[np.array(called)], clusters, alpha).sum()
    assert cal.chance_calibrated(clusters, alpha) == pytest.approx(expected, abs=1e-12)
    if clusters == 6000:  # where the two readings differ
        loose = sps.binom.pmf(k[high <= 2 * alpha], clusters, alpha).sum()
        assert loose - expected > 0.01


def test_ceat_on_one_context_per_word_is_left_out_of_its_share():
    """CEAT's paper test on the words alone gives p near 0 by its own construction: those
    cells are counted apart (one_context), and the share is over the template cells."""
    rows = [
        score_row(
            method="CEAT",
            model="m-null",
            source="words",
            unit="sampled context",
            test=f"W{i}",
            p_value=1e-300,
        )
        for i in range(70)
    ]
    rows += [
        score_row(
            method="CEAT",
            model="m-null",
            source="templates",
            unit="sampled context",
            test=f"T{i}",
            p_value=0.5 if i else 0.01,
        )
        for i in range(70)
    ]
    row = cal.calibration(pd.DataFrame(rows), ["m-null"], {}).set_index("design").loc["paper"]
    assert (row["cells_null"], row["one_context"], row["clusters_0.05"]) == (70, 70, 70)
    assert row["null_0.05"] == pytest.approx(1 / 70)
    assert row["verdict_0.05"] == "calibrated"


def _design_cells(structure: str, designs_to_score: int = 40, seed: int = 0) -> pd.DataFrame:
    """The generated source's known-bad method (s-SEAT: WEAT's statistic on one vector per
    word, computed here by WEAT) with its word test and its test within piece counts, on
    generated designs of a
    synthetic lexicon, each word one vector: ``iid`` vectors, or vectors built as a random
    network pools word pieces (``pieces``: a shared direction per piece count; ``ending``:
    a shared direction per last two letters, the last piece two words share)."""
    from biasbench.studies.generated import draw_designs

    from .test_generated_designs import LEXICON

    pieces = {w: 1 + len(w) % 3 for w in LEXICON}
    designs = draw_designs(LEXICON, 5 * designs_to_score, seed=seed, pieces=pieces)
    rng = np.random.default_rng(seed)
    dim = 12
    shared = {k: rng.normal(size=dim) for k in [*range(1, 4), *{w[-2:] for w in LEXICON}]}

    def vector(word: str) -> np.ndarray:
        own = rng.normal(size=dim)
        if structure == "pieces":
            return own + 1.5 * shared[pieces[word]]
        if structure == "ending":
            return own + 1.5 * shared[word[-2:]]
        return own

    options = Settings(exact_max=500, n_samples=500)
    weat = next(m for m in REGISTRY if m.name == "WEAT")
    rows = []
    for design in designs:
        groups = {r: [vector(w)[None, :] for w in design.sets[r]] for r in "XYAB"}
        strata = {r: [pieces[w] for w in design.sets[r]] for r in "XYAB"}
        score = weat(ContextVectors(groups, None, strata), options, design.index)
        rows.append(
            score_row(
                method=cal.SOURCE_BY_KEY["generated-random"].known_bad.method,
                model=f"b-null-g{design.index}",
                test=design.test,
                descriptor=design.kind,
                source="words",
                p_value=score.p_value,
                p_word=score.p_word,
                p_word_strata=score.p_word_strata,
            )
        )
    return pd.DataFrame(rows)


def _detected(cells: pd.DataFrame) -> bool:
    sources = pd.Series("generated-random", index=cells.index)
    bases = dict.fromkeys(cells["model"], "b")
    checks = cal.detection(cells, sources, bases).set_index("source")
    return bool(checks.loc["generated-random", "passes"])


def test_the_known_bad_test_is_caught_where_words_differ_by_pieces_and_not_on_iid_vectors():
    """Detection by simulation: where a network's vectors carry the word-piece count (as a
    random network's pooled pieces do), the word test on designs split by piece count
    rejects far beyond 0.05 and the source passes; on i.i.d. vectors the same test is
    exact and the source cannot catch it, so it gives no verdict."""
    assert _detected(_design_cells("pieces"))
    assert not _detected(_design_cells("iid"))


def test_a_stratified_test_can_fail_on_designs_split_by_spelling():
    """The stratified test removes the piece count, not what else X and Y differ in: on
    vectors that share a direction per ending, designs split by ending make it reject far
    beyond 0.05 (a random split of one pool would have made it exact)."""
    cells = _design_cells("ending")
    ending = cells[cells["descriptor"] == "ending"]
    table = cal.calibration(ending, list(ending["model"]), dict.fromkeys(ending["model"], "b"))
    strata = table.set_index("design").loc["strata"]
    assert strata["clusters_0.05"] == 40
    assert strata["verdict_0.05"] == "miscalibrated"
    iid = _design_cells("iid")
    share = (iid.loc[iid["descriptor"] == "ending", "p_word_strata"] < 0.05).mean()
    assert share < 0.2


def test_a_share_without_enough_designs_says_what_one_design_is():
    """The data-set measures, LPBS and p-CEAT have a few designs each (a data set, an LPBS
    test per base): the table says why there is no verdict, and what would add designs."""
    assert cal.why_no_verdict("WEAT", 80, 67) == ""
    assert "null_calibration.designs adds them" in cal.why_no_verdict("WEAT", 42, 67)
    assert "item_designs" in cal.why_no_verdict("CrowS-Pairs", 3, 67)
    assert cal.why_no_verdict("CrowS-Pairs", 3, 67).startswith("3 of the 67 independent")
    assert "an LPBS test and descriptor" in cal.why_no_verdict("LPBS", 4, 67)
    assert "corpus pairs" in cal.why_no_verdict("p-CEAT", 2, 67)
    rows = [
        score_row(method="CrowS-Pairs", model=f"b-null-s{i}", test="CrowS-Pairs", p_value=0.4)
        for i in range(4)
    ]
    table = cal.calibration(pd.DataFrame(rows), [f"b-null-s{i}" for i in range(4)], {})
    row = table.set_index("design").loc["paper"]
    assert row["clusters_0.05"] == 4 and "item_designs" in row["why_0.05"]


@pytest.mark.parametrize("grams", [(3, 6), None])
def test_the_static_known_bad_test_is_caught_on_ngram_vectors_alone(grams):
    """Detection by simulation on the product's own random static vectors: composed of
    character n-grams (the generated designs' vectors), words of one ending share a direction
    and WEAT's word test on designs split by ending rejects far beyond 0.05, so the source
    passes; on i.i.d. directions the same test is exact and the source could not fail it."""
    from biasbench.config import model_entry
    from biasbench.models.specs import ModelSpec
    from biasbench.scoring.settings import ScoreSettings
    from biasbench.studies import null_calibration as nc
    from biasbench.studies.generated import draw_designs

    from .test_generated_designs import _static, _word

    words = [_word(i) for i in range(36_000)]
    designs = [d for d in draw_designs(words, 320, seed=3) if d.kind == "ending"]
    frame = nc.static_null_rows(
        ModelSpec.from_config("glove", model_entry(kind="static", source="glove-pkg:x")),
        _static(words, dim=16),
        0,
        {},
        settings=ScoreSettings(seed=2, exact_max=400, n_samples=400, same_samples=50),
        seed=4,
        designs=designs,
        design_grams=grams,
        log=lambda _line: None,
    )
    cells = frame[frame["primary"].astype(bool)].reset_index(drop=True)
    checks = cal.detection(
        cells,
        pd.Series("generated-static", index=cells.index),
        dict.fromkeys(cells["model"], "glove"),
    ).set_index("source")
    assert checks.loc["generated-static", "clusters"] == len(designs) == 80
    assert bool(checks.loc["generated-static", "passes"]) == (grams is not None)
