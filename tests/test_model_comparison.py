"""Two models compared item by item on a data set's outcomes: the table by hand, the level on
two null models whose pairs share their swapped words, the direction on two biased ones."""

import io
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from biasbench.errors import InputError
from biasbench.reports.comparison_card import comparison_card
from biasbench.reports.lm_eval import lm_eval_comparison, lm_eval_results
from biasbench.reports.paired_check import check_table
from biasbench.scoring.datasets import OUTCOME_COLUMNS
from biasbench.studies.model_comparison import COLUMNS, compare_models

Z_975, Z_80 = 1.959963984540054, 0.8416212335729143


def outcomes(preferred, units, method="CrowS-Pairs", encoding="causal-sentence-mean"):
    preferred = np.asarray(preferred, int)
    frame = pd.DataFrame(
        {
            "method": method,
            "encoding": encoding,
            "variant": "full",
            "item": [f"pair {i}" for i in range(len(preferred))],
            "unit": list(units),
            "category": "gender",
            "more": preferred.astype(float),
            "less": 0.5,
            "preferred": preferred,
            "tie": 0,
        }
    )
    assert tuple(frame.columns) == OUTCOME_COLUMNS
    return frame


def compare(base, against, **kwargs):
    return compare_models(
        {"crows_pairs": (base, against)}, names=("base", "debiased"), seed=3, **kwargs
    )


def test_the_table_by_hand_with_one_pair_per_swap():
    # four swaps of one pair each, preferred by the base model only: McNemar b = 4, c = 0
    table = compare(outcomes([1, 1, 1, 1], "abcd"), outcomes([0, 0, 0, 0], "abcd"))
    (row,) = table.to_dict("records")
    assert list(table.columns) == list(COLUMNS)
    assert (row["base_score"], row["against_score"], row["difference"]) == (100, 0, -100)
    assert (row["base_only"], row["against_only"], row["items"], row["units"]) == (4, 0, 4, 4)
    assert row["p_mcnemar"] == pytest.approx(2 / 16)  # 2 P(X <= 0), X ~ Bin(4, 1/2)
    assert row["p_mcnemar_mid"] == pytest.approx(2 * (1 / 16 - 0.5 / 16))
    # all 16 flips of the four swaps: only the observed one and its mirror reach |-400|
    assert (row["p_value"], row["p_floor"]) == (pytest.approx(2 / 16), pytest.approx(2 / 16))
    assert row["p_holm"] == row["p_value"] and not row["significant"]
    assert row["detectable"] == 0  # every swap moved alike: no spread


def test_pairs_that_share_a_swap_flip_together_where_mcnemar_counts_each():
    # the same outcomes, two pairs per swap: McNemar sees 8 discordant pairs, the swap test 4
    table = compare(outcomes([1] * 8, "aabbccdd"), outcomes([0] * 8, "aabbccdd"))
    (row,) = table.to_dict("records")
    assert row["p_mcnemar"] == pytest.approx(2 / 256)
    assert row["p_value"] == pytest.approx(2 / 16)
    assert row["units"] == 4


def test_the_detectable_difference_by_hand():
    base = outcomes([1, 1, 1, 0], "abcd")
    against = outcomes([0, 1, 0, 1], "abcd")  # differences -100, 0, -100, +100 per swap
    (row,) = compare(base, against).to_dict("records")
    sd = np.sqrt(((-75) ** 2 + 25**2 + (-75) ** 2 + 125**2) / 3)
    assert row["detectable"] == pytest.approx((Z_975 + Z_80) * sd / np.sqrt(4))
    assert row["stderr"] == pytest.approx(sd / np.sqrt(4))
    assert row["difference"] == -25


def test_holm_runs_over_every_measure_and_data_set():
    base = pd.concat([outcomes([1] * 8, "abcdefgh"), outcomes([1] * 8, "abcdefgh", "AUL")])
    against = pd.concat([outcomes([0] * 8, "abcdefgh"), outcomes([1] * 8, "abcdefgh", "AUL")])
    table = compare_models(
        {"crows_pairs": (base, against), "copy": (base, against)}, names=("a", "b"), seed=0
    )
    assert len(table) == 4
    moved = table[table["method"] == "CrowS-Pairs"]
    assert list(moved["p_value"]) == [pytest.approx(2 / 256)] * 2
    assert list(moved["p_holm"]) == [pytest.approx(4 * 2 / 256)] * 2
    assert (table[table["method"] == "AUL"]["p_holm"] == 1).all()
    # the detectable difference at alpha over the four measures
    assert moved["significant"].all()


def test_items_one_model_lacks_are_an_error_naming_one():
    with pytest.raises(InputError, match="pair 3"):
        compare(outcomes([1, 0, 1, 0], "abcd"), outcomes([1, 0, 1], "abc"))
    with pytest.raises(InputError, match="no measure"):
        compare(outcomes([1, 0], "ab"), outcomes([1, 0], "ab", method="AUL"))


def null_model(rng, units, spread):
    """A model that reads only the swapped words: one leaning per swap, shared by its pairs."""
    leaning = rng.normal(0, spread, units.max() + 1)
    return (leaning[units] + rng.normal(0, 1, len(units)) > 0).astype(int)


def test_the_swap_test_holds_its_level_on_two_null_models_where_mcnemar_does_not():
    rng = np.random.default_rng(20261128)
    units = np.repeat(np.arange(20), 8)  # 20 swaps of 8 pairs each
    names = [f"swap{u}" for u in units]
    draws = 400
    swap_rejects = mcnemar_rejects = 0
    for _ in range(draws):
        table = compare(
            outcomes(null_model(rng, units, 1.5), names),
            outcomes(null_model(rng, units, 1.5), names),
            n_perm=199,
            n_boot=10,
        )
        swap_rejects += int(table["p_value"].iloc[0] < 0.05)
        mcnemar_rejects += int(table["p_mcnemar"].iloc[0] < 0.05)
    # at 0.05 over 400 draws the share's standard error is 1.1 points: 9% is 3.6 of them
    assert swap_rejects / draws <= 0.09
    assert mcnemar_rejects / draws >= 0.20  # items taken as independent: 29% at this seed


def test_a_model_with_part_of_its_bias_removed_is_found_lower():
    rng = np.random.default_rng(7)
    units = np.repeat(np.arange(30), 10)
    names = [f"swap{u}" for u in units]
    leaning = rng.normal(0, 0.5, 30)[units]
    noise = rng.normal(0, 1, len(units))
    base = (leaning + noise + 0.6 > 0).astype(int)  # a stereotype preferred ~70% of the time
    debiased = (leaning + noise + 0.1 > 0).astype(int)  # the same model, most of it removed
    (row,) = compare(outcomes(base, names), outcomes(debiased, names)).to_dict("records")
    assert row["difference"] < 0 and row["high"] < 0
    assert row["significant"] and row["against_only"] == 0


def moved_table():
    base = pd.concat([outcomes([1] * 8, "abcdefgh"), outcomes([1] * 8, "abcdefgh", "AUL")])
    against = pd.concat([outcomes([0] * 8, "abcdefgh"), outcomes([1] * 8, "abcdefgh", "AUL")])
    return compare(base, against)


def test_the_card_says_what_moved_and_what_is_known_of_each_measure():
    league = pd.DataFrame(
        {
            "method": ["CrowS-Pairs"],
            "truth_verdict": ["not found"],
            "reliability": [0.38],
            "calibration_paper": ["undetermined"],
        }
    )
    check = pd.DataFrame(
        {
            "method": ["CrowS-Pairs", "AUL"],
            "encoding": ["mlm-pll", "mlm-aul"],
            "variant": ["full", "full"],
            "pairs": [24, 24],
            "found": [5, 0],
            "found_with_truth": [2, 0],
            "found_against_truth": [3, 0],
        }
    )
    card = comparison_card(moved_table(), league, check, 0.05, "this run's comparison")
    assert card.startswith("# debiased against base: a paired comparison")
    lines = {line.split("**")[1]: line for line in card.splitlines() if line.startswith("- **")}
    # all 8 swaps fell from 100 to 0: p at the floor 2/256 (<= 1/128), Holm x 2
    assert (
        "fell 100.0 points [-100.0, -100.0] (p <= 1/128 over 8 units, Holm 0.0156)"
        in (lines["CrowS-Pairs"])
    )
    assert (
        "validity: not found; reliability 0.38; null models: undetermined" in (lines["CrowS-Pairs"])
    )
    # the study ran another encoding: said so
    assert (
        "on the study's models: found 5 of 24 known differences (2 with the truth, 3 against) "
        "as mlm-pll/full" in lines["CrowS-Pairs"]
    )
    assert "no difference found at 0.05; no difference on any unit" in lines["AUL"]
    assert "not in the comparison's league" in lines["AUL"]
    alone = comparison_card(moved_table(), None, None, 0.05, "none in this checkout")
    assert "no comparison across the zoo in this checkout" in alone


def card_lines(card: str) -> dict[str, str]:
    """The card's line per measure, by method."""
    return {line.split("**")[1]: line for line in card.splitlines() if line.startswith("- **")}


def detectable_cells(card: str) -> list[str]:
    """The detectable column of the card's table, row by row."""
    return [line.split(" | ")[-1].rstrip(" |") for line in card.splitlines() if "| crows" in line]


def test_a_study_check_left_out_is_said_on_the_card_never_a_key_error():
    # groundtruth: null: synthesis_paired_check is the one-column table plain_table writes,
    # read back as the workflow reads it
    csv, _, _ = check_table({}, SimpleNamespace(alpha=0.01))
    check = pd.read_csv(io.StringIO(csv), keep_default_na=False, na_values=[""])
    assert list(check.columns) == ["note"]
    card = comparison_card(moved_table(), None, check, 0.05, "none in this checkout")
    for line in card_lines(card).values():
        assert "the ground-truth study is not part of this configuration" in line


def test_six_swaps_cannot_reach_alpha_001_and_the_card_says_so_not_a_number():
    # 6 swaps: all 2^6 flips enumerated, the observed one and its mirror tie: p >= 2/64
    base = outcomes([1, 1, 1, 1, 0, 1], "abcdef")
    against = outcomes([0, 0, 1, 0, 0, 0], "abcdef")
    table = compare(base, against, alpha=0.01)
    (row,) = table.to_dict("records")
    assert row["p_floor"] == pytest.approx(2 / 2**6)  # 0.03125 > 0.01
    card = comparison_card(table, None, None, 0.01, "none in this checkout")
    line = card_lines(card)["CrowS-Pairs"]
    assert (
        "p-value floor: the swap test cannot reach alpha 0.01 (0.01 over 1 measure) with 6 "
        "units: p cannot go below 0.0312: no difference is detectable" in line
    )
    assert "would go unseen" not in line
    assert detectable_cells(card) == ["none"]


def test_the_floor_is_held_against_alpha_over_the_measures_the_detectable_level():
    # 8 swaps: floor 2/2^8 = 0.0078, under alpha 0.01 but over 0.01 / 2 measures = 0.005
    base = pd.concat([outcomes([1] * 8, "abcdefgh"), outcomes([1, 0] * 4, "abcdefgh", "AUL")])
    against = pd.concat(
        [outcomes([0] * 7 + [1], "abcdefgh"), outcomes([0, 1] * 4, "abcdefgh", "AUL")]
    )
    table = compare(base, against, alpha=0.01)
    assert list(table["p_floor"]) == [pytest.approx(2 / 2**8)] * 2
    assert not table["significant"].any()
    card = comparison_card(table, None, None, 0.01, "none in this checkout")
    for line in card_lines(card).values():
        assert "cannot reach alpha 0.005 (0.01 over 2 measures) with 8 units" in line
        assert "p cannot go below 0.00781" in line
    assert detectable_cells(card) == ["none", "none"]
    # at alpha 0.05 the level is 0.025: the floor is under it, the numbers stand
    table = compare(base, against, alpha=0.05)
    card = comparison_card(table, None, None, 0.05, "none in this checkout")
    assert "p-value floor" not in card
    assert detectable_cells(card) == [f"{d:.1f}" for d in table["detectable"]]


def test_one_item_has_no_detectable_difference_and_no_nan_on_the_card():
    table = compare(outcomes([1], "a"), outcomes([0], "a"))
    (row,) = table.to_dict("records")
    assert (row["units"], row["p_floor"]) == (1, 1.0)  # 2 flips, both reach it: 2/2
    card = comparison_card(table, None, None, 0.05, "none in this checkout")
    assert "nan" not in card
    assert (
        "cannot reach alpha 0.05 (0.05 over 1 measure) with 1 unit: p cannot go below 1"
        in (card_lines(card)["CrowS-Pairs"])
    )
    assert detectable_cells(card) == ["none"]


def test_identical_models_have_no_spread_to_judge_a_detectable_difference_by():
    # 20 swaps (drawn flips, floor 1/10000): the floor is no bar, the spread is 0
    same = outcomes([1, 0] * 10, "abcdefghijklmnopqrst")
    table = compare(same, same.copy())
    (row,) = table.to_dict("records")
    assert (row["detectable"], row["stderr"], row["p_floor"]) == (0, 0, pytest.approx(1e-4))
    card = comparison_card(table, None, None, 0.05, "none in this checkout")
    line = card_lines(card)["CrowS-Pairs"]
    assert "no difference on any unit: the two models agree item by item" in line
    assert "one under 0.0 points" not in line and "detectable difference" not in line
    assert detectable_cells(card) == ["no unit differs"]


def test_the_harness_file_counts_the_samples_as_the_models_own_file():
    # the data set holds 1508 pairs, 6 of them scored (datasets.limits): the model's own file
    # says original 1508, effective 6; the comparison's says the same, not 6 twice
    table = compare(outcomes([1, 1, 1, 1, 0, 1], "abcdef"), outcomes([0, 0, 1, 0, 0, 0], "abcdef"))
    coverage = {"crows_pairs": {"dataset": "crows_pairs", "items": 1508, "scored": 6}}
    export = lm_eval_comparison(table, coverage)
    assert export["n-samples"]["crows_pairs_english"] == {"original": 1508, "effective": 6}
    rows = pd.DataFrame(
        {
            "model": ["base"],
            "method": ["CrowS-Pairs"],
            "descriptor": ["all"],
            "encoding": ["causal-sentence-mean"],
            "variant": ["full"],
            "effect_size": [66.7],
            "se": [5.0],
            "n_x": [6],
        }
    )
    own = lm_eval_results(rows, "base", {}, coverage)
    assert own["n-samples"] == export["n-samples"]


def test_the_harness_file_carries_every_row_as_a_fraction_with_its_p():
    table = moved_table()
    export = lm_eval_comparison(table)
    task = export["results"]["crows_pairs_english"]
    for row in table.to_dict("records"):
        metric = {"CrowS-Pairs": "pct_stereotype", "AUL": "aul_pct_stereotype"}[row["method"]]
        key = f"{metric}_diff,{row['encoding']}/full"
        assert task[key] == pytest.approx(row["difference"] / 100)
        assert task[key.replace("_diff,", "_diff_stderr,")] == pytest.approx(row["stderr"] / 100)
        assert task[key.replace("_diff,", "_diff_p,")] == row["p_value"]
        assert task[key.replace("_diff,", "_diff_p_holm,")] == row["p_holm"]
    assert export["higher_is_better"]["crows_pairs_english"]["pct_stereotype_diff"] is False
    assert export["n-samples"]["crows_pairs_english"] == {"original": 8, "effective": 8}
    assert export["config"] == {
        "model": "biasbench",
        "base_model": "base",
        "compared_model": "debiased",
    }
    # the difference is against minus base, and the name says so in that order
    assert export["model_name"] == "debiased - base"
    assert export["model_name_sanitized"] == "debiased__minus__base"
    assert export["versions"] == {"crows_pairs_english": 1.0}
    assert export["n-shot"] == {"crows_pairs_english": 0}


def test_two_pairs_per_swap_and_two_measures_holm_decides_not_the_raw_p():
    # 6 swaps of 2 pairs each, every swap moved, in CrowS-Pairs and in AUL: each p is 2/2^6
    # (0.031, under 0.05); Holm over the two measures doubles it to 0.0625, so nothing is
    # found at 0.05
    swaps = "aabbccddeeff"
    base = pd.concat([outcomes([1] * 12, swaps), outcomes([1] * 12, swaps, "AUL")])
    against = pd.concat([outcomes([0] * 12, swaps), outcomes([0] * 12, swaps, "AUL")])
    table = compare(base, against, alpha=0.05)
    assert list(table["units"]) == [6, 6] and list(table["items"]) == [12, 12]
    assert list(table["p_value"]) == [pytest.approx(2 / 64)] * 2
    assert list(table["p_holm"]) == [pytest.approx(4 / 64)] * 2
    assert not table["significant"].any()


def test_the_spread_of_swaps_of_two_pairs_and_the_bonferroni_level_by_hand():
    # per pair, against minus base (points): swap a -100 -100, b -100 0, c 0 0, d +100 0
    base = outcomes([1, 1, 1, 0, 1, 1, 0, 0], "aabbccdd")
    against = outcomes([0, 0, 0, 0, 1, 1, 1, 0], "aabbccdd")
    other = outcomes([1, 0] * 4, "aabbccdd", "AUL")
    table = compare(pd.concat([base, other]), pd.concat([against, other.copy()]), alpha=0.05)
    row = table[table["method"] == "CrowS-Pairs"].iloc[0]
    # swap totals -200, -100, 0, +100: sd sqrt(50000 / 3); per item: times 4 swaps / 8 pairs
    spread = np.sqrt(50_000 / 3) * 4 / 8
    assert row["difference"] == pytest.approx(-25)
    assert row["stderr"] == pytest.approx(spread / 2)
    # 80% power at 0.05 over the 2 measures (Bonferroni's level): z at 1 - 0.0125
    z = 2.241402727604945
    assert row["detectable"] == pytest.approx((z + Z_80) * spread / 2)


def test_an_item_the_two_models_give_two_units_is_an_error_naming_it():
    with pytest.raises(InputError, match="'pair 2' has two units"):
        compare(outcomes([1, 0, 1, 0], "abcd"), outcomes([1, 0, 1, 0], "abxd"))


def test_every_swap_moved_alike_is_found_with_no_spread_not_a_detectable_zero():
    table = compare(outcomes([1] * 12, "aabbccddeeff"), outcomes([0] * 12, "aabbccddeeff"))
    card = comparison_card(table, None, None, 0.05, "none in this checkout")
    assert "fell 100.0 points" in card_lines(card)["CrowS-Pairs"]
    assert detectable_cells(card) == ["no spread"]


def test_the_card_says_what_it_compared_and_groups_what_it_left_out_by_reason():
    left_out = [
        {"family": "embedding", "dataset": test, "method": method, "why": "no pairs"}
        for test in ("C6/names", "C6/terms")
        for method in ("Direct Bias", "RIPA")
    ] + [{"family": "embedding", "dataset": "C9/names", "method": "CEAT", "why": "two dimensions"}]
    card = comparison_card(moved_table(), None, None, 0.05, "none in this checkout", left_out)
    assert "- Data sets compared: 2 measures on crows_pairs (AUL, CrowS-Pairs)." in card
    assert "- Not compared: Direct Bias, RIPA on C6/names, C6/terms: no pairs." in card
    assert "- Not compared: CEAT on C9/names: two dimensions." in card
    # a family neither model ran is named, with how to add it; one left out is not
    assert "- Not run for both models: probability measures (list both models under" in card
    assert "- Not run for both models: embedding" not in card
    assert "Embedding measures (differences" not in card  # no embedding row, no table
