"""Generated null designs: seeded, disjoint, sized like the papers' tests, unbalanced where
declared, each on a copy of its own and a cluster of its own; on random static vectors their
tests reject at the nominal rate (a null that could have failed them)."""

import io

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from biasbench.config import model_entry
from biasbench.data.designs import SIZES, check_designs, design_seed, designs_allowed, word_pool
from biasbench.errors import InputError
from biasbench.io import write_tsv
from biasbench.models.load import StaticVectors
from biasbench.models.null import design_copy_names
from biasbench.models.specs import ModelSpec
from biasbench.reports.catalog import TABLES
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import render_table
from biasbench.rows import COLUMNS
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies import calibration as cal
from biasbench.studies import null_calibration as nc
from biasbench.studies.cells import primary_cells
from biasbench.studies.generated import QUARTER, draw_design

from .conftest import score_row

POOL = [f"w{i:03d}" + "x" * (i % 7) for i in range(400)]  # lengths 4 to 10


def test_a_design_is_seeded_by_its_index_and_its_sets_are_disjoint_and_sized():
    for index in range(12):
        design = draw_design(POOL, index, seed=7)
        assert design == draw_design(POOL, index, seed=7)  # drawn alone or among others
        assert design != draw_design(POOL, index, seed=8)
        words = [w for r in "XYAB" for w in design.sets[r]]
        assert len(set(words)) == len(words) and set(words) <= set(POOL)
        sizes = {len(design.sets[r]) for r in "XYAB"}
        assert len(sizes) == 1 and sizes.pop() in SIZES
        assert design.kind == ("balanced" if index % 2 == 0 else "length")
        assert design.test == f"gen{index:03d}"


def test_an_unbalanced_design_takes_x_and_y_mostly_from_the_two_ends_of_the_cost():
    # word pieces: 1 in the first quarter of the pool, 5 in the last, 3 between
    cost = {w: 1 if i < 100 else 5 if i >= 300 else 3 for i, w in enumerate(POOL)}
    ranked = sorted(cost.values())
    low, high = ranked[int(len(POOL) * QUARTER) - 1], ranked[-int(len(POOL) * QUARTER)]
    assert (low, high) == (1, 5)  # the two quarters: one piece, five pieces
    for index in (1, 3, 5):
        design = draw_design(POOL, index, seed=2, cost=cost)
        size = len(design.sets["X"])
        x, y = ([cost[w] for w in design.sets[r]] for r in "XY")
        assert design.kind == "pieces"
        # three quarters from its own end, a quarter from the other: both ends on both sides
        assert sorted(x) == [1] * (size - size // 4) + [5] * (size // 4)
        assert sorted(y) == [1] * (size // 4) + [5] * (size - size // 4)
        a_b = [cost[w] for r in "AB" for w in design.sets[r]]
        assert set(a_b) == {3}  # the middle half
    # without a tokenizer: the length in characters, X mostly short and Y mostly long
    design = draw_design(POOL, 1, seed=2)
    x, y = (np.sort([len(w) for w in design.sets[r]]) for r in "XY")
    assert np.median(x) < np.median(y)


def test_the_pool_is_one_word_per_form_the_model_tells_apart():
    pool = word_pool(["Tom", "tom", "New York", "amy", "", "zed", "amy"], normalise=str.lower)
    assert pool == ["Tom", "amy", "zed"]
    assert word_pool(["b", "a", "c"], known=lambda w: w != "c") == ["a", "b"]
    with pytest.raises(ValueError, match="too small"):
        draw_design(POOL[:30], 0, seed=1)


def test_the_designs_a_pool_allows_are_those_draw_design_can_draw():
    """The job failed at the first design too large for its pool ("a pool of 52 words is too
    small for sets of 16"), naming neither the config field nor how many designs fit: it now
    refuses the count first, from the sizes draw_design draws."""
    for size in (30, 40, 47, 52, 60, 64):
        allowed, too_large = designs_allowed(size, 60, seed=3)
        for index in range(allowed):
            draw_design(POOL[:size], index, seed=3)
        if allowed < 60:
            with pytest.raises(ValueError, match=f"too small for sets of {too_large}"):
                draw_design(POOL[:size], allowed, seed=3)
    assert designs_allowed(64, 10**6, seed=3) == (10**6, 0)  # every size fits
    field = "null_calibration.models.glove-6b-50d.designs"
    allowed, _ = designs_allowed(52, 1000, design_seed(20221207, "glove-6b-50d"))
    with pytest.raises(InputError) as error:
        check_designs(52, 1000, design_seed(20221207, "glove-6b-50d"), field, "its words")
    assert str(error.value).startswith(f"config: {field}: 1000 generated designs")
    assert f"supplies the first {allowed} only" in str(error.value)
    assert f"set {field} to at most {allowed}" in str(error.value)
    check_designs(52, allowed, design_seed(20221207, "glove-6b-50d"), field, "its words")


def _static(words, dim=8):
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(len(words), dim)).astype(np.float32)
    return StaticVectors({w: i for i, w in enumerate(words)}, vectors, lowercase=True)


def test_each_design_is_scored_on_a_copy_of_its_own_as_a_cluster_of_its_own():
    base = ModelSpec.from_config("glove", model_entry(kind="static", source="glove-pkg:x"))
    designs = [draw_design(POOL, i, seed=3) for i in range(4)]
    settings = ScoreSettings(seed=1, exact_max=500, n_samples=200, same_samples=50)
    run = [
        nc.static_null_rows(
            base, _static(POOL), 1, {}, settings=settings, seed=9, designs=designs, log=print
        )
        for _ in range(2)
    ]
    frame = run[0]
    assert frame.equals(run[1])  # seeded
    assert sorted(set(frame["model"])) == design_copy_names("glove", 4)
    assert set(frame["test"]) == {d.test for d in designs} and set(frame["source"]) == {"words"}
    cells = primary_cells(frame, {})
    bases = dict.fromkeys(design_copy_names("glove", 4), "glove")
    clusters = cal.null_clusters(cells[cells["method"] == "WEAT"], bases)
    assert clusters.nunique() == 4  # one cluster per design
    weat = frame[(frame["method"] == "WEAT") & frame["primary"].astype(bool)]
    assert weat["p_value"].notna().all() and len(weat) == 4
    # A and B paired by position: the pair methods score every design too
    ripa = frame[(frame["method"] == "RIPA") & frame["primary"].astype(bool)]
    assert ripa["p_value"].notna().all() and len(ripa) == 4
    assert frame.loc[frame["method"] == "Direct Bias", "effect_size"].notna().any()


def test_on_random_static_vectors_the_designs_reject_at_the_nominal_rate():
    """A null that could have failed the tests: 240 generated designs on random vectors, every
    one a fresh copy, each method's p-values (its paper test: the words are its items)
    uniform by a Kolmogorov-Smirnov test and the share below 0.05 inside its exact 99.9%
    interval. A test that rejected too often on them would fail here."""
    base = ModelSpec.from_config("glove", model_entry(kind="static", source="glove-pkg:x"))
    designs = [draw_design(POOL, i, seed=11) for i in range(240)]
    settings = ScoreSettings(seed=2, exact_max=1000, n_samples=1000, same_samples=200)
    frame = nc.static_null_rows(
        base, _static(POOL, dim=16), 1, {}, settings=settings, seed=4, designs=designs, log=print
    )
    cells = primary_cells(frame, {})
    for method in ("WEAT", "RND", "RIPA"):
        p = cells.loc[cells["method"] == method, "p_value"].dropna().to_numpy()
        assert len(p) == 240, method
        assert sps.kstest(p, "uniform").pvalue > 0.001, method
        low, high = cal.clopper_pearson(int((p < 0.05).sum()), len(p), level=0.999)
        assert low <= 0.05 <= high, method


def test_the_generated_table_shows_the_designs_alone_by_balance(tmp_path):
    """synthesis_null_generated: the generated designs' null cells (tests gen<i>) alone, a
    calibration per kind; a seeded copy's paper test stays out."""
    rows = [
        score_row(
            method="s-SEAT",
            model=f"m-null-g{i}",
            test=f"gen{i:03d}",
            descriptor="balanced" if i % 2 == 0 else "pieces",
            source="words",
            effect_size=0.1,
            p_value=0.5 if i % 2 == 0 else 0.001,  # the unbalanced designs reject
            p_floor=0.0005,
        )
        for i in range(8)
    ]
    rows.append(
        score_row(
            method="s-SEAT",
            model="m-null-s0",
            test="C6",
            descriptor="names",
            source="templates",
            effect_size=0.1,
            p_value=0.001,
            p_floor=0.0005,
        )
    )
    (tmp_path / "scores" / "null").mkdir(parents=True)
    write_tsv(tmp_path / "all.tsv", pd.DataFrame(columns=COLUMNS))
    write_tsv(tmp_path / "scores" / "null" / "m.tsv", pd.DataFrame(rows))
    names = ("m-null-s0", *design_copy_names("m", 8))
    settings = ReportSettings(alpha=0.05, null_models=names, null_bases=dict.fromkeys(names, "m"))
    inputs = {
        "scores": [str(tmp_path / "all.tsv")],
        "nulls": [str(tmp_path / "scores" / "null" / "m.tsv")],
    }
    csv, markdown, _ = render_table(TABLES["synthesis_null_generated"], inputs, settings)
    table = pd.read_csv(io.StringIO(csv))
    paper = table[table["design"] == "paper"].set_index("designs")
    assert paper.loc["balanced", "clusters_0.05"] == 4 and paper.loc["balanced", "null_0.05"] == 0
    assert paper.loc["pieces", "clusters_0.05"] == 4 and paper.loc["pieces", "null_0.05"] == 1
    assert "random copy of its own" in markdown


def test_the_plan_names_each_designs_copy_and_refuses_those_names_to_a_model():
    from biasbench.errors import InputError
    from biasbench.plan.null import check_model_names

    from .test_plan_targets import plan_of

    plan = plan_of()
    # config.yaml: MiniLM's own count, GloVe the section's, SmolLM2 none
    assert plan.null_designs_of("minilm-l6") == 480 and plan.null_designs_of("smollm2-135m") == 0
    assert plan.null_designs_of("glove-6b-50d") == 240
    assert plan.null_bases()["minilm-l6-null-g479"] == "minilm-l6"
    assert "minilm-l6-null-g480" not in plan.null_bases()
    assert "glove-6b-50d-null-g0" in plan.null_copies()
    assert not any(n.startswith("smollm2-135m-null-g") for n in plan.null_copies())
    assert plan.null_pool_files("minilm-l6") == plan.wordset_files()
    assert plan.null_pool_files("smollm2-135m") == []
    with pytest.raises(InputError, match="seeded null copy"):
        check_model_names(["m", "m-null-g3"])


def test_the_preset_for_alpha_001_gives_every_base_with_designs_enough_for_a_verdict():
    """config/presets/null-designs-0.01.yaml over config.yaml: each base that draws designs
    (a base's own count in config.yaml included) gets at least the clusters a test calibrated
    exactly at 0.01 needs for an 80% chance of that verdict; SmolLM2 keeps its none."""
    from snakemake.utils import update_config

    from biasbench.config import read_yaml
    from biasbench.studies.calibration import clusters_for_verdict

    from .test_plan_targets import ROOT, plan_of

    preset = read_yaml(ROOT / "config/presets/null-designs-0.01.yaml")
    plan = plan_of(lambda config: update_config(config, preset))
    needed = clusters_for_verdict(0.01)
    assert plan.null_designs_of("minilm-l6") >= needed
    assert plan.null_designs_of("glove-6b-50d") >= needed
    assert plan.null_designs_of("smollm2-135m") == 0
