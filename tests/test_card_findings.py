"""The model card's findings on a hand-built score table: found under the most conservative
test, significant under the paper's test alone, unable to reach alpha; the design choices a
verdict changes with (LPBS's sign across encodings, CrowS-Pairs' significance between the
per-token mean and the sum lm-evaluation-harness reports); scales and folded notes."""

import math

import pandas as pd
import pytest

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


def test_the_summary_says_what_was_found_and_how_it_was_counted():
    primary = _table()[_table()["primary"]]
    lines = cf.summary_lines(primary, None, LABELS, 0.01)
    text = "\n".join(lines)
    assert "* **embedding** (CEAT, s-SEAT): bias found in 1 of 4 tested cells at p < 0.01" in text
    assert "2 more significant under the paper's test alone" in text
    assert "1 cannot reach 0.01 whatever the model" in text
    assert (
        "s-SEAT on C6/names (templates): 0.9, p = 0.002 (word-level test); male names vs "
        "female names, career vs family" in text
    )
    # CrowS-Pairs found at 0.0046 (its items are pairs: the paper's test is the word test)
    assert "* **probability** (CrowS-Pairs, LPBS): bias found in 1 of 2 tested cells" in text
    assert "no comparison beside this card" in text


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


def test_the_card_opens_with_its_findings():
    facts = ModelFacts(name="m", kind="transformer", source="hf:org/m", alpha=0.01)
    card = model_card(_table(), facts, labels=LABELS)
    assert card.index("## Findings") < card.index("## Method families")
    assert "### Sensitive to a design choice" in card
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
    from biasbench.methods.contract import Method, PairScores
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
