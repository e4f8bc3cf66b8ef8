"""The cost estimate of a planned run (biasbench/plan/cost.py, scripts/estimate_cost.py), on
hand-computed cases."""

import subprocess
import sys
from pathlib import Path

import pytest

from biasbench.errors import InputError
from biasbench.io import write_json
from biasbench.plan.cost import (
    JobMeasure,
    RuleEstimate,
    estimate_rules,
    groundtruth_models_per_job,
    rule_costs,
    total_cpu_seconds,
    wall_seconds,
)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "estimate_cost.py"


def costs_of(*measures: JobMeasure) -> dict:
    return {c.rule: c for c in rule_costs(measures)}


def test_a_ground_truth_rule_scales_per_model():
    # 2 jobs of 6 models at 180 s each: 30 s per model; 11 jobs of 60 models: 1,800 s each
    costs = costs_of(*[JobMeasure("groundtruth_models", 180.0, 170.0, 6)] * 2)
    assert costs["groundtruth_models"].models_per_job == 6
    (estimate,) = estimate_rules({"groundtruth_models": 11}, 60, costs)
    assert estimate.scaling == "per model"
    assert estimate.cpu_s == pytest.approx(11 * 1800)
    assert estimate.longest_s == pytest.approx(1800)


def test_a_rule_that_scores_every_mean_in_one_job_scales_by_the_means():
    # measured: one job of 5 means x 7 models at 700 s, 20 s per model; planned: 11 means
    # of 60 models in one job, 13,200 s; a per-mean rule beside it is not multiplied
    costs = costs_of(
        JobMeasure("injected_scores", 700.0, 650.0, 35),
        JobMeasure("groundtruth_models", 180.0, 170.0, 6),
    )
    scores, models = estimate_rules(
        {"injected_scores": 1, "groundtruth_models": 11}, 60, costs, means=11
    )
    assert (scores.cpu_s, scores.longest_s) == (pytest.approx(13200), pytest.approx(13200))
    assert models.cpu_s == pytest.approx(11 * 1800)


def test_a_per_mean_variant_is_priced_per_model_from_the_one_job():
    # measured: one job of every mean, 35 models at 700 s (20 s a model); planned: the
    # per-mean variant (groundtruth.score_jobs: per_mean), 11 jobs of 60 models
    costs = costs_of(JobMeasure("injected_scores", 700.0, 650.0, 35))
    (estimate,) = estimate_rules({"injected_scores_per_mean": 11}, 60, costs, means=11)
    assert estimate.scaling == "per model"
    assert (estimate.cpu_s, estimate.longest_s) == (pytest.approx(13200), pytest.approx(1200))


def test_another_rule_scales_per_job_by_the_mean():
    costs = costs_of(*(JobMeasure("score", s, s) for s in (10.0, 20.0, 90.0)))
    assert costs["score"].total_s == 120
    (estimate,) = estimate_rules({"score": 5}, 60, costs)
    assert (estimate.scaling, estimate.cpu_s, estimate.longest_s) == ("per job", 200, 90)


def test_wall_time_is_cpu_over_cores_or_the_longest_job():
    estimates = [
        RuleEstimate("a", 10, "per job", 2600.0, 1000.0),
        RuleEstimate("b", 1, "per job", 1000.0, 1000.0),
        RuleEstimate("table", 37, "unmeasured", None, None),
    ]
    assert total_cpu_seconds(estimates) == 3600
    assert wall_seconds(estimates, 2) == 1800
    assert wall_seconds(estimates, 16) == 1000  # the longest job, not 3600 / 16


def test_a_rule_never_measured_is_listed_as_unmeasured():
    costs = costs_of(JobMeasure("score", 2.0, 2.0))
    estimates = estimate_rules({"score": 3, "table": 37}, None, costs)
    assert estimates[1] == RuleEstimate("table", 37, "unmeasured", None, None)
    assert total_cpu_seconds(estimates) == 6


def test_a_ground_truth_rule_needs_its_models_per_job():
    costs = costs_of(JobMeasure("injected_scores", 60.0, 50.0, 6))
    with pytest.raises(InputError, match="injected_scores"):
        estimate_rules({"injected_scores": 5}, None, costs)


def test_models_per_job_from_a_config():
    study = {"mu": [0.25, 0.75], "sigma": [0.1, 0.15, 0.2, 0.25, 0.3, 0.35], "repeats": 5}
    assert groundtruth_models_per_job({"groundtruth": study | {"alignment": [0.0, 0.2]}}) == 60
    assert groundtruth_models_per_job({"groundtruth": study | {"alignment": [0.0]}}) == 30
    assert groundtruth_models_per_job({"groundtruth": None}) is None
    refits = study | {"alignment": [0.0], "retest": 2}  # two refits per job, scored whole
    assert groundtruth_models_per_job({"groundtruth": refits}) == 32


def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True
    )


def test_the_cost_table_from_a_run_names_each_benchmark_file_s_rule(tmp_path):
    results = tmp_path / "results"
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    files = {
        "groundtruth/mu0.30.tsv": 120.0,
        "groundtruth/frozen_states.tsv": 80.0,
        "logprobs/smollm2-135m.tsv": 30.0,  # a per-model rule made in a loop
        "embed/smollm2-135m.tsv": 20.0,
        "injected_scores.tsv": 300.0,
        "injected_methods/mu0.40.tsv": 50.0,  # the per-mean variant's file
    }
    for name, seconds in files.items():
        path = results / "benchmarks" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + f"{seconds}\t0:00:00\t1\t1\t1\t1\t0\t0\t90\t{seconds - 5}\n")
    # a job that logged its own CPU (biasbench.io.log_cpu): that, not the sampled cpu_time
    log = results / "logs/groundtruth/frozen_states.log"
    log.parent.mkdir(parents=True)
    log.write_text("cpu: start-up 1.500\nmodel: device cpu\ncpu: total 79.250\n")
    models = [{"refit": None}] * 3 + [{"refit": "gt-x-refit"}]  # four models, one refit
    write_json(results / "studies/groundtruth/mu0.30.json", {"models": models})
    write_json(results / "studies/groundtruth/mu0.40.json", {"models": models[:2]})
    out = tmp_path / "job_costs.tsv"
    done = run_script("--from-run", str(results), "--costs", str(out))
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows[0][:3] == ["rule", "jobs", "models_per_job"]
    by_rule = {r[0]: r[1:] for r in rows[1:]}
    assert by_rule["groundtruth_models"][:3] == ["1", "5.00", "120.00"]
    assert by_rule["injected_scores"][:3] == ["1", "7.00", "300.00"]  # every mean's models
    assert by_rule["injected_methods_per_mean"][:3] == ["1", "2.00", "50.00"]  # mu 0.40's
    assert by_rule["groundtruth_states"][1] == ""  # per job: no models
    assert by_rule["groundtruth_states"][-1] == "79.25"  # its logged CPU
    assert by_rule["groundtruth_models"][-1] == "115.00"  # no CPU logged: the benchmark's
    assert by_rule["logprobs"][2] == "30.00"
    assert by_rule["embed"][2] == "20.00"


def test_a_missing_cost_table_is_an_error_naming_the_file(tmp_path):
    done = run_script("--costs", str(tmp_path / "none.tsv"))
    assert done.returncode != 0
    assert f"{tmp_path / 'none.tsv'}: no cost table" in done.stderr


def test_the_preset_plans_eleven_ground_truth_jobs_of_sixty_models(tmp_path):
    costs = tmp_path / "job_costs.tsv"
    costs.write_text(
        "rule\tjobs\tmodels_per_job\tmean_s\tmax_s\ttotal_s\tcpu_s_per_job\n"
        "groundtruth_models\t2\t6\t180\t180\t360\t170\n"
        "score\t3\t\t2\t4\t8\t2\n"
    )
    preset = "config/presets/schroeder-scale.yaml"
    done = run_script("--configfile", preset, "--costs", str(costs), "--cores", "2", "64")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    ground_truth = next(x for x in lines if x.startswith("groundtruth_models"))
    # 60 models and 3 refits per job
    assert ground_truth.split()[:5] == ["groundtruth_models", "11", "63", "per", "model"]
    unmeasured = done.stdout.partition("unmeasured, not in the total")[2].partition("total:")[0]
    assert "table (" in unmeasured
    # 11 x 63 x 30 s and 95 x 2 s: 5.83 CPU-hours; at 64 cores the longest job, 0.53 h
    assert lines[-2:] == [
        "total: 5.8 CPU-hours; wall ~2.9 h at 2 cores",
        "total: 5.8 CPU-hours; wall ~0.5 h at 64 cores",
    ]


def test_the_cpu_per_stage_sums_each_job_s_own_log(tmp_path):
    """scripts/job_cpu.py: per stage, the jobs, their logged CPU and its start-up part (to
    the model loaded where a job loads one); per model, the jobs that loaded it; a log
    without CPU lines (an older run's, a rule that logs none) is left out."""
    logs = tmp_path / "results/logs"
    written = {
        "embed/tiny.log": "cpu: start-up 1.0\ncpu: model loaded 4.0\ncpu: total 10.0\n",
        "score/tiny/templates.log": "cpu: start-up 0.5\nC6: cached\ncpu: total 1.5\n",
        "score/tiny/words.log": "cpu: start-up 0.5\ncpu: total 2.5\n",
        "logprobs/tiny.log": "cpu: start-up 1.0\ncpu: model loaded 3.0\ncpu: total 13.0\n",
        "logprobs/tiny-null.log": "cpu: start-up 1.0\ncpu: total 2.0\n",  # every test cached
        "table/old.log": "nothing measured\n",
    }
    for name, text in written.items():
        (logs / name).parent.mkdir(parents=True, exist_ok=True)
        (logs / name).write_text(text)
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts/job_cpu.py"), "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    rows = {
        line.split(" | ")[0].strip("| *"): line.split(" | ")[1:]
        for line in done.stdout.splitlines()
        if line.startswith("| ") and "---" not in line
    }
    assert rows["logprobs"] == ["2", "15.0", "4.0", "27% |"]
    assert rows["score"] == ["2", "4.0", "1.0", "25% |"]
    assert rows["embed"] == ["1", "10.0", "4.0", "40% |"]
    assert rows["all"] == ["5", "29.0", "9.0", "31% |"]
    assert "table" not in rows
    assert done.stdout.strip().endswith("jobs that loaded each model's weights: tiny 2")


def test_the_cpu_per_test_is_each_tests_line_less_the_line_before_it(tmp_path):
    """scripts/job_cpu.py --tests: a computed test's CPU is its line's seconds less the
    previous line's (the model's load before the first test is not the test's); cached tests
    log no line; the costliest first."""
    logs = tmp_path / "results/logs/logprobs"
    logs.mkdir(parents=True)
    (logs / "tiny.log").write_text(
        "cpu: start-up 1.0\ncpu: model loaded 3.0\ncpu: computed crows_pairs 7.5\n"
        "C1: cached\ncpu: computed templates/C3 20.0\ncpu: total 20.5\n"
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts/job_cpu.py"), "--tests"]
        + ["--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[2:] == [
        "| logprobs | tiny | templates/C3 | 12.5 |",
        "| logprobs | tiny | crows_pairs | 4.5 |",
    ]
