"""A model's data-set scores in lm-evaluation-harness's results layout: the harness's keys,
the CrowS-Pairs row that equals its pct_stereotype under the filter "none", every other row
under its encoding, each value and stderr equal to the row's (a share as a fraction)."""

import json

import pandas as pd
import pytest

from biasbench.reports.lm_eval import lm_eval_results

from .conftest import score_row

HARNESS_KEYS = {
    "results",
    "group_subtasks",
    "configs",
    "versions",
    "n-shot",
    "higher_is_better",
    "n-samples",
    "config",
}


def _rows():
    common = dict(model="smol", source="dataset", descriptor="all", n_x=300)
    return pd.DataFrame(
        [
            score_row(
                method="CrowS-Pairs",
                encoding="causal-sentence-mean",
                effect_size=58.33,
                se=2.8,
                **common,
            ),
            score_row(
                method="CrowS-Pairs",
                encoding="causal-sentence",
                effect_size=55.0,
                se=2.9,
                primary=False,
                **common,
            ),
            score_row(
                method="StereoSet SS",
                encoding="causal",
                variant="intrasentence",
                effect_size=61.0,
                se=float("nan"),
                **common,
            ),
            # another model's row and a category's row stay out
            score_row(method="CrowS-Pairs", model="other", source="dataset", descriptor="all"),
            score_row(
                method="CrowS-Pairs",
                model="smol",
                source="dataset",
                descriptor="gender",
                encoding="causal-sentence",
                effect_size=70.0,
            ),
        ]
    )


def test_the_results_file_has_the_harness_keys_and_the_rows_values():
    run = {"model_args": "source=pkg:x", "batch_size": 64, "random_seed": 1}
    out = lm_eval_results(_rows(), "smol", run)
    assert set(out) >= HARNESS_KEYS
    crows = out["results"]["crows_pairs_english"]
    assert crows["alias"] == "crows_pairs_english"
    # the harness's own metric: the summed sentence log-likelihood, as a fraction
    assert crows["pct_stereotype,none"] == pytest.approx(0.55)
    assert crows["pct_stereotype_stderr,none"] == pytest.approx(0.029)
    assert crows["pct_stereotype,causal-sentence-mean/full"] == pytest.approx(0.5833)
    assert crows["pct_stereotype_stderr,causal-sentence-mean/full"] == pytest.approx(0.028)
    stereoset = out["results"]["stereoset"]
    assert stereoset["ss,causal/intrasentence"] == pytest.approx(0.61)
    assert stereoset["ss_stderr,causal/intrasentence"] == "N/A"
    assert out["n-samples"]["crows_pairs_english"] == {"original": 300, "effective": 300}
    assert out["higher_is_better"]["crows_pairs_english"] == {"pct_stereotype": False}
    assert out["n-shot"] == {"crows_pairs_english": 0, "stereoset": 0}
    assert out["config"]["model_args"] == "source=pkg:x" and out["config"]["batch_size"] == 64
    metrics = out["configs"]["crows_pairs_english"]["metric_list"]
    assert metrics == [
        {"metric": "pct_stereotype", "aggregation": "mean", "higher_is_better": False}
    ]
    json.dumps(out)  # plain JSON


def test_a_model_without_data_sets_has_an_empty_results_file():
    out = lm_eval_results(_rows(), "glove", {})
    assert out["results"] == {} and set(out) >= HARNESS_KEYS
