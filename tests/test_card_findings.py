"""The model card's findings on a hand-built score table: found under the most conservative
test, significant under the paper's test alone, unable to reach alpha; the design choices a
verdict changes with (LPBS's sign across encodings, CrowS-Pairs' significance between the
per-token mean and the sum lm-evaluation-harness reports); scales and folded notes."""

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.methods.registry import get
from biasbench.reports import card_findings as cf
from biasbench.reports.model_cards import ModelFacts, model_card

from .conftest import score_row

NAN = float("nan")
LABELS = {
    "C6/names": {"X": "male names", "Y": "female names", "A": "career", "B": "family"},
    "C1/names": {"X": "flowers", "Y": "insects", "A": "pleasant", "B": "unpleasant"},
}


def _row(method, test, effect, p, p_word=NAN, **kw):
    family = kw.pop("family", "embedding")
    return score_row(
        method=method,
        family=family,
        model="m",
        test=test,
        descriptor=kw.pop("descriptor", "names"),
        source=kw.pop("source", "templates"),
        encoding=kw.pop("encoding", "sent/cls"),
        effect_size=effect,
        p_value=p,
        p_word=p_word,
        **kw,
    )


def _table():
    return pd.DataFrame(
        [
            # found: the word test (the most conservative it has) below 0.01
            _row("s-SEAT", "C6", 0.9, 1e-6, 0.002, p_word_floor=1 / 12870),
            # the paper's test alone: its word test says 0.2
            _row("s-SEAT", "C1", 0.4, 1e-4, 0.2),
            # cannot: three words a side, the word test's floor 0.05 above alpha 0.01
            _row("s-SEAT", "C9", 1.2, 1e-5, 0.05, p_word_floor=0.05, descriptor="simplified"),
            # stratified test present: it decides, not the plain word test
            _row("CEAT", "C6", 0.5, 0.0, 0.001, p_word_strata=0.3),
            # LPBS: the default encoding +0.0013 (p 0.5), the other -0.0021 (p 4e-23)
            _row("LPBS", "C6", 0.0013, 0.5, 0.5, family="probability", encoding="mlm"),
            _row(
                "LPBS",
                "C6",
                -0.0021,
                4e-23,
                4e-23,
                family="probability",
                encoding="causal",
                primary=False,
            ),
            # CrowS-Pairs: the per-token mean 58.33 (p 0.0046), the sum 55.0 (p 0.094)
            *_crows_pairs(),
        ]
    )


def _crows_pairs(**other):
    """CrowS-Pairs' default encoding (58.33, p 0.0046) and the sentence sum (55.0, p 0.094,
    not primary; ``other``: more of its fields)."""
    kw = {"family": "probability", "source": "dataset", "descriptor": "all"}
    return [
        _row(
            "CrowS-Pairs",
            "CrowS-Pairs",
            58.33,
            0.0046,
            0.0046,
            encoding="causal-sentence-mean",
            **kw,
        ),
        _row(
            "CrowS-Pairs",
            "CrowS-Pairs",
            55.0,
            0.094,
            0.094,
            encoding="causal-sentence",
            primary=False,
            **kw,
            **other,
        ),
    ]


def test_the_trusted_test_is_the_most_conservative_the_row_has():
    assert cf.trusted({"p_value": 0.001, "p_word": 0.2, "p_word_strata": 0.5}) == (
        0.5,
        0.0,
        "word test within word-piece counts",
    )
    assert cf.trusted({"p_value": 0.001, "p_word": NAN, "p_floor": 1e-3})[1:] == (
        1e-3,
        "paper's test",
    )
    assert math.isnan(cf.trusted({"p_value": NAN})[0])


def test_found_paper_only_and_cannot_by_hand():
    cells = cf.judged(_table(), 0.01).set_index(["method", "test", "encoding"])
    assert cells.loc[("s-SEAT", "C6", "sent/cls"), "found"]
    assert cells.loc[("s-SEAT", "C1", "sent/cls"), "paper_only"]
    assert cells.loc[("s-SEAT", "C9", "sent/cls"), "cannot"]
    assert not cells.loc[("s-SEAT", "C9", "sent/cls"), "found"]
    ceat = cells.loc[("CEAT", "C6", "sent/cls")]
    assert not ceat["found"] and ceat["paper_only"] and ceat["test_p"] == 0.3


def _league(verdicts: dict[tuple[str, str], str]) -> pd.DataFrame:
    """A league with the given calibration verdicts (method, design) -> verdict, "n/a" else."""
    from biasbench.reports.calibration import league_columns
    from biasbench.studies.calibration import DESIGNS

    methods = sorted({m for m, _d in verdicts} | {"CEAT", "LPBS", "RND", "s-SEAT"})
    frame = pd.DataFrame({"method": methods})
    for design in DESIGNS:
        column = league_columns(design)["verdict"]
        frame[column] = [verdicts.get((m, design), "n/a") for m in methods]
    return frame


def _with_rnd():
    """The table's primary rows and RND on C6, its word test at 0.001."""
    rnd = _row("RND", "C6", 0.3, 1e-5, 0.001, p_word_floor=1e-4)
    table = pd.concat([_table(), pd.DataFrame([rnd])], ignore_index=True)
    return table[table["primary"]]


CALIBRATED = {
    ("s-SEAT", "word"): "calibrated",
    ("CrowS-Pairs", "paper"): "calibrated",
    ("RND", "word"): "miscalibrated",
    ("CEAT", "strata"): "undetermined (42 clusters; 67 needed)",
}


def test_the_card_finds_only_under_a_calibrated_test_after_holm_beyond_its_null_copies():
    """By hand: 7 tested cells. At 0.05, s-SEAT C6 (word test, calibrated: p 0.002, Holm
    6 x 0.002 = 0.012) and CrowS-Pairs (calibrated: 5 x 0.0046 = 0.023) are found; RND's
    word test (p 0.001) is significant under a test the league calls miscalibrated, so it
    is listed apart, never found. At 0.01 the same s-SEAT cell is not found: its raw p is
    below 0.01, its Holm p is not. With its own null copies reaching 1.0 the s-SEAT effect
    (0.9) lies inside their spread: not found either."""
    league = _league(CALIBRATED)
    cells = cf.card_verdicts(_with_rnd(), league, 0.05).set_index(["method", "test"])
    assert cells.loc[("s-SEAT", "C6"), "p_holm"] == pytest.approx(6 * 0.002)
    assert cells.loc[("CrowS-Pairs", "CrowS-Pairs"), "p_holm"] == pytest.approx(5 * 0.0046)
    assert cells.loc[("RND", "C6"), "p_holm"] == pytest.approx(7 * 0.001)
    assert set(cells.index[cells["found"]]) == {("s-SEAT", "C6"), ("CrowS-Pairs", "CrowS-Pairs")}
    rnd = cells.loc[("RND", "C6")]
    assert rnd["unshown"] and not rnd["found"] and rnd["shown_verdict"] == "miscalibrated"
    strict = cf.card_verdicts(_with_rnd(), league, 0.01).set_index(["method", "test"])
    assert not strict.loc[("s-SEAT", "C6"), "found"]  # raw p 0.002 < 0.01, Holm 0.012
    copies = pd.DataFrame(
        [
            {**_row("s-SEAT", "C6", e, 0.5, 0.5), "model": f"m-null-s{i}"}
            for i, e in enumerate((-1.0, 0.3))
        ]
    )
    inside = cf.card_verdicts(_with_rnd(), league, 0.05, copies).set_index(["method", "test"])
    assert inside.loc[("s-SEAT", "C6"), "inside_null"]
    assert not inside.loc[("s-SEAT", "C6"), "found"]
    assert inside.loc[("CrowS-Pairs", "CrowS-Pairs"), "found"]  # no copies on its cell


def test_without_a_comparison_nothing_is_found():
    """No league: no test is shown calibrated, so no cell is found and every significant
    one is listed apart with why."""
    cells = cf.card_verdicts(_with_rnd(), None, 0.05)
    assert not cells["found"].any()
    assert set(cells.loc[cells["unshown"], "method"]) == {"s-SEAT", "RND", "CrowS-Pairs"}
    assert set(cells.loc[cells["unshown"], "shown_verdict"]) == {"n/a (no comparison)"}


def test_the_summary_says_what_was_found_and_how_it_was_counted():
    lines = cf.summary_lines(_with_rnd(), _league(CALIBRATED), LABELS, 0.05)
    text = "\n".join(lines)
    assert "after Holm over the card's 7 tested cells" in text
    assert "* **embedding** (CEAT, RND, s-SEAT): bias found in 1 of 5 tested cells" in text
    assert (
        "1 more significant under a test not shown calibrated (RND's word-level test: "
        "miscalibrated, 1)" in text
    )
    assert "1 cannot reach 0.05 with these words" in text
    assert (
        "s-SEAT on C6/names (templates): 0.9, p = 0.002 (word-level test; Holm 0.012); male "
        "names vs female names, career vs family" in text
    )
    assert "* **probability** (CrowS-Pairs, LPBS): bias found in 1 of 2 tested cells" in text

    notes = pd.Series(["no pairs", "no pairs", "", "no pairs", "once"])
    shown, caveats = cf.folded_notes(notes)
    assert shown.tolist() == ["[1]", "[1]", "", "[1]", "once"]
    assert caveats == ["[1] no pairs (3 rows)"]


def test_a_verdict_that_changes_with_an_encoding_is_flagged():
    table = cf.sensitivity(_table(), 0.01).set_index("method")
    assert table.loc["LPBS", "changed"] == "sign and significance"
    assert table.loc["LPBS", ["primary", "other"]].tolist() == ["mlm/full", "causal/full"]
    # 58.33 and 55.0 both above the neutral 50: the significance alone changes
    assert table.loc["CrowS-Pairs", "changed"] == "significance"
    assert table.loc["CrowS-Pairs", "other_p"] == pytest.approx(0.094)
    assert set(table.index) == {"LPBS", "CrowS-Pairs"}


def test_neutral_points_and_folded_notes():
    assert get("CrowS-Pairs").neutral_point == 50 and get("StereoSet SS").neutral_point == 50
    assert get("MAC").neutral_point == 1 and get("WEAT").neutral_point == 0
    notes = pd.Series(["no pairs", "no pairs", "", "no pairs", "once"])
    shown, caveats = cf.folded_notes(notes)
    assert shown.tolist() == ["[1]", "[1]", "", "[1]", "once"]
    assert caveats == ["[1] no pairs (3 rows)"]


def test_the_card_holds_its_findings_and_design_choices():
    facts = ModelFacts(name="m", kind="transformer", source="hf:org/m", alpha=0.01)
    card = model_card(_table(), facts, labels=LABELS)
    assert card.index("## Findings") < card.index("## Method families")
    assert "## Sensitive to a design choice" in card
    assert "| LPBS | C6/names (templates) | sign and significance |" in card
    assert "| C6/names | male names | female names | career | family |" in card
    assert "| CrowS-Pairs | 50 | above the neutral point" in card


def test_parts_of_a_data_set_and_missing_scores_are_no_design_choice():
    table = _table()
    extra = [
        # BEC-Pro's male rows: a part of the data, not another way to measure it
        _row("BEC-Pro", "BEC-Pro", 0.1, 0.3, 0.3, family="probability", variant="all"),
        _row(
            "BEC-Pro",
            "BEC-Pro",
            -0.5,
            0.001,
            0.001,
            family="probability",
            variant="male",
            primary=False,
        ),
        # an encoding with no score: nothing changed
        _row("s-SEAT", "C6", NAN, NAN, NAN, encoding="sent/mean", primary=False),
    ]
    changed = cf.sensitivity(pd.concat([table, pd.DataFrame(extra)]), 0.01)
    assert set(changed["method"]) == {"LPBS", "CrowS-Pairs"}


def test_every_method_with_a_changed_verdict_shows_the_weightiest_first():
    rows = [_table()]
    for i in range(30):  # many of one method's cells change sign
        rows.append(
            pd.DataFrame(
                [
                    _row("CEAT", f"T{i}", 0.3, 0.5, 0.5),
                    _row("CEAT", f"T{i}", -0.3, 0.5, 0.5, encoding="sent/mean", primary=False),
                ]
            )
        )
    lines = cf.sensitivity_lines(pd.concat(rows), 0.01)
    shown = [line.split(" | ")[0].lstrip("| ") for line in lines if line.startswith("| ")][1:-1]
    assert shown[:2] == ["LPBS", "CrowS-Pairs"]  # sign and significance, then significance
    assert shown.count("CEAT") == 3 and lines[-1].startswith("| ... | 27 more")


def test_a_method_declares_which_variants_are_choices():
    from biasbench.methods.contract import ON_DATA_SET, Method, PairScores, Truth
    from biasbench.methods.registry import get

    assert get("BEC-Pro").choices == () and get("StereoSet SS").choices == ()
    assert get("DisCo").choices == ("names+p>0.1",) and get("CEAT").choices is None
    with pytest.raises(ValueError, match="choices"):
        Method(
            "X",
            "p",
            "probability",
            PairScores,
            lambda *a: None,
            encodings=("mlm",),
            variants=("all", "male"),
            choices=("female",),
            truth=Truth(None, ON_DATA_SET, "a test"),
        )
    # DisCo's default filler list against its P > 0.1 fills: a choice; against nouns: data
    rows = [
        _row("DisCo", "DisCo", 1.0, NAN, family="probability", variant="names"),
        _row("DisCo", "DisCo", -1.0, NAN, family="probability", variant="nouns", primary=False),
        _row(
            "DisCo", "DisCo", -2.0, NAN, family="probability", variant="names+p>0.1", primary=False
        ),
    ]
    changed = cf.sensitivity(pd.DataFrame(rows), 0.01)
    assert changed["other"].tolist() == ["sent/cls/names+p>0.1"]


def test_a_floor_exactly_at_alpha_is_cannot_not_found():
    """The word test of 3 words a side, one-sided: floor 1/20 = 0.05 = alpha. Its p of 0.05
    is not below alpha and could never be: counted as cannot, neither found nor paper-only
    (the paper's p below alpha does not make it a paper-only finding of a test that cannot
    reach alpha); a floor just below alpha can be found."""
    rows = pd.DataFrame(
        [
            {"p_value": 0.001, "p_floor": 1e-5, "p_word": 0.05, "p_word_floor": 0.05},
            {"p_value": 0.001, "p_floor": 1e-5, "p_word": 0.0499, "p_word_floor": 0.0499},
        ]
    )
    out = cf.judged(rows, 0.05)
    assert out["cannot"].tolist() == [True, False]
    assert out["found"].tolist() == [False, True]
    assert out["paper_only"].tolist() == [False, False]


def test_no_significance_change_where_one_side_cannot_reach_alpha():
    """CrowS-Pairs found with its default encoding (p 0.0046) and 'not found' with the other,
    whose floor is at alpha (it could never be found): no significance change, since one side
    cannot decide; with a floor below alpha the same p is a change."""

    def pair(other_floor):
        rows = _crows_pairs(p_floor=other_floor, p_word_floor=other_floor)
        return cf.sensitivity(pd.DataFrame(rows), 0.01)

    assert pair(0.01).empty
    assert pair(0.001)["changed"].tolist() == ["significance"]


@settings(max_examples=40, deadline=None)
@given(
    p=st.lists(st.floats(1e-8, 1.0), min_size=1, max_size=12),
    verdict=st.sampled_from(["calibrated", "miscalibrated", "undetermined (9 clusters)"]),
)
def test_a_finding_needs_a_calibrated_test_and_its_holm_p(p, verdict):
    """Whatever the p-values: a found cell has a calibrated test whose raw and Holm p are
    below alpha, Holm never lowers a p, and a league with no calibrated verdict finds
    nothing."""
    rows = pd.DataFrame([_row("WEAT", f"T{i}", 0.5, q, q) for i, q in enumerate(p)])
    cells = cf.card_verdicts(rows, _league({("WEAT", "word"): verdict}), 0.05)
    assert (cells["p_holm"] >= cells["test_p"] - 1e-12).all()
    found = cells[cells["found"]]
    assert (found["shown_p"] < 0.05).all() and (found["p_holm"] < 0.05).all()
    if verdict != "calibrated":
        assert not cells["found"].any()
    # at least the smallest p is tested at alpha / n: below it nothing is found
    if (cells["test_p"] * len(p) >= 0.05).all():
        assert not cells["found"].any()
