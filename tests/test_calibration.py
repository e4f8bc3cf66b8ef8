"""Calibration of the paper's and the word-level tests on null models: the exact binomial
interval and the false-positive shares by hand, the verdicts in the null table, the league
and the method cards, the cells that cannot reject, the survival of significant cells under
the word test, the split by word-piece balance, and the calibration figure on scores where
some methods have no p_word. The interval's coverage, the floors and the verdict's rule:
test_calibration_inference.py."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from biasbench import nulls
from biasbench.io import write_tsv
from biasbench.reports import league as league_report
from biasbench.reports import survival as survival_report
from biasbench.reports.catalog import FIGURES, TABLES
from biasbench.reports.figures import save
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import render_table
from biasbench.studies import calibration as cal
from biasbench.studies import survival as survival_study
from biasbench.studies.cells import primary_cells
from biasbench.studies.pieces import piece_balance, piece_gap, piece_gaps

from .conftest import method_cards, score_row

NULL = "m-null"
SETTINGS = ReportSettings(models={}, alpha=0.05, natural=None, null_models=(NULL,))
NAN = float("nan")


def _cells(method, model, p_values, p_words, test="T", descriptor="names", source="templates"):
    return [
        score_row(
            method=method,
            model=model,
            test=f"{test}{i}",
            descriptor=descriptor,
            source=source,
            effect_size=0.1,
            p_value=p,
            p_word=w,
        )
        for i, (p, w) in enumerate(zip(p_values, p_words, strict=True))
    ]


def _null_frame():
    """s-SEAT: 3 of 100 null cells below 0.05 (1 below 0.01), no word test; CEAT: 40 of 50
    below 0.01 under the paper's test, 2 of 50 below 0.05 under the word test."""
    s_seat = [0.001, 0.02, 0.03] + [0.5] * 97
    ceat_paper = [0.001] * 40 + [0.5] * 10
    ceat_word = [0.01, 0.02] + [0.5] * 48
    rows = _cells("s-SEAT", NULL, s_seat, [NAN] * 100)
    rows += _cells("CEAT", NULL, ceat_paper, ceat_word)
    rows += _cells("CEAT", "m", [0.001] * 5, [0.001, 0.2, NAN, 0.001, 0.3])
    return pd.DataFrame(rows)


def test_clopper_pearson_by_hand():
    low, high = cal.clopper_pearson(3, 100)
    # the exact interval: beta quantiles (Clopper & Pearson 1934)
    assert low == pytest.approx(sps.beta.ppf(0.025, 3, 98))
    assert high == pytest.approx(sps.beta.ppf(0.975, 4, 97))
    assert (round(low, 4), round(high, 4)) == (0.0062, 0.0852)
    assert cal.clopper_pearson(0, 10) == (0.0, pytest.approx(1 - 0.025 ** (1 / 10)))
    assert all(np.isnan(cal.clopper_pearson(0, 0)))
    # a sum of shares reads between its integer neighbours
    between = cal.clopper_pearson(2.5, 10)
    assert cal.clopper_pearson(2, 10)[0] < between[0] < cal.clopper_pearson(3, 10)[0]
    assert cal.clopper_pearson(2, 10)[1] < between[1] < cal.clopper_pearson(3, 10)[1]


def test_shares_and_verdicts_by_hand():
    # every cell its own cluster (tests T0..T99 on one null model)
    table = cal.calibration(_null_frame(), [NULL], {}).set_index(["method", "design"])
    s_paper = table.loc[("s-SEAT", "paper")]
    assert s_paper["cells_null"] == 100 and s_paper["clusters_0.05"] == 100
    assert s_paper["null_0.05"] == pytest.approx(0.03)
    assert s_paper["null_0.01"] == pytest.approx(0.01)
    assert (s_paper["null_low_0.05"], s_paper["null_high_0.05"]) == pytest.approx(
        cal.clopper_pearson(3, 100)
    )
    # 0.0852 <= 2 x 0.05 on 100 >= 67 clusters; at 0.01, 100 of the 340 clusters needed
    assert s_paper["verdict_0.05"] == "calibrated" and s_paper["needed_0.05"] == 67
    assert s_paper["verdict_0.01"] == "undetermined (100 clusters; 340 needed)"
    assert s_paper["cells_real"] == 0 and np.isnan(s_paper["real_0.05"])
    s_word = table.loc[("s-SEAT", "word")]  # no word test: a row that says so
    assert s_word["cells_null"] == 0 and s_word["verdict_0.05"] == "n/a"
    # the paper's test anti-conservative; the word test's 2 of 50 on too few clusters
    c_paper, c_word = table.loc[("CEAT", "paper")], table.loc[("CEAT", "word")]
    assert c_paper["null_0.01"] == pytest.approx(0.8)
    assert c_paper["verdict_0.01"] == c_paper["verdict_0.05"] == "miscalibrated"
    assert c_paper["real_0.05"] == 1
    assert c_word["null_0.05"] == pytest.approx(0.04)
    assert c_word["verdict_0.05"] == "undetermined (50 clusters; 67 needed)"
    assert c_word["null_0.01"] == 0
    assert c_word["cells_real"] == 4 and c_word["real_0.05"] == pytest.approx(0.5)


def _units_frame(static_paper, template_paper):
    """WEAT on static vectors (source words: every item a word) and s-SEAT on templates
    (items are contexts), 100 null cells each, each cell its own cluster."""
    rows = []
    for method, source, p_values in (
        ("WEAT", "words", static_paper),
        ("s-SEAT", "templates", template_paper),
    ):
        rows += [
            score_row(
                method=method,
                model=NULL,
                test=f"{source}{i}",  # every cell its own cluster
                descriptor="names",
                source=source,
                unit="context",
                effect_size=0.1,
                p_value=p,
                p_word=p,
                p_word_strata=p,
            )
            for i, p in enumerate(p_values)
        ]
    return pd.DataFrame(rows)


def test_a_test_that_exchanges_what_the_null_randomizes_is_exact_by_construction():
    """Under a null that reassigns words, a test that exchanges words has a uniform p
    whatever the method: its cells are counted apart and its verdict is 'exact by
    construction', never 'calibrated' (the same shares on random weights are 'calibrated');
    a paper test over contexts keeps its verdict, as it can fail; a test exact by
    construction that rejects too often is still 'miscalibrated' (the machinery is wrong)."""
    ok = [0.001, 0.02, 0.03] + [0.5] * 97  # 3 of 100 below 0.05: 'calibrated' on 100 clusters
    frame = _units_frame(ok, ok)
    random = cal.calibration(frame, [NULL], {}).set_index(["method", "design"])
    assert set(random["verdict_0.05"]) == {"calibrated"} and set(random["by_construction"]) == {0}
    words = nulls.REASSIGNED.randomizes
    trained = cal.calibration(frame, [NULL], {}, randomizes=words).set_index(["method", "design"])
    for key in (("WEAT", "paper"), ("WEAT", "word"), ("WEAT", "strata"), ("s-SEAT", "word")):
        assert trained.loc[key, "verdict_0.05"] == cal.BY_CONSTRUCTION, key
        assert trained.loc[key, "by_construction"] == 100
        assert trained.loc[key, "null_0.05"] == pytest.approx(0.03)  # the machinery's check
    seat = trained.loc[("s-SEAT", "paper")]
    assert seat["verdict_0.05"] == "calibrated" and seat["by_construction"] == 0
    broken = [0.001] * 40 + [0.5] * 60  # 40% below 0.01: even a uniform p was not uniform
    table = cal.calibration(_units_frame(broken, ok), [NULL], {}, randomizes=words)
    weat = table.set_index(["method", "design"]).loc[("WEAT", "paper")]
    assert weat["verdict_0.01"] == weat["verdict_0.05"] == "miscalibrated"


def test_cells_exact_by_construction_are_left_out_beside_those_that_can_fail():
    """One method with cells of both kinds: the shares and the verdict are over the cells
    that can fail (here 50 template cells, 1 below 0.05), the static ones counted apart."""
    frame = _units_frame([0.001] * 30, [0.04] + [0.5] * 49)
    frame["method"] = "WEAT"
    table = cal.calibration(frame, [NULL], {}, randomizes="words").set_index("design")
    paper = table.loc["paper"]
    assert (paper["cells_null"], paper["by_construction"], paper["cells_0.05"]) == (80, 30, 50)
    assert paper["null_0.05"] == pytest.approx(1 / 50)
    assert paper["verdict_0.05"] == "undetermined (50 clusters; 67 needed)"
    # the word design: every cell exact by construction, and 31 of 80 below 0.05 (the static
    # cells' p of 0.001 stands for a broken test): not uniform, so not "exact" but
    word = table.loc["word"]
    assert word["by_construction"] == 80 and word["null_0.05"] == pytest.approx(31 / 80)
    assert word["verdict_0.05"] == "miscalibrated"


def test_copies_of_one_test_are_one_cluster_and_cells_that_cannot_reject_are_apart():
    """Six copies of one test agreeing count once; a test whose floor is above alpha is
    counted apart, named, and in no share."""
    bases = {f"b-null-s{i}": "b" for i in range(6)}
    rows = [
        score_row(method="WEAT", model=m, test="C1", effect_size=0.1, p_value=0.001, p_floor=1e-4)
        for m in bases
    ]  # C1 rejects in every copy
    rows += [
        score_row(method="WEAT", model=m, test=f"T{i}", effect_size=0.1, p_value=0.5, p_floor=1e-4)
        for m in bases
        for i in range(3)
    ]  # T0..T2 in none
    rows += [
        score_row(method="WEAT", model=m, test="C9", effect_size=0.1, p_value=1 / 6, p_floor=1 / 6)
        for m in bases
    ]  # C9: 2 words a side, 6 partitions: cannot reach 0.05
    cells = primary_cells(pd.DataFrame(rows), {})
    row = cal.calibration(cells, list(bases), bases, (0.05,)).set_index("design").loc["paper"]
    assert row["cells_null"] == 30 and row["cannot_0.05"] == 6 and row["cells_0.05"] == 24
    assert row["clusters_0.05"] == 4 and row["null_0.05"] == pytest.approx(0.25)
    assert (row["null_low_0.05"], row["null_high_0.05"]) == pytest.approx(cal.clopper_pearson(1, 4))
    # the cell-level interval would read 6 of 24 as six confirmations
    assert cal.clopper_pearson(6, 24)[1] < row["null_high_0.05"]
    named = cal.cannot_reject_cells(cells, list(bases), bases, (0.05,))
    assert named[["method", "design", "base", "test", "cells"]].values.tolist() == [
        ["WEAT", "paper", "b", "C9", 6]
    ]
    assert named["floor"].iloc[0] == pytest.approx(1 / 6)


def _caught_frame() -> pd.DataFrame:
    """:func:`_null_frame` with its s-SEAT read as w-SEAT, beside s-SEAT's paper test on
    templates (the random-weight source's known-bad test) rejecting in 60 of 80 clusters:
    the source's detection check passes, so its verdicts stand."""
    frame = _null_frame().replace({"method": {"s-SEAT": "w-SEAT"}})
    bad = _cells("s-SEAT", NULL, [0.001] * 60 + [0.5] * 20, [NAN] * 80, test="K")
    return pd.concat([frame, pd.DataFrame(bad)], ignore_index=True)


def test_a_source_that_misses_its_known_bad_test_gives_no_verdict(tmp_path):
    """s-SEAT's paper test on templates at 3% of 100 clusters: the known-bad test is not
    caught, so no test on that source is called calibrated; CEAT's 80% stays miscalibrated."""
    write_tsv(tmp_path / "all.tsv", _null_frame())
    inputs = {"scores": [str(tmp_path / "all.tsv")]}
    csv, _md, _ = render_table(TABLES["synthesis_null"], inputs, SETTINGS)
    null = pd.read_csv(pd.io.common.StringIO(csv)).set_index(["method", "design"])
    assert set(null["source"]) == {"papers-random"}  # no pooled row: nothing passed
    assert null.loc[("s-SEAT", "paper"), "verdict_0.05"] == cal.WITHHELD
    assert null.loc[("CEAT", "paper"), "verdict_0.05"] == "miscalibrated"
    league = league_report.league(inputs, SETTINGS).set_index("method")
    assert league.loc["s-SEAT", "calibration_paper"] == "n/a"
    checks = render_table(TABLES["synthesis_null_detection"], inputs, SETTINGS)[0]
    checks = pd.read_csv(pd.io.common.StringIO(checks)).set_index("source")
    assert not checks.loc["papers-random", "passes"]
    assert checks.loc["papers-random", "clusters"] == 100


def test_null_table_league_and_cards_give_the_verdicts(tmp_path):
    write_tsv(tmp_path / "all.tsv", _caught_frame())
    inputs = {"scores": [str(tmp_path / "all.tsv")]}
    csv, md, _ = render_table(TABLES["synthesis_null"], inputs, SETTINGS)
    null = pd.read_csv(pd.io.common.StringIO(csv))
    # CEAT, s-SEAT, w-SEAT: the source's rows, then the pooled ones
    assert list(null["design"]) == ["paper", "word", "strata"] * 6
    assert list(null["source"]) == ["papers-random"] * 9 + ["pooled: papers-random"] * 9
    for column in ("verdict_0.01", "clusters_0.05", "cannot_0.05", "null_low_0.05", "real_0.05"):
        assert column in null
    assert "fixed in code before any run" in md and "67 at 0.05" in md
    league = league_report.league(inputs, SETTINGS).set_index("method")
    assert league.loc["CEAT", "calibration_paper"] == "miscalibrated"
    assert league.loc["CEAT", "calibration_word"] == "undetermined (50 clusters; 67 needed)"
    assert league.loc["CEAT", "significant_null"] == pytest.approx(0.8)
    assert league.loc["CEAT", "significant_null_word"] == pytest.approx(0.04)
    assert league.loc["CEAT", "null_clusters"] == 50
    assert league.loc["w-SEAT", "calibration_paper"] == "calibrated"
    assert league.loc["w-SEAT", "calibration_word"] == "n/a"
    assert np.isnan(league.loc["w-SEAT", "significant_null_word"])
    assert league.loc["s-SEAT", "calibration_paper"] == "miscalibrated"
    assert league.loc["MAC", "calibration_paper"] == "n/a"  # no rows at all
    low, high = cal.clopper_pearson(40, 50)
    assert league.loc["CEAT", ["null_low", "null_high"]].tolist() == pytest.approx([low, high])
    pages = method_cards(inputs, SETTINGS, tmp_path)
    assert (
        "- the paper's test (p_value) on null models: miscalibrated (0.8 of the null cells at "
        f"p < 0.05, 95% interval [{low:.3g}, {high:.3g}] over 50 clusters)"
    ) in pages["ceat"]
    assert "- the word-level test (p_word) on null models: undetermined (50" in pages["ceat"]
    assert "the word-level test (p_word) on null models: n/a" in pages["w-seat"]


def test_survival_by_hand(tmp_path):
    # Table 3 cells on the real model: C1, C3, C6 significant under the paper's test; C1
    # survives the word test, C3 does not, C6 has no word p-value; C9 is not significant
    # under the paper's test (its word p-value does not count); within word-piece counts C1
    # and C3 both survive, C6 and C9 have no stratified p
    rows = _cells("s-SEAT", "m", [0.001, 0.001, 0.001, 0.5], [0.001, 0.2, NAN, 0.001], test="C")
    for row, test in zip(rows, ("C1", "C3", "C6", "C9"), strict=True):
        row["test"] = test
    rows[0]["p_word_strata"], rows[1]["p_word_strata"] = 0.001, 0.01
    # terms of a test that has names: not a Table 3 cell
    rows += _cells("s-SEAT", "m", [0.001], [0.5], test="C1-", descriptor="terms")
    rows[-1]["test"] = "C1"
    # a data set, and a null-model cell (never counted)
    rows += _cells(
        "CrowS-Pairs", "m", [0.001], [0.001], test="CrowS-Pairs", descriptor="all", source="dataset"
    )
    rows[-1]["test"] = "CrowS-Pairs"
    rows += _cells("s-SEAT", NULL, [0.001], [0.001], test="C")
    frame = pd.DataFrame(rows)
    by_method = survival_study.survival(primary_cells(frame, {}), 0.05).set_index("method")
    # every s-SEAT cell, the null model's too: 6 tested, 5 significant, 4 with p_word, 2 stay
    assert by_method.loc["s-SEAT"].tolist() == [6, 0, 5, 0, 4, 2, 2, 2, 0.5]
    write_tsv(tmp_path / "all.tsv", frame)
    table = survival_report.survival({"scores": [str(tmp_path / "all.tsv")]}, SETTINGS)
    husse = table[table["cells"].str.startswith("Table 3")].set_index("method")
    assert husse.loc["s-SEAT", survival_report.SURVIVAL].tolist() == [4, 0, 3, 0, 2, 1, 2, 2]
    assert husse.loc["s-SEAT", "survival_share"] == pytest.approx(0.5)
    data = table[table["paper"] == "Delobelle et al. (2022)"].set_index("method")
    assert data.loc["CrowS-Pairs", survival_report.SURVIVAL].tolist() == [1, 0, 1, 0, 1, 1, 0, 0]
    every = table[table["paper"] == "all papers"].set_index("method")
    # real models: s-SEAT's five cells (C1 terms too) and CrowS-Pairs'
    assert every.loc["s-SEAT", survival_report.SURVIVAL].tolist() == [5, 0, 4, 0, 3, 1, 2, 2]
    assert every.loc["(all methods)", survival_report.SURVIVAL].tolist() == [6, 0, 5, 0, 4, 2, 2, 2]
    assert every.loc["(all methods)", "survival_share"] == pytest.approx(2 / 4)
    schroeder = table[table["paper"] == "Schröder et al. (2021)"]
    assert schroeder["method"].tolist() == ["(no tested cell)"]
    assert np.isnan(schroeder["survival_share"].iloc[0])


def test_survival_leaves_out_the_cells_a_test_cannot_reject():
    """C1 significant, its word test of 2 words a side (floor 1/6) cannot reach 0.05: not a
    failure to survive; C3 cannot reach alpha under the paper's test at all."""
    rows = _cells("WEAT", "m", [0.001, 0.2], [0.1667, 0.2], test="C")
    rows[0] |= {"p_floor": 1e-4, "p_word_floor": 1 / 6}
    rows[1] |= {"p_floor": 1 / 6, "p_word_floor": 1 / 6}
    out = survival_study.survival(primary_cells(pd.DataFrame(rows), {}), 0.05).set_index("method")
    assert out.loc["WEAT", survival_study.SURVIVAL].tolist() == [2, 1, 1, 1, 0, 0, 0, 0]
    assert np.isnan(out.loc["WEAT", "survival_share"])


def test_calibration_figure_draws_both_tests_and_says_what_is_missing(tmp_path):
    frame = _caught_frame()
    # LPBS: real-model cells only (left out of the figure, the title says why)
    frame = pd.concat([frame, pd.DataFrame(_cells("LPBS", "m", [0.01], [NAN]))])
    write_tsv(tmp_path / "all.tsv", frame)
    inputs = {"scores": [str(tmp_path / "all.tsv")]}
    figure = FIGURES["synthesis_calibration"]
    fig = figure.draw(inputs, SETTINGS)
    at_01, at_05, qq = fig.axes
    assert [t.get_text() for t in at_01.get_yticklabels()] == ["CEAT", "s-SEAT", "w-SEAT"]
    # the pooled shares of the paper's test at 0.05 (CEAT 0.8, s-SEAT's known-bad 0.75,
    # w-SEAT 0.03), then the word test's (CEAT only)
    paper, word = at_05.containers[0], at_05.containers[1]
    np.testing.assert_allclose(paper.lines[0].get_xdata(), [0.8, 0.75, 0.03])
    np.testing.assert_allclose(word.lines[0].get_xdata(), [0.04])
    texts = [t.get_text() for t in at_05.texts]
    assert texts == [
        "miscalibrated (50 clusters)",  # CEAT's paper test
        "miscalibrated (80 clusters)",  # s-SEAT's on templates: the known-bad test
        "calibrated (100 clusters)",  # w-SEAT's
        "word: n/a",  # s-SEAT and w-SEAT have no word test
        "word: n/a",
        "undetermined (50 clusters)",  # CEAT's word test
        "strata: n/a",  # no p_word_strata (no word pieces in these rows)
        "strata: n/a",
        "strata: n/a",
    ]
    assert at_05.lines[-1].get_xdata()[0] == 0.05  # the nominal alpha
    labels = qq.get_legend_handles_labels()[1]
    assert labels == ["CEAT (paper)", "CEAT (word)", "s-SEAT (paper)", "w-SEAT (paper)"]
    title = fig._suptitle.get_text()
    assert "no word-level p-value on the null models yet: s-SEAT, w-SEAT" in title
    assert "no null-model cell (left out): LPBS" in title.replace("\n", "")
    missed = tmp_path / "missed.tsv"  # the known-bad test not caught: no pooled rows
    write_tsv(missed, _null_frame())
    empty = figure.draw({"scores": [str(missed)]}, SETTINGS)
    assert "no null source caught" in empty.axes[0].texts[0].get_text()
    for k in (1, 2):
        save(figure.draw(inputs, SETTINGS), tmp_path / f"{k}.png", tmp_path / f"{k}.pdf")
    assert (tmp_path / "1.pdf").read_bytes() == (tmp_path / "2.pdf").read_bytes()
    plain = ReportSettings(models={}, alpha=0.05, natural=None)  # no null models
    text = " ".join(t.get_text() for ax in figure.draw(inputs, plain).axes for t in ax.texts)
    assert "No data" in text


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 400), data=st.data())
def test_the_interval_contains_the_share(n, data):
    k = data.draw(st.integers(0, n))
    low, high = cal.clopper_pearson(k, n)
    assert 0 <= low <= k / n <= high <= 1


@settings(max_examples=40, deadline=None)
@given(
    p=st.lists(
        st.tuples(
            st.floats(0, 1) | st.just(NAN),
            st.floats(0, 1) | st.just(NAN),
            st.booleans(),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_shares_lie_in_their_intervals_and_in_0_1(p):
    frame = pd.DataFrame(
        {
            "method": "CEAT",
            "model": [NULL if null else "m" for _, _, null in p],
            "p_value": [a for a, _, _ in p],
            "p_word": [b for _, b, _ in p],
        }
    )
    table = cal.calibration(frame.assign(test="T", descriptor=""), [NULL], {})
    for alpha in cal.ALPHAS:
        for r in table.to_dict("records"):
            share, low, high = (r[f"{c}_{alpha:g}"] for c in ("null", "null_low", "null_high"))
            if r["cells_null"]:
                assert 0 <= low <= share <= high <= 1
            else:
                assert np.isnan(share) and r[f"verdict_{alpha:g}"] == "n/a"
            real = r[f"real_{alpha:g}"]
            assert np.isnan(real) if r["cells_real"] == 0 else 0 <= real <= 1


def test_the_calibration_copies_are_null_cells_of_the_null_table(tmp_path):
    from biasbench.models.null import copy_names, null_file

    write_tsv(tmp_path / "all.tsv", _caught_frame().replace({"method": {"w-SEAT": "RND"}}))
    copies = copy_names("m", 3)
    path = tmp_path / null_file("m")
    path.parent.mkdir(parents=True)
    write_tsv(path, pd.DataFrame([r for c in copies for r in _cells("RND", c, [0.5], [0.04])]))
    settings = ReportSettings(models={}, alpha=0.05, null_models=(NULL, *copies))
    inputs = {"scores": [str(tmp_path / "all.tsv")], "nulls": [str(path)]}
    csv, md, _ = render_table(TABLES["synthesis_null"], inputs, settings)
    null = pd.read_csv(pd.io.common.StringIO(csv))
    null = null[null["source"] == "papers-random"].set_index(["method", "design"])
    assert null.loc[("RND", "paper"), "cells_null"] == 100 + 3
    assert null.loc[("RND", "word"), "cells_null"] == 3
    assert "m-null-s0..s2 (3 seeded copies)" in md
    league = league_report.league(inputs, settings).set_index("method")
    assert league.loc["RND", "significant_null_word"] == pytest.approx(1.0)
    # without the file (another table's inputs) the copies are not there
    alone = pd.read_csv(
        pd.io.common.StringIO(
            render_table(TABLES["synthesis_null"], {"scores": inputs["scores"]}, settings)[0]
        )
    )
    alone = alone[alone["source"] == "papers-random"].set_index(["method", "design"])
    assert alone.loc[("RND", "paper"), "cells_null"] == 100


#: the word pieces of model m's stimuli (T0: X 1, 1 against Y 2, 3, imbalanced; T1: X and Y
#: 1.5 each, balanced; T2: X 1.5 against Y 1, a gap of exactly 0.5, imbalanced)
PIECES = pd.DataFrame(
    [
        ("T0", "names", r, f"{r}{i}", n)
        for r, ns in zip("XYAB", [(1, 1), (2, 3), (1, 2), (1, 1)], strict=True)
        for i, n in enumerate(ns)
    ]
    + [
        ("T1", "names", r, f"{r}{i}", n)
        for r, ns in zip("XYAB", [(1, 2), (2, 1), (1,), (1,)], strict=True)
        for i, n in enumerate(ns)
    ]
    + [
        ("T2", "names", r, f"{r}{i}", n)
        for r, ns in zip("XY", [(1, 2), (1, 1)], strict=True)
        for i, n in enumerate(ns)
    ],
    columns=["test", "descriptor", "role", "word", "pieces"],
)
PIECE_NULLS = ("m-null", "m-null-s0", "g-null-s0")
PIECE_SETTINGS = ReportSettings(
    models={},
    alpha=0.05,
    null_models=PIECE_NULLS,
    null_bases={"m-null": "m", "m-null-s0": "m", "g-null-s0": "g"},
)


def _piece_cells():
    """w-SEAT's p_word on T0, T1, T2 of the random model m-null and the copy m-null-s0 (base
    m), one cell of a static copy (no tokenizer) and one of the real model m."""
    words = {"m-null": [0.001, 0.3, 0.02], "m-null-s0": [0.004, 0.04, 0.5]}
    rows = [r for model, w in words.items() for r in _cells("w-SEAT", model, [0.5] * 3, w)]
    rows += _cells("w-SEAT", "g-null-s0", [0.5], [0.001])
    rows += _cells("w-SEAT", "m", [0.001], [0.001])
    return pd.DataFrame(rows)


def test_piece_gaps_by_hand():
    gaps = piece_gaps(PIECES.assign(tokenizer="m")).set_index("test")
    assert gaps.loc["T0", ["dXY", "dAB", "multi_X", "multi_Y"]].tolist() == [-1.5, 0.5, 0, 1]
    assert gaps.loc["T1", ["dXY", "dAB", "multi_X", "multi_Y"]].tolist() == [0, 0, 0.5, 0.5]
    assert gaps.loc["T2", "dXY"] == 0.5 and np.isnan(gaps.loc["T2", "dAB"])
    assert gaps["pieces"].tolist() == ["imbalanced", "balanced", "imbalanced"]
    assert gaps[["words_X", "words_Y"]].values.tolist() == [[2, 2], [2, 2], [2, 2]]


def _render_with_pieces(tmp_path, table: str) -> tuple[str, str]:
    """A synthesis table rendered from the hand cells and the tokenizer's piece table."""
    write_tsv(tmp_path / "all.tsv", _piece_cells())
    (tmp_path / "tokenization").mkdir()
    write_tsv(tmp_path / "tokenization" / "m.tsv", PIECES)
    inputs = {
        "scores": [str(tmp_path / "all.tsv")],
        "tokenization": [str(tmp_path / "tokenization" / "m.tsv")],
    }
    csv, md, _ = render_table(TABLES[table], inputs, PIECE_SETTINGS)
    return csv, md


def test_the_null_shares_split_by_word_piece_balance_by_hand(tmp_path):
    csv, md = _render_with_pieces(tmp_path, "synthesis_null_pieces")
    table = pd.read_csv(pd.io.common.StringIO(csv))
    word = table[table["design"] == "word"].set_index(["threshold", "pieces"])
    # w-SEAT exchanges the targets: |dXY| is 1.5 (T0), 0 (T1), 0.5 (T2); at 0.5 balanced is
    # T1 of both m models (0.3, 0.04), imbalanced T0 and T2 (0.001, 0.004; 0.02, 0.5); each
    # (test, base) one cluster, the static copy in neither group
    at_half = word.loc[0.5]
    assert at_half.loc["balanced", "cells_0.05"] == 2
    assert at_half.loc["balanced", "clusters_0.05"] == 1
    assert at_half.loc["balanced", "null_0.05"] == pytest.approx(0.5)
    assert at_half.loc["imbalanced", ["cells_0.01", "clusters_0.01"]].tolist() == [4, 2]
    # T0: both copies below 0.01 (share 1), T2: neither (0): the mean over clusters
    assert at_half.loc["imbalanced", "null_0.01"] == pytest.approx(0.5)
    assert at_half.loc["imbalanced", "null_0.05"] == pytest.approx(0.75)
    assert (
        at_half.loc["imbalanced", "null_low_0.01"],
        at_half.loc["imbalanced", "null_high_0.01"],
    ) == pytest.approx(cal.clopper_pearson(1, 2), rel=1e-5)  # the CSV's six digits
    # at 1 piece T2 (gap 0.5) is balanced too; at 0.25 the same split as at 0.5
    assert word.loc[(1.0, "balanced"), "clusters_0.05"] == 2
    assert word.loc[(1.0, "imbalanced"), "clusters_0.05"] == 1
    assert word.loc[(0.25, "balanced"), "cells_0.05"] == 2
    assert "at each threshold of 0.25, 0.5, 1 pieces" in md
    # without the tokenization table no cell is in either group
    alone = render_table(
        TABLES["synthesis_null_pieces"], {"scores": [str(tmp_path / "all.tsv")]}, PIECE_SETTINGS
    )
    assert pd.read_csv(pd.io.common.StringIO(alone[0])).empty


def test_a_method_is_split_by_the_words_it_exchanges():
    """SAME exchanges the attributes: its cells split by dAB (T0: 0.5, imbalanced at 0.5),
    w-SEAT's by dXY (T0: 1.5); a data-set measure exchanges none (n/a)."""
    gaps = piece_gaps(PIECES.assign(tokenizer="m"))
    cells = pd.DataFrame(
        {
            "method": ["w-SEAT", "SAME", "CrowS-Pairs"],
            "model": ["m-null", "m-null", "m-null"],
            "test": ["T0", "T0", "T0"],
            "descriptor": ["names"] * 3,
        }
    )
    permutes = {"w-SEAT": "targets", "SAME": "attributes", "CrowS-Pairs": None}
    bases = {"m-null": "m"}
    at_1 = piece_balance(cells, bases, gaps, permutes, threshold=1.0).tolist()
    assert at_1 == ["imbalanced", "balanced", "n/a"]
    at_half = piece_balance(cells, bases, gaps, permutes, threshold=0.5).tolist()
    assert at_half == ["imbalanced", "imbalanced", "n/a"]


def test_without_null_models_no_cell_has_a_piece_gap():
    """``null_calibration: null`` and no ``random:`` model: every cell's tokenizer is NaN
    (float64) and the gaps table is empty; the merge once refused the dtypes and the run
    ended in a traceback of synthesis_null_pieces."""
    empty = piece_gaps(
        pd.DataFrame(columns=["tokenizer", "test", "descriptor", "role", "word", "pieces"])
    )
    cells = pd.DataFrame(
        {"method": ["w-SEAT"], "model": ["m"], "test": ["T0"], "descriptor": ["names"]}
    )
    gap = piece_gap(cells, {}, empty, {"w-SEAT": "targets"})
    assert len(gap) == 1 and np.isnan(gap).all()
    none = pd.DataFrame(columns=["method", "model", "test", "descriptor"])
    assert len(piece_gap(none, {}, empty, {"w-SEAT": "targets"})) == 0


@pytest.mark.parametrize(
    "table",
    [
        "synthesis_null",
        "synthesis_null_floors",
        "synthesis_null_pieces",
        "synthesis_tokenization",
        "synthesis_null_generated",
    ],
)
def test_the_null_tables_without_null_models_are_empty(tmp_path, table):
    """The null-off path: the null-model tables of a run without null models render, with
    no null cell (synthesis_null keeps its rows of the real models' shares)."""
    write_tsv(tmp_path / "all.tsv", _piece_cells())
    off = ReportSettings(models={}, alpha=0.05, null_models=(), null_bases={})
    csv, _md, _ = render_table(TABLES[table], {"scores": [str(tmp_path / "all.tsv")]}, off)
    frame = pd.read_csv(pd.io.common.StringIO(csv))
    if table == "synthesis_null":
        assert (frame["cells_null"] == 0).all() and (frame["cells_real"] > 0).any()
    else:
        assert frame.empty


def test_the_tokenization_table_by_hand(tmp_path):
    csv, md = _render_with_pieces(tmp_path, "synthesis_tokenization")
    table = pd.read_csv(pd.io.common.StringIO(csv)).set_index("test")
    assert table["tokenizer"].tolist() == ["m"] * 3
    assert table["cells_word"].tolist() == [2, 2, 2]  # neither the static copy nor the real m
    assert table["word_0.01"].tolist() == [1.0, 0, 0]
    assert table["word_0.05"].tolist() == [1.0, 0.5, 0.5]
    assert table.loc["T0", "dXY"] == -1.5 and table.loc["T0", "pieces"] == "imbalanced"
    assert table.loc["T1", "pieces"] == "balanced"
    low, high = cal.clopper_pearson(2, 2)
    assert table.loc["T0", ["word_low_0.01", "word_high_0.01"]].tolist() == pytest.approx(
        [low, high], rel=1e-5
    )
    assert "do not make words of different piece counts exchangeable" in md


def test_each_test_design_is_declared_once_and_every_view_follows_it():
    """The row's tests are one record each (biasbench.rows.TEST_DESIGNS): the p and floor
    columns are the row schema's, the league's calibration columns are named from the
    record in the table's published order, and the cards trust the most conservative first."""
    from biasbench.reports.calibration import CALIBRATED, DESIGN_LABELS
    from biasbench.reports.card_findings import TRUSTED
    from biasbench.rows import COLUMNS, TEST_DESIGNS

    assert [d.name for d in TEST_DESIGNS] == list(cal.DESIGNS) == ["paper", "word", "strata"]
    for d in TEST_DESIGNS:
        assert d.p in COLUMNS and d.floor in COLUMNS and cal.FLOORS[d.p] == d.floor
    word = TEST_DESIGNS[1]
    assert [word.league_column(w) for w in ("null", "null_low", "null_high", "clusters")] == [
        "significant_null_word",
        "null_word_low",
        "null_word_high",
        "null_word_clusters",
    ]
    assert TEST_DESIGNS[0].league_column("null_low") == "null_low"
    assert TEST_DESIGNS[2].league_column("verdict") == "calibration_strata"
    assert [c for c, _, _ in CALIBRATED] == [
        "significant_real",
        "significant_null",
        "significant_null_word",
        "null_low",
        "null_high",
        "null_word_low",
        "null_word_high",
        "null_clusters",
        "null_word_clusters",
        "calibration_paper",
        "calibration_word",
        "significant_null_strata",
        "null_strata_low",
        "null_strata_high",
        "null_strata_clusters",
        "calibration_strata",
    ]
    assert [p for p, _, _ in TRUSTED] == ["p_word_strata", "p_word", "p_value"]
    assert DESIGN_LABELS["word"] == "word-level test (p_word)"
