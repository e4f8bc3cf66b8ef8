"""The recipes of docs/methods.md followed as written, with a toy of each kind: each test
takes the steps its recipe numbers, in the doc's order and naming the doc's files
(:class:`Recipe` checks them against the doc, and the files the doc says the recipe costs),
then calls on the toy what the workflow calls: the scoring entry, the truth lookup, the
league, the catalog and its report sections, the config's validation and the plan. What each
costs is what the recipe says, and nothing else is touched."""

import re
import sys

import numpy as np
import pandas as pd
import pytest

import biasbench.reports
from biasbench import rows as rows_
from biasbench.data import datasets as data_sets
from biasbench.data.pairsets import iter_lines
from biasbench.io import write_json, write_tsv
from biasbench.methods import registry
from biasbench.methods.contract import (
    ON_STUDY,
    WHY_TEST,
    ContextVectors,
    Method,
    PairScores,
    Truth,
)
from biasbench.reports import catalog
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import SCORES, render_table
from biasbench.rows import COLUMNS, Score
from biasbench.scoring import EncodedContexts, score
from biasbench.scoring import datasets as scorers
from biasbench.scoring.dataset_stage import score_dataset
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies.groundtruth.every_method import DESCRIPTOR as STUDY_DESCRIPTOR
from biasbench.studies.groundtruth.every_method import TEST as STUDY_TEST
from biasbench.studies.groundtruth.truth import truth_of

from .conftest import ROOT, score_row

DOC = ROOT / "docs" / "methods.md"
#: a numbered step of a recipe: the file it touches, first on its line
STEP = re.compile(r"^(\d+)\. `([^`]+)`", re.MULTILINE)
#: what the doc says a recipe costs
COST = re.compile(r"costs \*\*(\d+) files\*\*")
#: the recipes of the doc, each followed by a test below
RECIPES = ("Adding a method", "Adding a data set", "Adding a null kind", "Adding an analysis")


def doc_recipes() -> dict[str, tuple[list[str], int | None]]:
    """Each "## Adding ..." section of docs/methods.md: the file each of its numbered steps
    names, in order, and the number of files the section says the recipe costs."""
    found = {}
    for section in re.split(r"^## ", DOC.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]:
        heading, _, body = section.partition("\n")
        if heading.startswith("Adding "):
            steps = STEP.findall(body)
            assert [int(n) for n, _ in steps] == list(range(1, len(steps) + 1)), heading
            cost = COST.search(body)
            found[heading] = ([file for _, file in steps], int(cost.group(1)) if cost else None)
    return found


class Recipe:
    """The steps a test takes of one recipe of the doc, each naming the file it touches
    (``<name>`` in a path: the new thing's own name)."""

    def __init__(self, heading: str):
        self.heading, self.taken = heading, []

    def step(self, file: str) -> None:
        self.taken.append(file)

    def followed(self) -> None:
        """The steps taken are the doc's, in its order, and as many files as it says."""
        steps, cost = doc_recipes()[self.heading]
        assert self.taken == steps, f"{self.heading}: the doc's steps are {steps}"
        assert cost == len(set(steps)), f"{self.heading}: the doc says {cost} files"


def test_the_doc_numbers_a_recipe_for_each_test_and_names_real_files():
    recipes = doc_recipes()
    assert set(recipes) == set(RECIPES)
    for heading, (steps, cost) in recipes.items():
        assert steps and cost, heading
        for file in steps:  # a file the recipe edits exists; a new one is named by a pattern
            assert "<" in file or (ROOT / file).is_file(), (heading, file)


# -- Adding a method ----------------------------------------------------------------------


def _first_axis_gap(inputs: ContextVectors, settings, seed) -> Score:
    """The mean first coordinate of X's items minus Y's: a toy with no test."""
    x, y = (np.concatenate(list(inputs.groups[r]))[:, 0] for r in "XY")
    return Score(float(x.mean() - y.mean()), sizes={"X": len(x), "Y": len(y)})


#: step 1 of "Adding a method": the module's score and its declaration, its truth included
TOY = Method(
    "Toy gap",
    "nobody (a test)",
    "embedding",
    ContextVectors,
    _first_axis_gap,
    encodings=("word/mean",),
    roles=("X", "Y"),
    description="Mean first coordinate of X minus that of Y.",
    truth=Truth("difference", ON_STUDY, WHY_TEST),
)

REPORT = ReportSettings(models={}, alpha=0.05, natural=None, null_models=())


def _study(tmp_path, effect) -> dict[str, list[str]]:
    """Eight ground-truth study models, each its own draw, with the injected quantities
    and the toy's row on the study's test (``effect`` of its difference): the league's
    study inputs."""
    names = [f"gt-mu0.50-sd0.20-a0.00-r{r}" for r in range(8)]
    difference = [0.1, 0.3, 0.2, 0.5, 0.4, 0.7, 0.6, 0.8]
    records = [
        {"name": n, "mu": 0.5, "kept": True, "p": [i / 10], "injected": {"difference": d}}
        for i, (n, d) in enumerate(zip(names, difference, strict=True))
    ]
    write_json(tmp_path / "study.json", {"models": records})
    rows = [
        score_row(
            method=TOY.name,
            paper=TOY.paper,
            family=TOY.family,
            model=n,
            test=STUDY_TEST,
            descriptor=STUDY_DESCRIPTOR,
            source="templates",
            encoding="word/mean",
            effect_size=effect(d),
        )
        for n, d in zip(names, difference, strict=True)
    ]
    write_tsv(tmp_path / "study_methods.tsv", pd.DataFrame(rows))
    return {
        "study_methods": [str(tmp_path / "study_methods.tsv")],
        "study_records": [str(tmp_path / "study.json")],
    }


def test_adding_a_method(monkeypatch, tmp_path):
    recipe = Recipe("Adding a method")
    recipe.step("biasbench/methods/<family>/<name>.py")  # TOY above
    recipe.step("biasbench/methods/registry.py")
    monkeypatch.setattr(registry, "REGISTRY", (*registry.REGISTRY, TOY))

    # the score stage's entry runs it with every method on context vectors
    rows = [
        (r, w) for r, words in {"X": "ab", "Y": "cd", "A": "ef", "B": "gh"}.items() for w in words
    ]
    contexts = pd.DataFrame(rows, columns=["role", "stimulus"])
    contexts["context_id"] = range(len(contexts))
    vectors = np.zeros((len(contexts), 3), np.float32)
    vectors[:, 0] = [1.0, 3.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]  # X: 1 and 3, Y: 0.5 and 0.5
    vectors[:, 1:] = np.random.default_rng(0).normal(size=(len(contexts), 2))  # all unlike
    encoded = EncodedContexts(
        contexts=contexts,
        arrays={"word/mean": vectors, "valid": np.ones(len(contexts), bool)},
        kind="static",
        is_decoder=False,
        source="words",
        test="T",
        descriptor="names",
    )
    out = score(encoded, model="m", settings=ScoreSettings(), signature="sig")

    recipe.step("tests/test_<name>.py")  # its test: a case by hand
    toy = out[out["method"] == "Toy gap"]
    assert len(toy) == 1 and list(out.columns) == COLUMNS
    assert toy["effect_size"].iloc[0] == pytest.approx(2.0 - 0.5)
    assert toy["n_x"].iloc[0] == 2 and np.isnan(toy["p_value"].iloc[0])
    assert {"WEAT", "RIPA"} <= set(out["method"])  # the registered ones still run beside it
    recipe.followed()

    # nothing else: tests/test_contract.py's checks hold for it as for every method
    from . import test_contract as contract

    contract.test_swapping_the_target_sets(method=TOY)
    for check in (
        contract.test_same_seed_same_bytes,
        contract.test_rows_have_exactly_the_schema_columns,
        contract.test_a_method_reads_exactly_the_settings_it_declares,
        contract.test_an_empty_set_raises_the_documented_error,
    ):
        check(TOY)
    # the ground-truth study and the league find its truth in its declaration
    assert truth_of("Toy gap") is TOY.truth
    write_tsv(tmp_path / "all.tsv", out)
    inputs = {"scores": [str(tmp_path / "all.tsv")], **_study(tmp_path, lambda d: 3 * d**3)}
    csv, _md, _html = render_table(catalog.TABLES["synthesis_league"], inputs, REPORT)
    league = pd.read_csv(pd.io.common.StringIO(csv)).set_index("method")
    row = league.loc["Toy gap"]
    assert (row["truth_quantity"], row["truth_on"]) == ("difference", ON_STUDY)
    assert row["truth_spearman"] == pytest.approx(1.0) and row["models"] == 8
    assert row["truth_verdict"] == "found"


# -- Adding a data set ---------------------------------------------------------------------


def _toy_pairs_scorer(engine, pairs, *, model, settings, seed, signature, se=True):
    """Step 2 of "Adding a data set": what its measure asks the engine (each sentence's
    score) and hands to its method (a registered one: CrowS-Pairs' share), one row."""
    method = registry.get("CrowS-Pairs")
    scored = engine.pll([s for pair in pairs for s in pair], None)
    n = len(pairs)
    inputs = PairScores(scored[0::2], scored[1::2], np.ones(n, bool), np.array(["x"] * n))
    key = rows_.RowKey(model, "dataset", "Toy pairs", "all", "mlm-pll", "full")
    row = rows_.make_row(
        method,
        key,
        method(inputs, settings, seed),
        primary=True,
        unit="sentence pair",
        seed=seed,
        signature=signature,
        settings=method.settings_of(settings),
    )
    return rows_.frame([row])


class _HandSetEngine:
    """A masked LM whose pseudo-log-likelihood of a sentence is set by hand."""

    masked = True
    scores = {"he codes": -1.0, "she codes": -2.0, "he cooks": -3.0, "she cooks": -1.5}

    def pll(self, sentences, _masked_too):
        return np.array([self.scores[s] for s in sentences])


def test_adding_a_data_set(monkeypatch, tmp_path):
    from biasbench.config import validate_config
    from biasbench.plan import make_plan

    from .test_plan_isolation import default_config

    recipe = Recipe("Adding a data set")
    data = tmp_path / "toy.txt"
    data.write_text("he codes|she codes\nhe cooks|she cooks\n", encoding="utf-8")
    recipe.step("biasbench/data/datasets.py")  # its record and its reader
    toy = data_sets.DataSet(
        "Toy pairs",
        ("data",),
        lambda files: [tuple(line.split("|")) for line in iter_lines(files["data"][0])],
        sampled=True,
    )
    monkeypatch.setitem(data_sets.DATASETS, "toy_pairs", toy)
    recipe.step("biasbench/scoring/datasets.py")  # its scorer and its line in SCORERS
    monkeypatch.setitem(scorers.SCORERS, "toy_pairs", _toy_pairs_scorer)
    recipe.step("config.yaml")  # its files; the schema takes its name from DATASETS
    config = default_config()
    config["datasets"]["files"]["toy_pairs"] = {"data": str(data)}
    config["datasets"]["limits"]["toy_pairs"] = 1
    plan = make_plan(validate_config(config), ROOT)
    model = "minilm-l6+mlm-head"  # runs "all" the data sets
    assert (model, "toy_pairs") in plan.dataset_jobs
    files = plan.dataset_roles(model, "toy_pairs")
    assert files == {"data": [str(data)]}

    recipe.step("tests/test_datasets.py")  # its scorer on an engine with hand-set numbers
    args = {"model": model, "settings": ScoreSettings(seed=1), "signature": "sig"}
    # the log-probability job's data-set call: reads, samples and fits the items, scores them
    # at the entry
    frame, coverage, outcomes = score_dataset(_HandSetEngine(), "toy_pairs", files, None, **args)
    assert list(frame.columns) == COLUMNS and list(frame["method"]) == ["CrowS-Pairs"]
    assert frame["test"].iloc[0] == "Toy pairs"
    assert frame["effect_size"].iloc[0] == pytest.approx(50.0)  # he codes wins, he cooks not
    assert outcomes.empty  # it writes no per-item outcomes (not in WITH_OUTCOMES)
    assert (coverage["items"], coverage["scored"]) == (2, 2)
    limit = config["datasets"]["limits"]["toy_pairs"]  # the job's limit: a seeded sample
    one, sampled, _o = score_dataset(_HandSetEngine(), "toy_pairs", files, limit, **args)
    assert sampled["scored"] == 1 and one["effect_size"].iloc[0] in (0.0, 100.0)
    recipe.followed()


# -- Adding a null kind --------------------------------------------------------------------


def _swap_by_coin(contexts, words, rng):
    """A toy draw that swaps X and Y wholesale on a coin."""
    import dataclasses

    if rng.random() < 0.5:
        return contexts, words
    roles = contexts["role"].map({"X": "Y", "Y": "X"}).fillna(contexts["role"])
    sets = {**words.sets, "X": words.sets["Y"], "Y": words.sets["X"]}
    return contexts.assign(role=roles), dataclasses.replace(words, sets=sets)


def test_adding_a_null_kind(monkeypatch, tmp_path):
    from biasbench import nulls
    from biasbench.config import model_entry, validate_config
    from biasbench.errors import InputError
    from biasbench.models.specs import ModelSpec
    from biasbench.plan import make_plan
    from biasbench.plan.null import check_model_names
    from biasbench.reports.calibration import trained_tables
    from biasbench.studies import null_calibration as nc

    from .test_plan_isolation import default_config
    from .test_trained_null import _geometry, _words

    recipe = Recipe("Adding a null kind")
    recipe.step("biasbench/nulls.py")  # its record (and its draw) in TRAINED_NULLS
    coin = nulls.TrainedNull(
        key="coin",
        infix="coin",
        label="swapped on a coin",
        randomizes=None,
        draw=_swap_by_coin,
        table="synthesis_null_coin",
        title="Coin null",
        heading="false-positive shares with X and Y swapped on a coin",
        summary="Significant results with X and Y swapped on a coin.",
        describes="The trained models {models} with X and Y swapped on a coin.",
    )
    monkeypatch.setattr(nulls, "TRAINED_NULLS", (*nulls.TRAINED_NULLS, coin))

    # its draws: every method on each, the draw's words in their new sets
    frame, arrays = _geometry()
    inputs = nc.TrainedInputs({"names": frame}, {"names": arrays}, {"names": _words()}, False, "s")
    spec = ModelSpec.from_config("m", model_entry(kind="transformer", source="hf:org/m"))
    settings = ScoreSettings(seed=1, exact_max=1000, n_samples=200, ceat_samples=100)
    rows = nc.trained_null_rows(
        spec, "T", inputs, 6, source="templates", settings=settings, seed=1, kind=coin
    )
    recipe.step("tests/test_trained_null.py")  # a test of its draw
    assert sorted(set(rows["model"])) == coin.draw_names("m", 6)
    seat = rows[rows["method"] == "s-SEAT"].set_index("model")["effect_size"]
    assert np.allclose(seat.abs(), abs(seat.iloc[0]))  # a swap negates s-SEAT's d, no more
    assert (seat > 0).any() and (seat < 0).any()  # both faces of the coin among 6 draws
    recipe.followed()

    # nothing else: its section null_calibration.coin is the schema's from the record, and
    # plans its jobs
    config = default_config()
    config["null_calibration"]["coin"] = {"models": ["glove-6b-50d"], "draws": 3}
    plan = make_plan(validate_config(config), ROOT)
    assert plan.trained_files("coin") == [coin.scores_file("glove-6b-50d")]
    assert plan.trained_bases()["glove-6b-50d-coin-r2"] == "glove-6b-50d"
    with pytest.raises(InputError, match="a coin draw of 'glove-6b-50d'"):
        check_model_names(["glove-6b-50d", "glove-6b-50d-coin-r1"])

    # its calibration table comes with it, reading its draws' rows alone
    (table,) = [t for t in trained_tables() if t.name == "synthesis_null_coin"]
    assert table.reads(plan)["trained"] == [coin.scores_file("glove-6b-50d")]
    drawn = rows.assign(test=rows["test"] + rows["model"].str[-1])  # a cluster per draw
    path = tmp_path / coin.scores_file("m")
    path.parent.mkdir(parents=True)
    write_tsv(path, drawn)
    write_tsv(tmp_path / "all.tsv", rows.iloc[:0])
    report = ReportSettings(
        models={},
        alpha=0.05,
        trained_bases=plan.trained_bases() | {n: "m" for n in coin.draw_names("m", 6)},
    )
    inputs = {"scores": [str(tmp_path / "all.tsv")], "trained": [str(path)]}
    csv, md, _ = render_table(table, inputs, report)
    shares = pd.read_csv(pd.io.common.StringIO(csv)).set_index(["method", "design"])
    assert shares.loc[("s-SEAT", "paper"), "cells_null"] == 6
    assert "X and Y swapped on a coin" in md


# -- Adding an analysis --------------------------------------------------------------------


TOY_ANALYSIS = """
import pandas as pd

from biasbench.reports.synthesis_inputs import COMPARISON_SECTION, synthesis_table
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import scores_only


def mean_per_method(inputs, settings):
    frame = pd.read_csv(inputs["scores"][0], sep="\\t").groupby("method", as_index=False).mean()
    return plain_table(frame, "Toy analysis", "Each method's mean effect size.")


TABLES = (synthesis_table("toy_means", "Toy means", mean_per_method, "", reads=scores_only),)
FIGURES = ()
SECTION = COMPARISON_SECTION
ORDER = 6
"""


def test_adding_an_analysis(monkeypatch, tmp_path):
    """An analysis of the comparison declares its tables (what they read, how they render),
    its report section and its place in its own module; the catalog finds it, so rule table
    builds its tables by name, listed in that section of the report."""
    recipe = Recipe("Adding an analysis")
    recipe.step("biasbench/reports/<name>.py")  # its tables, figures, section and place
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "toy_means.py").write_text(TOY_ANALYSIS, encoding="utf-8")
    # the package's folder holds the module (here: one more folder of the package)
    monkeypatch.setattr(biasbench.reports, "__path__", [*biasbench.reports.__path__, str(folder)])
    monkeypatch.delitem(sys.modules, "biasbench.reports.toy_means", raising=False)
    papers = catalog.analyses()  # what the catalog's import finds
    assert papers[-1].__name__ == "biasbench.reports.toy_means"
    monkeypatch.setattr(catalog, "PAPERS", papers)
    tables, figures = catalog.targets()
    monkeypatch.setattr(catalog, "TABLES", tables)
    monkeypatch.setattr(catalog, "FIGURES", figures)

    recipe.step("tests/test_<name>.py")  # its table by hand
    table = catalog.TABLES["toy_means"]  # rule table's, by name
    assert table.inputs(None) == {"scores": [SCORES]}
    assert catalog.report_section("toy_means") == catalog.COMPARISON
    scores = tmp_path / "all.tsv"
    pd.DataFrame({"method": ["WEAT", "WEAT", "MAC"], "effect_size": [1.0, 3.0, 0.5]}).to_csv(
        scores, sep="\t", index=False
    )
    csv, markdown, _html = render_table(table, {"scores": [str(scores)]}, ReportSettings())
    assert csv.splitlines()[1:] == ["MAC,0.5", "WEAT,2"]
    assert "Toy analysis" in markdown and "Each method's mean effect size." in markdown
    recipe.followed()
    # the report's sections stay as they were: the analysis joins the comparison's
    assert catalog.sections() == catalog.sections(catalog.PAPERS[:-1])
    monkeypatch.delitem(sys.modules, "biasbench.reports.toy_means")
