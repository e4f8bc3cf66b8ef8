"""A model card's opening on a toy model: a hand-built score table, comparison (league and the
zoo's cells) and null copies through the card-building function. The first lines are one
verdict per method family; validity is a table; the scores come before the design choices;
a test that cannot reach alpha says so in words; no p is printed finer than its test
resolves."""

import re

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from biasbench.reports import card_findings as cf
from biasbench.reports.calibration import league_columns
from biasbench.reports.model_cards import Comparison, ModelFacts, model_card

from .conftest import score_row

NAN = float("nan")
ALPHA = 0.01
LABELS = {"C6/names": {"X": "male names", "Y": "female names", "A": "career", "B": "family"}}
#: the league's verdicts (method, design); every other is "n/a"
VERDICTS = {
    ("s-SEAT", "word"): "calibrated",
    ("LPBS", "word"): "calibrated",
    ("RND", "word"): "miscalibrated",
    ("CEAT", "paper"): "miscalibrated",
    ("CEAT", "word"): "undetermined (21 clusters; 340 needed)",
}


def _row(method, test, effect, **kw):
    return score_row(
        method=method,
        family=kw.pop("family", "embedding"),
        model=kw.pop("model", "m"),
        test=test,
        descriptor=kw.pop("descriptor", "names"),
        source=kw.pop("source", "templates"),
        encoding=kw.pop("encoding", "sent/cls"),
        effect_size=effect,
        **kw,
    )


def toy_rows() -> pd.DataFrame:
    return pd.DataFrame(
        [
            # found: the word test calibrated, at its floor 1/10001, Holm 5 x 1e-4
            _row("s-SEAT", "C6", 0.9, p_value=1e-6, p_floor=1e-5, p_word=1 / 10001,
                 p_word_floor=1 / 10001),
            # three words a side: the word test's floor 0.05 cannot reach 0.01
            _row("s-SEAT", "C9", 1.2, descriptor="simplified", p_value=1e-5, p_floor=1e-5,
                 p_word=0.05, p_word_floor=0.05),
            # CEAT's combined z underflowed to 0; its word test of one word a side: floor 1
            _row("CEAT", "C6", 0.5, source="natural", p_value=0.0, p_floor=0.0, p_word=1.0,
                 p_word_floor=1.0),
            # significant under a word test the league calls miscalibrated: never found
            _row("RND", "C6", 0.3, p_value=1e-4, p_floor=1e-4, p_word=0.001,
                 p_word_floor=1e-4),
            # a size without a test
            _row("MAC", "C6", 0.8),
            # the same association in the probability family, found there too
            _row("LPBS", "C6", 0.02, family="probability", encoding="mlm", p_value=1e-4,
                 p_floor=1e-4, p_word=2e-4, p_word_floor=1e-4),
            # another encoding of the s-SEAT cell: the other sign (a design choice)
            _row("s-SEAT", "C6", -0.4, encoding="sent/mean", primary=False, p_value=0.3,
                 p_floor=1e-5, p_word=0.4, p_word_floor=1 / 10001),
        ]
    )  # fmt: skip


def toy_league() -> pd.DataFrame:
    methods = ["s-SEAT", "CEAT", "RND", "MAC", "LPBS"]
    frame = pd.DataFrame(
        {
            "method": methods,
            "truth_spearman": [0.62, 0.52, 0.76, 0.51, 0.92],
            "truth_ci_low": [0.12, -0.09, 0.28, 0.05, 0.6],
            "truth_ci_high": [0.91, 0.89, 0.92, 0.78, 0.99],
            "census_spearman": NAN,
            "truth_verdict": ["found", "not found (80% power only for rho >= 0.65)"] * 2
            + ["found"],
        }
    )
    for design in ("paper", "word", "strata"):
        column = league_columns(design)["verdict"]
        frame[column] = [VERDICTS.get((m, design), "n/a") for m in methods]
    return frame


def toy_comparison() -> Comparison:
    """The league and the zoo's cells: two other real models and a null model score the
    s-SEAT cell (the null model is left out of the zoo's spread)."""
    key = {"method": "s-SEAT", "source": "templates", "test": "C6", "descriptor": "names"}
    cells = pd.DataFrame(
        [
            {**key, "model": model, "null model": null, "effect_size": effect}
            for model, null, effect in [
                ("m", False, 0.9),
                ("a", False, 0.3),
                ("b", False, 0.5),
                ("n", True, 3.0),
            ]
        ]
    )
    return Comparison(cells, toy_league(), "this run's comparison")


def toy_copies() -> pd.DataFrame:
    """Two null copies of the model on the s-SEAT cell: their widest effect 0.2 from 0."""
    return pd.DataFrame(
        [
            _row("s-SEAT", "C6", effect, model=f"m-null-s{i}", p_value=0.5, p_floor=1e-5,
                 p_word=0.5, p_word_floor=1 / 10001)
            for i, effect in enumerate((0.1, -0.2))
        ]
    )  # fmt: skip


FACTS = ModelFacts(name="m", kind="transformer", source="hf:org/m", lm_head=True, alpha=ALPHA)
COPIES = ["m-null-s0", "m-null-s1"]


@pytest.fixture(scope="module")
def card() -> str:
    return model_card(toy_rows(), FACTS, toy_comparison(), toy_copies(), COPIES, labels=LABELS)


def test_the_first_lines_are_one_verdict_per_family(card):
    lines = card.splitlines()
    assert lines[:2] == ["# Model card: m", ""]
    verdicts = lines[2:6]
    assert [v.split(":")[0] for v in verdicts] == [
        f"* **{f}**" for f in ("embedding", "probability", "distribution", "extrinsic")
    ]
    assert lines[6] == ""
    embedding, probability, distribution, extrinsic = verdicts
    # the association, how many families find it, its size against the zoo (a and b: median
    # 0.4 of 0.3 and 0.5; the null model n left out) and against its null copies (0.9 / 0.2)
    assert embedding == (
        "* **embedding**: bias found in 1 of its 4 tested cells (1 association); the "
        "strongest is male names vs female names with career vs family (C6/names, "
        "templates): s-SEAT 0.9, zoo median 0.4 [0.3, 0.5] over 2 other models, 4.5x its "
        "null copies' widest (±0.2); p <= 0.0001 under its word-level test (Holm 0.0005); "
        "found by 2 of the 2 families that test it (embedding, probability)."
    )
    assert probability.startswith(
        "* **probability**: bias found in 1 of its 1 tested cell (1 association); the "
        "strongest is male names vs female names with career vs family (C6/names, "
        "templates): LPBS 0.02, no other model of the zoo scored it, no null copy of the "
        "model scored it; p = 0.0002 under its word-level test (Holm 0.0008)"
    )
    assert distribution.startswith("* **distribution**: not measured: DivDist is a study")
    assert extrinsic.startswith("* **extrinsic**: not measured: WinoBias runs as a data set")


def test_validity_is_a_table_and_the_scores_come_before_the_design_choices(card):
    assert "Validity:" not in card  # no longer a sentence
    section = card.split("## Validity\n\n")[1].split("\n\n")[0].splitlines()
    assert section[0].startswith("| family | method | found / tested cells | ground truth")
    rows = {line.split(" | ")[1]: line for line in section[2:]}
    assert list(rows) == ["s-SEAT", "CEAT", "MAC", "RND", "LPBS"]  # the registry's order
    assert rows["s-SEAT"] == (
        "| embedding | s-SEAT | 1 / 2 | 0.62, found | n/a | **calibrated** | n/a |"
    )
    assert rows["CEAT"] == (
        "| embedding | CEAT | 0 / 1 | 0.52, not found | miscalibrated | undetermined | n/a |"
    )
    assert rows["MAC"].startswith("| embedding | MAC | no test | 0.51, not found |")
    order = [card.index(f"## {s}") for s in ("Validity", "Findings", "Scores")]
    order.append(card.index("## Sensitive to a design choice"))
    assert order == sorted(order)
    assert "| s-SEAT | C6/names (templates) | sign and significance |" in card


def _score_rows(card: str) -> dict[tuple[str, str, str], list[str]]:
    """(method, source, test) -> the cells of its row in the score tables."""
    table = card.split("## Scores")[1].split("## Sensitive")[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ")]
    return {(r[0].lstrip("| "), r[1], r[2]): r for r in rows if r[0] != "| method"}


def test_a_floor_prints_as_what_it_is_never_as_one_over_n(card):
    rows = _score_rows(card)
    c9 = rows[("s-SEAT", "templates", "C9")]
    assert c9[6].removesuffix(" †") == "cannot reach 0.01 with these words"
    ceat = rows[("CEAT", "natural", "C6")]
    assert ceat[6].removesuffix(" †") == "cannot reach 0.01 with these words"  # floor 1
    assert rows[("s-SEAT", "templates", "C6")][6] == "<= 0.0001"  # at the floor 1/10001
    assert "<= 1/" not in card
    assert "cannot reach 0.01 with these words" in card.split("## Findings")[1]


def test_no_p_is_printed_below_its_tests_resolution(card):
    """CEAT's z-test p of 0 prints as "< 1e-6", never 2.2e-308; every printed number is at or
    above its row's floor, and a printed number without a floor is at least 1e-6."""
    rows = _score_rows(card)
    assert rows[("CEAT", "natural", "C6")][5] == "< 1e-6 †"
    assert "2.2e-308" not in card and "e-308" not in card
    floors = toy_rows().set_index(["method", "source", "test"])
    for key, cells in rows.items():
        row = floors.loc[key]
        row = row[row["primary"]].iloc[0] if isinstance(row, pd.DataFrame) else row
        for shown, floor in ((cells[5], row["p_floor"]), (cells[6], row["p_word_floor"])):
            shown = shown.removesuffix(" †")
            number = re.fullmatch(r"(?:<= |< )?([0-9.e-]+)", shown)
            if number:
                assert float(number.group(1)) >= (floor if floor > 0 else cf.RESOLUTION)


def test_a_card_without_a_comparison_says_nothing_can_be_found():
    """An audit without a finished default run: no league, so no test is shown calibrated;
    the verdict says so and quotes the strongest candidate, the validity says why."""
    card = model_card(toy_rows(), FACTS, None, toy_copies(), COPIES, labels=LABELS)
    lines = card.splitlines()
    assert lines[2].startswith(
        "* **embedding**: nothing can be found: no comparison beside this card shows a test "
        "calibrated"
    )
    assert "the strongest candidate, unconfirmed, is" in lines[2]
    assert "no other model of the zoo" not in lines[2]  # no zoo to compare with
    validity = card.split("## Validity\n\n")[1].splitlines()[0]
    assert validity.startswith("No comparison beside this card")


@given(
    floor=st.one_of(st.just(0.0), st.just(NAN), st.floats(1e-9, 1.0)),
    p=st.floats(0.0, 1.0),
    alpha=st.sampled_from([0.05, 0.01, 0.001]),
)
def test_a_printed_p_is_never_finer_than_its_design(floor, p, alpha):
    """Whatever the p and floor: a test that cannot reach alpha says so; a printed bound or
    number is at or above the design's floor (a p below its floor cannot come out of the
    design); an analytic tail is never printed below 1e-6."""
    if floor > 0:
        p = max(p, floor)  # what a design with this floor can give
    shown = cf.p_shown(p, floor, alpha)
    if floor >= alpha:
        assert shown == f"cannot reach {alpha:g} with these words"
        return
    assert "1/" not in shown and "e-308" not in shown
    value = float(shown.removeprefix("<= ").removeprefix("< "))
    if floor >= cf.RESOLUTION:  # a design that counts partitions or items
        assert value >= floor * (1 - 1e-12)
    else:  # an analytic tail (no floor, or one below the resolution)
        assert value >= cf.RESOLUTION
