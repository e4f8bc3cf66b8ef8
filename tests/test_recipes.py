"""The recipes of docs/methods.md and docs/layout.md followed end to end with a toy of each
kind in a temporary registry: what each costs is what the recipe says, and nothing else is
touched (the scoring stage and the tables find the toy where they find the real ones)."""

import numpy as np
import pandas as pd
import pytest

from biasbench import rows as rows_
from biasbench.data import datasets as data_sets
from biasbench.data.pairsets import iter_lines
from biasbench.methods import registry
from biasbench.methods.contract import (
    ON_DATA_SET,
    ON_STUDY,
    WHY_SHARE,
    WHY_TEST,
    ContextVectors,
    Method,
    PairScores,
    Truth,
)
from biasbench.reports import catalog
from biasbench.reports.synthesis_inputs import synthesis_table
from biasbench.reports.tables import ReportSettings, plain_table
from biasbench.reports.targets import render_table, scores_only
from biasbench.rows import COLUMNS, Score
from biasbench.scoring import datasets as scorers
from biasbench.scoring.dataset_stage import score_dataset
from biasbench.scoring.embeddings import score_file
from biasbench.scoring.settings import ScoreSettings


def _first_axis_gap(inputs: ContextVectors, settings, seed) -> Score:
    """The mean first coordinate of X's items minus Y's: a toy with no test."""
    x, y = (np.concatenate(list(inputs.groups[r]))[:, 0] for r in "XY")
    return Score(float(x.mean() - y.mean()), sizes={"X": len(x), "Y": len(y)})


#: step 1 of "Adding a method": the module's score and its declaration
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


def test_a_new_method_costs_a_module_and_a_registry_line(monkeypatch):
    # step 2: its line in the registry; the scoring stage then runs it with the others
    monkeypatch.setattr(registry, "REGISTRY", (*registry.REGISTRY, TOY))
    rows = [
        (r, w) for r, words in {"X": "ab", "Y": "cd", "A": "ef", "B": "gh"}.items() for w in words
    ]
    contexts = pd.DataFrame(rows, columns=["role", "stimulus"])
    contexts["context_id"] = range(len(contexts))
    vectors = np.zeros((len(contexts), 3), np.float32)
    vectors[:, 0] = [1.0, 3.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]  # X: 1 and 3, Y: 0.5 and 0.5
    vectors[:, 1:] = np.random.default_rng(0).normal(size=(len(contexts), 2))  # all unlike
    out = score_file(
        contexts,
        {"word/mean": vectors, "valid": np.ones(len(contexts), bool)},
        model="m",
        kind="static",
        is_decoder=False,
        source="words",
        test="T",
        descriptor="names",
        settings=ScoreSettings(),
        signature="sig",
    )
    toy = out[out["method"] == "Toy gap"]
    assert len(toy) == 1 and list(out.columns) == COLUMNS
    assert toy["effect_size"].iloc[0] == pytest.approx(2.0 - 0.5)  # by hand
    assert toy["n_x"].iloc[0] == 2 and np.isnan(toy["p_value"].iloc[0])
    assert {"WEAT", "RIPA"} <= set(out["method"])  # the registered ones still run beside it


def test_a_new_analysis_costs_a_module_and_a_catalog_line(monkeypatch, tmp_path):
    """An analysis declares its tables (what they read and how they render) in its own
    module; the catalog's line makes it a workflow target (rule table finds it by name)."""
    scores = tmp_path / "all.tsv"
    pd.DataFrame({"method": ["WEAT", "WEAT", "MAC"], "effect_size": [1.0, 3.0, 0.5]}).to_csv(
        scores, sep="\t", index=False
    )

    def mean_per_method(inputs, settings):
        frame = pd.read_csv(inputs["scores"][0], sep="\t").groupby("method", as_index=False).mean()
        return plain_table(frame, "Toy analysis", "Each method's mean effect size.")

    module = type("toy_analysis", (), {})()  # the analysis' module: its tables, no figure
    module.TABLES = (
        synthesis_table("toy_means", "Toy means", mean_per_method, "", reads=scores_only),
    )
    module.FIGURES = ()
    papers = (*catalog.PAPERS, module)
    monkeypatch.setattr(catalog, "TABLES", {t.name: t for p in papers for t in p.TABLES})
    csv, markdown, _html = render_table(
        catalog.TABLES["toy_means"], {"scores": [str(scores)]}, ReportSettings()
    )
    assert csv.splitlines()[1:] == ["MAC,0.5", "WEAT,2"]
    assert "Toy analysis" in markdown and "Each method's mean effect size." in markdown


def _more_wins(inputs: PairScores, settings, seed) -> Score:
    """The share of pairs whose more stereotyping sentence scores higher: a toy, no test."""
    return Score(float(np.mean(inputs.more > inputs.less)), sizes={"X": len(inputs.more)})


TOY_PAIRS = Method(
    "Toy pair share",
    "nobody (a test)",
    "probability",
    PairScores,
    _more_wins,
    encodings=("mlm",),
    roles=(),
    description="Share of pairs whose more stereotyping sentence the model scores higher.",
    truth=Truth("stereotype", ON_DATA_SET, WHY_SHARE),
)


def _toy_pairs_scorer(engine, pairs, *, model, settings, seed, signature, se=True):
    """Step 3 of "Adding a data set": what its measure asks the engine (each sentence's
    score) and hands to its method, one row per encoding (``scoring/datasets.py``)."""
    scored = engine.pll([s for pair in pairs for s in pair], None)
    inputs = PairScores(scored[0::2], scored[1::2], np.ones(len(pairs), bool), np.array(["x"]))
    key = rows_.RowKey(model, "dataset", "Toy pairs", "all", "mlm", "full")
    row = rows_.make_row(
        TOY_PAIRS,
        key,
        TOY_PAIRS(inputs, settings, seed),
        primary=True,
        unit="item",
        seed=seed,
        signature=signature,
        settings={},
    )
    return rows_.frame([row])


class _HandSetEngine:
    """A masked LM whose pseudo-log-likelihood of a sentence is set by hand."""

    masked = True
    scores = {"he codes": -1.0, "she codes": -2.0, "he cooks": -3.0, "she cooks": -1.5}

    def pll(self, sentences, _masked_too):
        return np.array([self.scores[s] for s in sentences])


ARGS = {"model": "m", "settings": ScoreSettings(seed=1), "signature": "sig"}


def test_a_new_data_set_costs_a_declaration_a_scorer_and_a_method(monkeypatch, tmp_path):
    """The data-set stage's entry (``score_dataset``) reads, samples and scores a data set
    declared in three places: its record (files by role, reader, sampling), its scorer and
    its method's module with the registry line. config/schema.yaml's lists of data-set names
    then take its name (tests/test_datasets.py fails until they do)."""
    data = tmp_path / "toy.txt"
    data.write_text("he codes|she codes\nhe cooks|she cooks\n", encoding="utf-8")
    # step 1: the declaration (biasbench/data/datasets.py)
    toy = data_sets.DataSet(
        "Toy pairs",
        ("data",),
        lambda files: [tuple(line.split("|")) for line in iter_lines(files["data"][0])],
        sampled=True,
    )
    monkeypatch.setitem(data_sets.DATASETS, "toy_pairs", toy)
    # step 2: the method's module and its registry line
    monkeypatch.setattr(registry, "REGISTRY", (*registry.REGISTRY, TOY_PAIRS))
    # step 3: the scorer and its line in SCORERS
    monkeypatch.setitem(scorers.SCORERS, "toy_pairs", _toy_pairs_scorer)
    frame, coverage, outcomes = score_dataset(
        _HandSetEngine(), "toy_pairs", {"data": [str(data)]}, None, **ARGS
    )
    assert list(frame.columns) == COLUMNS and list(frame["method"]) == ["Toy pair share"]
    assert frame["effect_size"].iloc[0] == pytest.approx(0.5)  # he codes wins, he cooks not
    assert outcomes.empty  # it writes no per-item outcomes (not in WITH_OUTCOMES)
    assert (coverage["items"], coverage["scored"]) == (2, 2)
    one, sampled, _o = score_dataset(  # a limit samples its items, seeded
        _HandSetEngine(), "toy_pairs", {"data": [str(data)]}, 1, **ARGS
    )
    assert sampled["scored"] == 1 and one["effect_size"].iloc[0] in (0.0, 1.0)


def _swap_by_coin(contexts, words, rng):
    """Step 1 of "Adding a null kind": a toy draw that swaps X and Y wholesale on a coin."""
    import dataclasses

    if rng.random() < 0.5:
        return contexts, words
    roles = contexts["role"].map({"X": "Y", "Y": "X"}).fillna(contexts["role"])
    sets = {**words.sets, "X": words.sets["Y"], "Y": words.sets["X"]}
    return contexts.assign(role=roles), dataclasses.replace(words, sets=sets)


def test_a_new_null_kind_costs_a_record_its_draw_and_its_config_section(monkeypatch, tmp_path):
    from biasbench import nulls
    from biasbench.config import model_entry, validate_config
    from biasbench.errors import InputError
    from biasbench.io import write_tsv
    from biasbench.models.specs import ModelSpec
    from biasbench.plan import make_plan
    from biasbench.plan.null import check_model_names
    from biasbench.reports.calibration import trained_tables
    from biasbench.studies import null_calibration as nc

    from .test_plan_isolation import ROOT, default_config
    from .test_trained_null import _geometry, _words

    # step 1: the kind's record (and its draw) in biasbench/nulls.py's TRAINED_NULLS
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
    assert sorted(set(rows["model"])) == coin.draw_names("m", 6)
    seat = rows[rows["method"] == "s-SEAT"].set_index("model")["effect_size"]
    assert np.allclose(seat.abs(), abs(seat.iloc[0]))  # a swap negates s-SEAT's d, no more
    assert (seat > 0).any() and (seat < 0).any()  # both faces of the coin among 6 draws

    # step 2: its section in config/schema.yaml (here: added after validation) plans its jobs
    config = validate_config(default_config())
    config["null_calibration"]["coin"] = {"models": ["glove-6b-50d"], "draws": 3}
    plan = make_plan(config, ROOT)
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
