"""The trained-weight null: a real model's vectors with each test's words reassigned to its
sets at random. The reassignment moves every context with its word and keeps sizes and
definitional pairs; over reassignments of one fixed geometry the word-level test rejects at
alpha (its p is that reassignment's probability) while the context-level paper test, whose
units are not exchangeable, rejects far more often."""

import numpy as np
import pandas as pd
import pytest

from biasbench.config import model_entry
from biasbench.data.wordsets import WordSet
from biasbench.models.specs import ModelSpec
from biasbench.nulls import POOLS, REASSIGNED, reassign
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies import calibration as cal
from biasbench.studies import null_calibration as nc

SETS = {
    "X": ("x1", "x2", "x3", "x4", "x5", "x6"),
    "Y": ("y1", "y2", "y3", "y4", "y5", "y6"),
    "A": ("a1", "a2", "a3", "a4", "a5", "a6"),
    "B": ("b1", "b2", "b3", "b4", "b5", "b6"),
    "D.1": ("d1",),
}


def _words(paired=False, sets=SETS):
    return WordSet(
        "T", "names", "src", "person", "basic", sets, {r: r for r in sets}, paired=paired
    )


def _frame(n_ctx=4, sets=SETS):
    rows = [(role, s) for role, words in sets.items() for s in words for _ in range(n_ctx)]
    frame = pd.DataFrame(rows, columns=["role", "stimulus"])
    frame["context_id"] = range(len(frame))
    return frame


def test_a_reassignment_moves_every_context_with_its_word_and_keeps_the_sizes():
    frame = _frame()
    moved, words = reassign(frame, _words(), np.random.default_rng(1))
    for first, second in POOLS:
        assert len(words.sets[first]) == len(words.sets[second]) == 6
        pool = set(SETS[first]) | set(SETS[second])
        assert set(words.sets[first]) | set(words.sets[second]) == pool
    assert words.sets["D.1"] == ("d1",)  # other roles are kept
    for role, members in words.sets.items():
        rows = moved[moved["stimulus"].isin(members) & frame["role"].isin(_pool_of(role))]
        assert (rows["role"] == role).all() and len(rows) == 4 * len(members)
    assert (moved["stimulus"] == frame["stimulus"]).all()  # vectors stay with their rows
    again, same = reassign(frame, _words(), np.random.default_rng(1))
    assert same == words and again.equals(moved)  # seeded


def _pool_of(role):
    return next((p for p in POOLS if role in p), (role,))


def test_a_reassignment_mixes_targets_between_sets():
    seen = set()
    for seed in range(50):
        _moved, words = reassign(_frame(1), _words(), np.random.default_rng(seed))
        seen.add(sum(w.startswith("x") for w in words.sets["X"]))
    assert len(seen) >= 4  # hypergeometric: 0..6 of X's words stay in X


def test_definitional_pairs_stay_pairs_each_flipped_by_a_coin():
    flipped = np.zeros(6)
    for seed in range(200):
        _moved, words = reassign(_frame(1), _words(paired=True), np.random.default_rng(seed))
        pairs = list(zip(words.sets["A"], words.sets["B"], strict=True))
        assert {frozenset(p) for p in pairs} == {
            frozenset(p) for p in zip(SETS["A"], SETS["B"], strict=True)
        }
        flipped += [a.startswith("b") for a, _b in pairs]
    assert ((flipped > 70) & (flipped < 130)).all()  # each about half of 200


def test_a_word_in_both_sets_of_a_pool_is_an_error():
    sets = dict(SETS) | {"Y": ("x1", "y2", "y3", "y4", "y5", "y6")}
    with pytest.raises(ValueError, match="X and Y share a word"):
        reassign(_frame(1, sets), _words(sets=sets), np.random.default_rng(0))


def _geometry(n_ctx=6, dim=8, seed=0):
    """One fixed 'trained' geometry: each word its own direction (word effects much larger
    than the context noise), a shared component all vectors have (anisotropy). Contexts of a
    word are not exchangeable with another word's, which a context-level test ignores."""
    rng = np.random.default_rng(seed)
    frame = _frame(n_ctx)
    words = {s: rng.normal(size=dim) for s in frame["stimulus"].unique()}
    shared = rng.normal(size=dim) * 2
    vectors = np.stack([words[s] for s in frame["stimulus"]]) + shared
    vectors += rng.normal(scale=0.3, size=vectors.shape)
    arrays = {"word/mean": vectors.astype(np.float32), "valid": np.ones(len(frame), bool)}
    for key in ("sent/cls", "sent/last", "sent/mean", "word/first", "word/last"):
        arrays[key] = arrays["word/mean"]
    return frame, arrays


def test_over_reassignments_the_word_test_holds_alpha_and_the_context_tests_do_not():
    frame, arrays = _geometry()
    inputs = nc.TrainedInputs({"names": frame}, {"names": arrays}, {"names": _words()}, False, "s")
    spec = ModelSpec.from_config("m", model_entry(kind="transformer", source="hf:org/m"))
    settings = ScoreSettings(seed=1, exact_max=1000, n_samples=200, ceat_samples=100)
    draws = 200
    rows = nc.trained_null_rows(
        spec, "T", inputs, draws, source="templates", settings=settings, seed=1
    )
    assert set(rows["model"]) == set(REASSIGNED.draw_names("m", draws))
    s_seat = rows[(rows["method"] == "s-SEAT") & rows["primary"]]
    assert len(s_seat) == draws
    word = float((s_seat["p_word"] < 0.05).mean())
    paper = float((s_seat["p_value"] < 0.05).mean())
    low, high = cal.clopper_pearson(round(word * draws), draws)
    assert low <= 0.05 <= high  # exact enumeration of C(12, 6): calibrated by construction
    # contexts of one word counted as independent units: far above alpha
    assert cal.clopper_pearson(round(paper * draws), draws)[0] > 2 * 0.05


def test_draw_names_and_files():
    assert REASSIGNED.draw_names("glove", 2) == ["glove-reassigned-r0", "glove-reassigned-r1"]
    assert REASSIGNED.scores_file("glove") == "results/scores/null/trained/glove.tsv"

    from biasbench.reports.catalog import TABLES

    from .test_plan_targets import plan_of

    plan = plan_of()  # the draws' rows are read as the kind's, never as random-weight copies
    drawn = plan.trained_files(REASSIGNED.key)
    assert drawn and TABLES[REASSIGNED.table].inputs(plan)["trained"] == drawn
    assert not set(drawn) & set(TABLES["synthesis_null"].inputs(plan)["nulls"])


def test_the_trained_null_table_counts_the_draws_alone_one_cluster_per_test(tmp_path):
    """Model m's 4 draws on tests T0, T1: s-SEAT below 0.05 in every draw of T0 and none of
    T1 (2 clusters, share 1/2); the real model's cells and the random-weight copy's stay out
    of the null share."""
    from biasbench.io import write_tsv
    from biasbench.reports.catalog import TABLES
    from biasbench.reports.tables import ReportSettings
    from biasbench.reports.targets import render_table

    from .conftest import score_row

    def row(model, test, p):
        return score_row(
            method="s-SEAT",
            model=model,
            test=test,
            descriptor="names",
            source="templates",
            effect_size=0.1,
            p_value=p,
            p_word=0.5,
        )

    draws = REASSIGNED.draw_names("m", 4)
    real = [row("m", "T0", 0.001), row("m", "T1", 0.001), row("m-null", "T0", 0.001)]
    write_tsv(tmp_path / "all.tsv", pd.DataFrame(real))
    path = tmp_path / REASSIGNED.scores_file("m")
    path.parent.mkdir(parents=True)
    drawn = [row(d, "T0", 0.01) for d in draws] + [row(d, "T1", 0.5) for d in draws]
    write_tsv(path, pd.DataFrame(drawn))
    settings = ReportSettings(
        models={}, alpha=0.05, null_models=("m-null",), trained_bases=dict.fromkeys(draws, "m")
    )
    csv, md, _ = render_table(
        TABLES["synthesis_null_trained"],
        {"scores": [str(tmp_path / "all.tsv")], "trained": [str(path)]},
        settings,
    )
    table = pd.read_csv(pd.io.common.StringIO(csv)).set_index(["method", "design"])
    paper = table.loc[("s-SEAT", "paper")]
    assert paper["cells_null"] == 8 and paper["clusters_0.05"] == 2
    assert paper["null_0.05"] == pytest.approx(0.5) and paper["null_0.01"] == 0
    assert paper["null_low_0.05"] == pytest.approx(cal.clopper_pearson(1, 2)[0], rel=1e-5)
    assert paper["cells_real"] == 2 and paper["real_0.05"] == 1  # m's own, not m-null's
    assert table.loc[("s-SEAT", "word"), "null_0.05"] == 0
    assert "words reassigned" in md and "The trained models m scored again" in md
