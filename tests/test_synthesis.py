"""The cross-method comparison: agreement, null-model shares, ground truth and the league
table by hand on constructed scores; the targets and the method cards render byte-stable."""

import numpy as np
import pandas as pd
import pytest

from biasbench.io import write_tsv
from biasbench.methods.registry import REGISTRY, get
from biasbench.reports import cards as card_report
from biasbench.reports import league as league_report
from biasbench.reports import synthesis as report
from biasbench.reports.figures import save
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import render_table
from biasbench.studies.agreement import agreement, cluster_order, correlation_matrix
from biasbench.studies.calibration import calibration
from biasbench.studies.cells import model_cells, primary_cells

from .conftest import method_cards, score_row

# the null model is the configuration's random-weight copy, whatever its name
SETTINGS = ReportSettings(models={}, alpha=0.05, natural=None, null_models=("m1-null",))


def _rows():
    rows = []
    for k, test in enumerate(["C1", "C3", "C6", "C9", "Occ"]):
        for model in ("m1", "m1-null"):
            d = k / 4
            rows += [
                score_row(
                    method="s-SEAT",
                    model=model,
                    test=test,
                    source="templates",
                    effect_size=d,
                    p_value=0.01 if k > 1 else 0.5,
                ),
                score_row(
                    method="w-SEAT",
                    model=model,
                    test=test,
                    source="templates",
                    effect_size=2 * d - 0.5,
                    p_value=0.01 if k > 2 else 0.5,
                ),
                # CEAT on two sources: the natural one (its paper's) counts
                score_row(
                    method="CEAT",
                    model=model,
                    test=test,
                    source="natural",
                    effect_size=-d,
                    p_value=0.01,
                ),
                score_row(
                    method="CEAT",
                    model=model,
                    test=test,
                    source="templates",
                    effect_size=d,
                    p_value=0.01,
                ),
            ]
    return pd.DataFrame(rows)


def test_primary_cells_take_the_methods_own_source():
    cells = primary_cells(_rows(), {"CEAT": "natural", "s-SEAT": "templates"})
    ceat = cells[cells["method"] == "CEAT"]
    assert (ceat["source"] == "natural").all() and len(ceat) == 10


def test_agreement_by_hand():
    cells = primary_cells(_rows(), {"CEAT": "natural"})
    real = cells[cells["model"] == "m1"]
    pairs = agreement(real, alpha=0.05, n_boot=200).set_index(["method_a", "method_b"])
    ceat_s = pairs.loc[("CEAT", "s-SEAT")]
    assert ceat_s["n"] == 5 and ceat_s["spearman"] == pytest.approx(-1)
    assert ceat_s["ci_low"] == pytest.approx(-1) and ceat_s["ci_high"] == pytest.approx(-1)
    s_w = pairs.loc[("s-SEAT", "w-SEAT")]
    assert s_w["spearman"] == pytest.approx(1)
    # signs: s-SEAT 0, .25, .5, .75, 1 vs w-SEAT -.5, 0, .5, 1, 1.5 -> equal at k = 2, 3, 4
    assert s_w["sign_agreement"] == pytest.approx(3 / 5)
    # significance: s-SEAT significant at k > 1, w-SEAT at k > 2 -> disagree at k = 2 only
    assert s_w["significance_agreement"] == pytest.approx(4 / 5)
    order = cluster_order(correlation_matrix(pairs.reset_index(), ["CEAT", "s-SEAT", "w-SEAT"]))
    assert order.index("CEAT") in (0, 2)  # the anti-correlated one at an end


def test_null_share_and_model_cells():
    cells = primary_cells(_rows(), {"CEAT": "natural"})
    share = calibration(cells, ["m1-null"], {}, (0.05,))
    share = share[share["design"] == "paper"].set_index("method")
    assert share.loc["s-SEAT", "null_0.05"] == pytest.approx(3 / 5)
    assert share.loc["CEAT", "real_0.05"] == 1 and share.loc["CEAT", "cells_real"] == 5
    per_model = model_cells(cells[cells["model"] == "m1"]).set_index("method")
    assert per_model.loc["s-SEAT", "effect_size"] == pytest.approx(0.5)


def test_targets_and_cards_render_byte_stable(tmp_path):
    write_tsv(tmp_path / "all.tsv", _rows())
    costs = tmp_path / "method_costs.tsv"
    pd.DataFrame({"method": ["CEAT"], "seconds": [0.5]}).to_csv(costs, sep="\t", index=False)
    inputs = {"scores": [str(tmp_path / "all.tsv")], "costs": [str(costs)]}
    for table in report.TABLES:
        assert render_table(table, inputs, SETTINGS) == render_table(table, inputs, SETTINGS)
    league = league_report.league(inputs, SETTINGS).set_index("method")
    assert league.loc["CEAT", "statistic_seconds"] == 0.5
    assert league.loc["s-SEAT", "significant_null"] == pytest.approx(3 / 5)
    assert np.isnan(league.loc["DivDist", "significant_real"])  # no rows: n/a, not 0
    for figure in report.FIGURES:
        for k in (1, 2):
            save(figure.draw(inputs, SETTINGS), tmp_path / f"{k}.png", tmp_path / f"{k}.pdf")
        assert (tmp_path / "1.pdf").read_bytes() == (tmp_path / "2.pdf").read_bytes()
    pages = method_cards(inputs, SETTINGS, tmp_path)
    assert set(pages) == {"index", *(card_report.slug(m.name) for m in REGISTRY)}
    assert "| w-SEAT | 5 | 1.00 |" in pages["s-seat"], pages["s-seat"]
    assert "(model, test)" not in pages["index"] and "[CEAT](ceat.md)" in pages["index"]


def test_the_league_has_a_truth_for_every_method_the_study_models_run(tmp_path):
    """Every method with rows on the study's models gets a rho with its adjusted interval,
    against its own truth (a method scored against another quantity would not reach 1): on
    every model, the learned-bias filter a sensitivity column; the others say why not."""
    from biasbench.io import write_json

    study = tmp_path / "groundtruth"
    study.mkdir()
    write_tsv(tmp_path / "all.tsv", _rows())
    names = [f"gt-mu0.50-sd0.20-a0.00-r{r}" for r in range(8)]
    # each quantity in its own order across the models, so only the right one gives rho = 1
    quantities = {
        "difference": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        "direction": [0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1],
        "spread": [0.3, 0.1, 0.6, 0.2, 0.5, 0.4, 0.8, 0.7],
        "magnitude": [0.2, 0.6, 0.1, 0.5, 0.3, 0.4, 0.7, 0.8],
        "stereotype": [0.5, 0.3, 0.8, 0.1, 0.7, 0.2, 0.6, 0.4],
    }
    records = [
        {
            "name": n,
            "mu": 0.5,
            "kept": i != 5,
            "p": [i / 10],  # every model its own draw: its own cluster
            "injected": {q: v[i] for q, v in quantities.items()},
        }
        for i, n in enumerate(names)
    ]
    write_json(study / "mu0.50.json", {"models": records})
    # every method that runs on a masked LM: on the study's test, or (data sets) on its own
    runs = [
        m
        for m in REGISTRY
        if m.family in ("embedding", "probability") or m.name == "DivDist"
        if m.name != "WEAT"
    ]
    rows, halves = [], []
    for m in runs:
        truth = m.truth
        on_study = truth.where == "study test"
        for i, n in enumerate(names):
            value = quantities[truth.quantity][i] if truth.quantity else 1.0
            rows.append(
                score_row(
                    method=m.name,
                    model=n,
                    test="groundtruth" if on_study else m.name,
                    descriptor="occupations" if on_study else "all",
                    source="templates",
                    effect_size=3 * value**3,  # monotone, not linear: Spearman 1
                )
            )
            halves += [
                {
                    "model": n,
                    "method": m.name,
                    "resample": "words",
                    "split": 0,
                    "half": h,
                    "effect_size": value + (0.01 * i * h),
                }
                for h in (0, 1)
            ]
    frame = pd.DataFrame(rows)
    write_tsv(study / "mu0.50.methods.tsv", frame[frame["test"] == "groundtruth"])
    write_tsv(study / "mu0.50.datasets.tsv", frame[frame["test"] != "groundtruth"])
    write_tsv(study / "mu0.50.robustness.tsv", pd.DataFrame(halves))
    inputs = {
        "scores": [str(tmp_path / "all.tsv")],
        "study_datasets": [str(study / "mu0.50.datasets.tsv")],
        "study_methods": [str(study / "mu0.50.methods.tsv")],
        "study_halves": [str(study / "mu0.50.robustness.tsv")],
        "study_records": [str(study / "mu0.50.json")],
    }
    league = league_report.league(inputs, SETTINGS).set_index("method")
    with_truth = [m.name for m in runs if m.truth.quantity]
    assert league.loc[with_truth, "truth_spearman"].tolist() == pytest.approx(
        [1.0] * len(with_truth)
    )
    assert (league.loc[with_truth, "models"] == 8).all()  # every model, the filter apart
    assert (league.loc[with_truth, "distributions"] == 8).all()
    assert (league.loc[with_truth, "models_kept"] == 7).all()
    assert (league.loc[with_truth, "truth_verdict"] == "found").all()
    assert league.loc["SAME", "truth_quantity"] == "magnitude"
    assert league.loc["CrowS-Pairs", "truth_quantity"] == "stereotype"
    assert league.loc["StereoSet LMS", "truth_note"].startswith("no injected truth")
    natural = ["p-CEAT", "DivDist", "CEAT"]  # their rho stands on the templates: it says so
    plain = [m for m in with_truth if m not in natural and not get(m).truth.reads_filter]
    assert (league.loc[plain, "truth_note"] == "").all()
    assert "not natural contexts" in league.loc["DivDist", "truth_note"]
    assert league.loc["LPBS", "truth_note"].startswith("reads the slot probabilities")
    assert league.loc["WEAT", "truth_note"].startswith("static vectors only")
    assert league.loc["SAME", "reliability_words"] > 0.99
    assert np.isnan(league.loc["SAME", "reliability_templates"])
    pairs = league_report.truth_inference(
        league_report.cells_with_truth(league_report.injected_rows(inputs), inputs, SETTINGS)
    )[1]
    assert (pairs["difference"] == 0).all()  # every rho is 1: no method better


def test_the_d_study_says_where_a_data_set_holds_too_few_units(tmp_path):
    """CrowS-Pairs' D-study needs 6.4x its 60 study pairs, 384 of the 262 it holds: not
    reachable; StereoSet's 1.5x of 200 is 300 of 497: reachable; a method lengthened on its
    words has no data set to reach; the method card says the same."""
    from biasbench.io import write_json

    write_json(
        tmp_path / "items.json",
        {
            "crows_pairs": {"name": "CrowS-Pairs", "held": 262, "scored": 60},
            "stereoset": {"name": "StereoSet", "held": 497, "scored": 200},
        },
    )
    frames = pd.DataFrame(
        {
            "method": ["CrowS-Pairs", "StereoSet SS", "SAME"],
            "source": ["dataset", "dataset", "templates"],
            "test": ["CrowS-Pairs", "StereoSet", "groundtruth"],
        }
    )
    league = pd.DataFrame(
        {
            "method": ["CrowS-Pairs", "StereoSet SS", "SAME"],
            "length_facet": ["items", "items", "words"],
            "length_for_target": [6.4, 1.5, 2.0],
            "length_low": [2.0, 0.9, 1.0],
            "length_high": [np.inf, 4.0, 3.0],
        }
    )
    inputs = {"study_items": [str(tmp_path / "items.json")]}
    reach = league_report._reach(frames, inputs, league).set_index("method")
    assert list(reach.index) == ["CrowS-Pairs", "StereoSet SS"]
    crows = reach.loc["CrowS-Pairs"]
    assert (crows["items_scored"], crows["items_needed"], crows["items_held"]) == (60, 384, 262)
    assert (crows["items_needed_low"], crows["items_needed_high"]) == (120, np.inf)
    assert crows["reachable"] == "not with this data set"
    assert reach.loc["StereoSet SS", "items_needed"] == 300
    assert reach.loc["StereoSet SS", "reachable"] == "yes"
    line = card_report._reach_line(crows)
    assert "384 (scored 60; the data set holds 262): not reachable with this data set" in line


def test_the_analyses_read_their_files_by_role_not_place():
    """The tidy scores are the file declared as such, never a null copy's rows of a model
    named ``all``; the study's files come by role from the plan, each per mean, the data sets'
    halves never taken for scores nor its outcomes for either."""
    from biasbench import paths
    from biasbench.reports.synthesis_inputs import SCORES
    from biasbench.reports.targets import the_file

    from .test_plan_targets import plan_of

    null_of_all = paths.NULL_SCORES.format(model="all")
    assert the_file({"nulls": [null_of_all], "scores": [SCORES]}, "scores") == SCORES
    assert the_file({"scores": ["/tmp/t/all.tsv"]}, "scores") == "/tmp/t/all.tsv"
    with pytest.raises(ValueError, match="0 files"):
        the_file({"nulls": [null_of_all]}, "scores")
    plan = plan_of()
    study = plan.study_files()
    means = plan.groundtruth_means
    assert means and study["study_records"] == list(plan.groundtruth)
    assert study["study_datasets"] == [paths.INJECTED_DATASETS.format(mu=m) for m in means]
    assert study["study_methods"] == [paths.INJECTED_METHODS.format(mu=m) for m in means]
    assert study["study_items"] == [paths.GROUNDTRUTH_ITEMS]
    assert study["study_halves"] == [
        *(paths.INJECTED_DATASETS_ROBUSTNESS.format(mu=m) for m in means),
        *(paths.INJECTED_METHODS_ROBUSTNESS.format(mu=m) for m in means),
    ]
    outcomes = {paths.INJECTED_OUTCOMES.format(mu=m) for m in means}
    assert not outcomes & {f for files in study.values() for f in files}
