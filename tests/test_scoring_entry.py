"""The one scoring entry (``biasbench.scoring.score``): each kind of extracted input reaches
its family with the settings of its source and the config's seed, so a caller that hands it a
record gets the rows the family gives; and no module outside the scoring package calls a
family's scorer itself."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.data.pairsets import SentencePair
from biasbench.data.wordsets import LpbsSpec
from biasbench.scoring import (
    DatasetItems,
    EncodedContexts,
    PairContextProbabilities,
    TemplateProbabilities,
    score,
)
from biasbench.scoring.corpus import probability_ceat_rows
from biasbench.scoring.datasets import SCORERS, crows_pairs
from biasbench.scoring.embeddings import score_file
from biasbench.scoring.settings import ScoreSettings
from biasbench.scoring.templates import lpbs_rows

from .conftest import ROOT
from .test_datasets import CausalStub
from .test_scoring_embeddings import STIMULI, frame_and_arrays
from .test_scoring_templates import TEMPLATES, fake_log_probs, wordset

SETTINGS = ScoreSettings(seed=7, exact_max=100, n_samples=200)


def test_encoded_contexts_give_the_rows_of_every_method_on_context_vectors():
    frame, arrays = frame_and_arrays()
    # the record's fields, which are score_file's keywords
    where = {"kind": "static", "is_decoder": False, "source": "words", "test": "T"}
    encoded = EncodedContexts(
        contexts=frame, arrays=arrays, descriptor="names", expected=STIMULI, **where
    )
    rows = score(encoded, model="m", settings=SETTINGS, signature="sig")
    direct = score_file(
        frame,
        arrays,
        model="m",
        settings=SETTINGS,
        signature="sig",
        descriptor="names",
        expected=STIMULI,
        **where,
    )
    pd.testing.assert_frame_equal(rows, direct)
    # the hand-built geometry (X and A one way, Y and B another): WEAT finds X with A
    weat = rows[(rows["method"] == "WEAT") & rows["primary"].astype(bool)].iloc[0]
    assert weat["effect_size"] > 1.5


def test_template_probabilities_give_lpbs_with_the_config_seed_on_templates():
    spec = LpbsSpec("T", {"terms": "basic"}, frozenset({"ys"}), None)
    words = {"terms": wordset()}
    probabilities = TemplateProbabilities(
        log_probs=fake_log_probs,
        in_vocabulary=lambda w: w != "ys",
        wordsets=words,
        spec=spec,
        templates=TEMPLATES,
        encoding="causal",
    )
    rows = score(probabilities, model="m", settings=SETTINGS, signature="sig")
    direct = lpbs_rows(
        fake_log_probs,
        lambda w: w != "ys",
        words,
        spec,
        TEMPLATES,
        model="m",
        encoding="causal",
        settings=SETTINGS.for_source("templates"),
        seed=SETTINGS.seed,
        signature="sig",
    )
    pd.testing.assert_frame_equal(rows, direct)
    # the hand-computed case of test_scoring_templates: bs (2.5, 1.5, .5, -.5), d = 2 / sd
    full = rows.set_index("variant").loc["full"]
    assert full["effect_size"] == pytest.approx(2 / np.std([2.5, 1.5, 0.5, -0.5], ddof=1))


def _pair_contexts(rng) -> pd.DataFrame:
    rows = [
        (t, a, gap, lp, lp - rng.uniform(0, 2))
        for t in STIMULI["X"] + STIMULI["Y"]
        for a in STIMULI["A"] + STIMULI["B"]
        for gap, lp in zip((2, 12), rng.normal(-10, 2, 2), strict=True)
    ]
    return pd.DataFrame(rows, columns=["target", "attribute", "gap", "log_pt", "log_pp"])


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**16), st.sampled_from(["reddit", "wikipedia"]))
def test_pair_context_probabilities_give_p_ceat_its_sweep_and_samples(data_seed, corpus):
    contexts = _pair_contexts(np.random.default_rng(data_seed))
    words = {"d": wordset(*(tuple(STIMULI[r]) for r in "XY"))}
    known = lambda w: True  # noqa: E731
    # the record's fields, which are probability_ceat_rows' keywords
    where = {"corpus": corpus, "test": "T", "encoding": "mlm", "max_gap": 10, "windows": [5, 18]}
    probabilities = PairContextProbabilities(
        contexts=contexts, wordsets=words, in_vocabulary=known, primary_descriptor="d", **where
    )
    rows = score(probabilities, model="m", settings=SETTINGS, signature="sig")
    direct, sweep, samples = probability_ceat_rows(
        contexts,
        words,
        known,
        model="m",
        primary_descriptor="d",
        settings=SETTINGS.for_source(corpus),
        seed=SETTINGS.seed,
        signature="sig",
        **where,
    )
    pd.testing.assert_frame_equal(rows, direct)
    (got_sweep,) = probabilities.sweep
    pd.testing.assert_frame_equal(got_sweep, sweep)
    assert probabilities.samples.keys() == samples.keys()
    for key, values in samples.items():
        np.testing.assert_array_equal(probabilities.samples[key], values)


def test_data_set_items_give_the_measures_and_their_outcomes():
    pairs = [SentencePair("s1", "a1", True, "race"), SentencePair("s2", "a2", True, "race")]
    engine = CausalStub({"s1": -1.0, "a1": -3.0, "s2": -6.0, "a2": -2.0})
    outcomes, direct_outcomes = [], []
    items = DatasetItems(dataset="crows_pairs", engine=engine, items=pairs, outcomes=outcomes)
    rows = score(items, model="m", settings=SETTINGS, signature="sig")
    direct = crows_pairs(
        engine,
        pairs,
        model="m",
        settings=SETTINGS.for_source("templates"),
        seed=SETTINGS.seed,
        signature="sig",
        outcomes=direct_outcomes,
    )
    pd.testing.assert_frame_equal(rows, direct)
    pd.testing.assert_frame_equal(outcomes[0], direct_outcomes[0])
    # one pair of two scored the stereotyping sentence higher: 50%
    share = rows[(rows["method"] == "CrowS-Pairs") & (rows["encoding"] == "causal-sentence")]
    assert share["effect_size"].iloc[0] == pytest.approx(50.0)


def test_a_data_set_that_writes_no_outcomes_refuses_a_list_for_them():
    assert "becpro" in SCORERS
    items = DatasetItems(dataset="becpro", engine=None, items=[], outcomes=[])
    with pytest.raises(ValueError, match="writes no item outcomes"):
        score(items, model="m", settings=SETTINGS, signature="sig")


def test_the_zoo_data_set_job_scores_through_the_entry(monkeypatch):
    """The log-probability job's data-set call (``score_dataset``) reads, samples and fits the
    items, then hands them to the one entry as a ``DatasetItems`` record: the rows are the
    entry's."""
    from biasbench import scoring
    from biasbench.scoring import dataset_stage

    pairs = [SentencePair("s1", "a1", True, "race"), SentencePair("s2", "a2", True, "race")]
    engine = CausalStub({"s1": -1.0, "a1": -3.0, "s2": -6.0, "a2": -2.0})
    coverage = {"dataset": "CrowS-Pairs", "items": 2, "scored": 2, "limit": None}
    monkeypatch.setattr(dataset_stage, "dataset_items", lambda *a: (list(pairs), dict(coverage)))
    seen, entry = [], scoring.SCORERS_OF[DatasetItems]

    def spy(inputs, **where):
        seen.append(inputs)
        return entry(inputs, **where)

    monkeypatch.setitem(scoring.SCORERS_OF, DatasetItems, spy)
    frame, _coverage, outcomes = dataset_stage.score_dataset(
        engine, "crows_pairs", {}, None, model="m", settings=SETTINGS, signature="sig"
    )
    (record,) = seen
    assert (record.dataset, record.items, record.engine) == ("crows_pairs", pairs, engine)
    entry_outcomes: list[pd.DataFrame] = []
    by_entry = score(
        DatasetItems(dataset="crows_pairs", engine=engine, items=pairs, outcomes=entry_outcomes),
        model="m",
        settings=SETTINGS,
        signature="sig",
    )
    pd.testing.assert_frame_equal(frame, by_entry)
    pd.testing.assert_frame_equal(outcomes, entry_outcomes[0])  # CrowS-Pairs writes them


def test_only_the_entry_calls_the_data_set_measures():
    """``score_items`` (every measure of a data set) is the entry's scorer of a
    ``DatasetItems`` record: no other module calls it, in the scoring package or outside."""
    sources = [
        *(ROOT / "biasbench").rglob("*.py"),
        *(ROOT / "workflow_scripts").glob("*.py"),
        *(ROOT / "benchmarks").glob("*.py"),
    ]
    callers = {
        str(p.relative_to(ROOT))
        for p in sources
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "score_items"
    }
    assert callers == {"biasbench/scoring/__init__.py"}


def test_an_unknown_kind_of_input_is_refused_naming_the_kinds():
    with pytest.raises(TypeError, match="no scorer reads dict.*EncodedContexts"):
        score({"contexts": []}, model="m", settings=SETTINGS, signature="sig")


#: the family scorers: only the scoring package calls them
FAMILY_SCORERS = {"score_file", "lpbs_rows", "probability_ceat_rows", "SCORERS"}


def _names_imported_from_scoring(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "biasbench.scoring."
        ):
            found |= {alias.name for alias in node.names} & FAMILY_SCORERS
        elif isinstance(node, ast.Attribute) and node.attr in FAMILY_SCORERS:
            found.add(node.attr)  # e.g. datasets.SCORERS after importing the module
    return found


def test_no_module_outside_the_scoring_package_calls_a_family_scorer():
    sources = [
        *(ROOT / "biasbench").rglob("*.py"),
        *(ROOT / "workflow_scripts").glob("*.py"),
    ]
    scoring = ROOT / "biasbench" / "scoring"
    offenders = {
        str(p.relative_to(ROOT)): names
        for p in sources
        if scoring not in p.parents and (names := _names_imported_from_scoring(p))
    }
    assert offenders == {}
