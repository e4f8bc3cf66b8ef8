"""A data-set or ground-truth-study target the configuration does not plan (typed by hand)
fails in the planner, before any job, with a message naming the config field; as score
targets do (tests/test_config.py)."""

import re
import subprocess
import sys

import pytest

from biasbench.config import validate_config
from biasbench.errors import InputError
from biasbench.plan import make_plan

from .test_plan_isolation import ROOT, default_config, workdir_for


def plan_of(edit=None):
    config = default_config()
    if edit:
        edit(config)
    return make_plan(validate_config(config), ROOT)


def without_study_datasets(config):
    del config["datasets"]["models"]["minilm-l6+mlm-head"]


def without_datasets(config):
    config["datasets"] = None
    config["null_calibration"]["datasets"] = {}  # the null copies' data sets need the section
    del config["null_calibration"]["models"]["minilm-l6"]["item_designs"]  # and so do these


def without_study(config):
    config["groundtruth"] = None


def without_template_study(config):
    config["delobelle"] = None


def without_null_calibration(config):
    config["null_calibration"] = None


#: (config edit, target, the planner's message)
UNPLANNED = [
    (
        None,
        "results/datasets/gemma3-270m/stereoset.tsv",
        "config.yaml: model 'gemma3-270m' runs no data set 'stereoset' "
        "(datasets.models.gemma3-270m; planned there: crows_pairs, winobias)",
    ),
    (
        None,
        "results/datasets/glove-6b-50d/crows_pairs.coverage.json",
        "config.yaml: model 'glove-6b-50d' runs no data set 'crows_pairs' "
        "(datasets.models.glove-6b-50d; planned there: none)",
    ),
    (
        None,
        "results/datasets/smollm2-135m/crowspairs.tsv",
        "config.yaml: no model runs the data set 'crowspairs' (datasets.models; planned: "
        "crows_pairs, stereoset, becpro, winobias, disco, lpbs_salaries)",
    ),
    (
        without_datasets,
        "results/datasets/smollm2-135m/winobias.tsv",
        "config.yaml: no model runs the data set 'winobias' (datasets.models; planned: none)",
    ),
    (
        None,
        "results/datasets/nosuch/winobias.tsv",
        "config: unknown model 'nosuch'",
    ),
    (
        None,
        "results/studies/groundtruth/mu0.35.json",
        "config.yaml: the ground-truth study has no mean mu0.35 (groundtruth.mu; planned: "
        "mu0.30, mu0.40, mu0.50, mu0.60, mu0.70)",
    ),
    (
        None,
        "results/studies/groundtruth/mu0.3.safetensors",
        "config.yaml: the ground-truth study has no mean mu0.3 (groundtruth.mu; planned: "
        "mu0.30, mu0.40, mu0.50, mu0.60, mu0.70)",
    ),
    (
        None,
        "results/studies/groundtruth/mu0.45.datasets.tsv",
        "config.yaml: the ground-truth study has no mean mu0.45 (groundtruth.mu;",
    ),
    (
        without_study_datasets,
        "results/studies/groundtruth/mu0.30.datasets.tsv",
        "config.yaml: the ground-truth study's models run no data set: its masked LM "
        "'minilm-l6+mlm-head' runs none (datasets.models.minilm-l6+mlm-head)",
    ),
    (  # a study's section null: the rule's settings of it (Plan.settings_of)
        without_template_study,
        "results/studies/templates/minilm-l6/sensitivity.tsv",
        "config.yaml: delobelle is null: it plans no job",
    ),
    (  # the embedding job of a model's tests on a source it does not read
        None,
        "results/embeddings/glove-6b-50d/natural/C1.h5",
        "config.yaml: model 'glove-6b-50d' runs no test on source 'natural' "
        "(models.glove-6b-50d.tests; its sources: words)",
    ),
    (  # the null-model calibration of a model it does not name
        None,
        "results/scores/null/gemma3-270m.tsv",
        "config.yaml: the null-model calibration has no model 'gemma3-270m' "
        "(null_calibration.models; planned: minilm-l6, smollm2-135m, glove-6b-50d)",
    ),
    (
        without_null_calibration,
        "results/scores/null/minilm-l6.tsv",
        "config.yaml: the null-model calibration has no model 'minilm-l6' "
        "(null_calibration.models; planned: none)",
    ),
    (  # a template study's file of a model it does not list (its files come from model jobs)
        None,
        "results/studies/templates/glove-6b-50d/kl.tsv",
        "config.yaml: the template study's kl has no model 'glove-6b-50d' (delobelle.kl_models;",
    ),
    (  # LPBS of a model that runs none (its files come from the log-probability jobs)
        None,
        "results/lpbs/gemma3-270m/templates/C6.tsv",
        "config.yaml: model 'gemma3-270m' runs no LPBS (lpbs.models; planned: "
        "minilm-l6+mlm-head, smollm2-135m)",
    ),
    (  # p-CEAT of a model that runs LPBS on templates alone
        None,
        "results/lpbs/smollm2-135m/natural/C6.sweep.tsv",
        "config.yaml: model 'smollm2-135m' runs no p-CEAT (lpbs.corpus_models; planned: "
        "minilm-l6+mlm-head)",
    ),
]


def test_a_data_set_a_model_does_not_run():
    plan = plan_of()
    assert plan.dataset_roles("gemma3-270m", "winobias")["pro"]
    with pytest.raises(InputError, match=re.escape(UNPLANNED[0][2])):
        plan.dataset_roles("gemma3-270m", "stereoset")
    with pytest.raises(InputError, match=re.escape(UNPLANNED[1][2])):
        plan.dataset_roles("glove-6b-50d", "crows_pairs")
    with pytest.raises(InputError, match=re.escape(UNPLANNED[4][2])):
        plan.dataset_roles("nosuch", "winobias")


def test_a_data_set_no_model_runs():
    with pytest.raises(InputError, match=re.escape(UNPLANNED[2][2])):
        plan_of().dataset_files["crowspairs"]
    with pytest.raises(InputError, match=re.escape(UNPLANNED[3][2])):
        plan_of(without_datasets).dataset_files["winobias"]


def test_an_lpbs_file_a_model_does_not_run():
    """LPBS's and p-CEAT's planned files pass; a model, a test, a corpus not planned, each
    named with its field."""
    plan = plan_of()
    plan.planned_lpbs("smollm2-135m", "templates", "C6")
    plan.planned_lpbs("minilm-l6+mlm-head", "natural", "C6")
    with pytest.raises(InputError, match=re.escape(UNPLANNED[14][2])):
        plan.planned_lpbs("gemma3-270m", "templates", "C6")
    with pytest.raises(InputError, match=re.escape(UNPLANNED[15][2])):
        plan.planned_lpbs("smollm2-135m", "natural", "C6")
    with pytest.raises(InputError, match=r"LPBS runs no test 'WEAT2' \(lpbs.tests; planned: C1,"):
        plan.planned_lpbs("smollm2-135m", "templates", "WEAT2")
    with pytest.raises(InputError, match=r"p-CEAT runs on no corpus 'reddit' \(lpbs.corpora;"):
        plan.planned_lpbs("minilm-l6+mlm-head", "reddit", "C6")
    with pytest.raises(InputError, match="unknown model 'nosuch'"):
        plan.planned_lpbs("nosuch", "templates", "C6")


def test_the_tests_of_one_embedding_job():
    """One job per (model, source) encodes every test the model runs there, each test's
    descriptors with their contexts files (what rule embed reads for one test)."""
    plan = plan_of()
    assert plan.tests_of("gemma3-270m", "templates") == [
        "C1", "C3", "C6", "C9", "Occ", "I1", "I2", "Dis"
    ]  # fmt: skip
    assert plan.tests_of("minilm-l6", "words") == ["Schroeder31"]
    assert len(plan.tests_of("minilm-l6", "natural")) == 18
    group = plan.group_contexts("smollm2-135m", "templates")
    assert list(group) == plan.tests_of("smollm2-135m", "templates")
    for test, files in group.items():
        assert list(files.values()) == plan.contexts_files("smollm2-135m", "templates", test)
    assert plan.group_contexts("minilm-l6", "natural")["C6"]["terms"] == (
        "results/contexts/natural/any/C6/terms.tsv"
    )
    # every planned embeddings file is in exactly one job's tests
    files = {(j.model, j.source, j.test) for j in plan.jobs}
    groups = {(j.model, j.source) for j in plan.jobs}
    assert files == {(m, s, t) for m, s in groups for t in plan.tests_of(m, s)}
    with pytest.raises(InputError, match=re.escape(UNPLANNED[10][2])):
        plan.tests_of("glove-6b-50d", "natural")
    with pytest.raises(InputError, match="unknown model 'nosuch'"):
        plan.tests_of("nosuch", "templates")


def test_a_mean_the_study_does_not_plan():
    plan = plan_of()
    assert plan.groundtruth_mean("0.30") == 0.3 and plan.injected_mean("0.70") == 0.7
    for mu, message in (("0.35", UNPLANNED[5][2]), ("0.3", UNPLANNED[6][2])):
        with pytest.raises(InputError, match=re.escape(message)):
            plan.groundtruth_mean(mu)
    with pytest.raises(InputError, match=re.escape(UNPLANNED[7][2])):
        plan.injected_mean("0.45")


def test_the_null_calibration_plans_one_job_per_model():
    from biasbench.reports.tables import report_settings

    config = validate_config(default_config())
    plan = make_plan(config, ROOT)
    assert plan.null_files() == [
        f"results/scores/null/{m}.tsv" for m in ("minilm-l6", "smollm2-135m", "glove-6b-50d")
    ]
    copies = plan.null_copies()
    # the seeded copies and, beside them, one copy per generated design and item design
    designs = sum(plan.null_designs.values())
    items = sum(map(plan.null_item_design_count, plan.null_seeds))
    # MiniLM 4 copies, 1,250 designs and 160 item designs, SmolLM2 2 and none, GloVe 34 and
    # 1,000 designs
    assert len(copies) == sum(plan.null_seeds.values()) + designs + items == 40 + 2250 + 160
    assert "minilm-l6-null-i159" in copies
    assert copies[0] == "minilm-l6-null-s0" and "minilm-l6-null-g0" in copies
    minilm = config["null_calibration"]["models"]["minilm-l6"]
    assert (plan.null_seeds["minilm-l6"], plan.null_designs["minilm-l6"]) == (
        minilm["seeds"],
        minilm["designs"],
    )
    null_models = report_settings(config, plan)["null_models"]
    assert set(copies) <= set(null_models) and "gemma3-270m-null" in null_models
    words = plan.null_test_files("glove-6b-50d")
    assert words["C1"]["names"] == ["results/contexts/words/C1/names.tsv", WORDSET_C1]
    templates = plan.null_test_files("minilm-l6")
    assert templates["C1"]["names"] == ["results/contexts/templates/C1/names.tsv", WORDSET_C1]
    assert list(templates) == config["tests"]  # tests: all
    assert plan.null_lpbs_of("glove-6b-50d") == {} and plan.null_datasets_of("glove-6b-50d") == {}
    assert list(plan.null_lpbs_of("smollm2-135m")) == config["null_calibration"]["lpbs_tests"]
    # a model's own entries in place of the section's
    own = config["null_calibration"]["models"]["smollm2-135m"]
    assert list(plan.null_test_files("smollm2-135m")) == own["tests"]
    assert plan.null_seeds["smollm2-135m"] == own["seeds"]
    datasets = plan.null_datasets_of("minilm-l6")
    assert datasets["crows_pairs"]["limit"] == config["null_calibration"]["datasets"]["crows_pairs"]
    assert datasets["crows_pairs"]["files"] == plan.dataset_files["crows_pairs"]
    # p-CEAT on the natural corpus' pairs under the base model's case policy; none where own
    case = plan.specs["minilm-l6"].case
    assert plan.null_pairs_of("minilm-l6") == {
        "natural": f"results/corpus/natural/{case}/pairs.tsv"
    }
    assert plan.null_pairs_of("smollm2-135m") == {} and plan.null_pairs_of("glove-6b-50d") == {}


def test_a_config_without_the_null_calibration_plans_none():
    from biasbench.reports.tables import report_settings

    config = default_config()
    without_null_calibration(config)
    plan = make_plan(validate_config(config), ROOT)
    assert plan.null_files() == [] and plan.null_copies() == []
    null_models = report_settings(config, plan)["null_models"]
    assert null_models == ("minilm-l6-null", "smollm2-135m-null", "gemma3-270m-null")
    with pytest.raises(InputError, match=re.escape(UNPLANNED[12][2])):
        plan.null_test_files("minilm-l6")


@pytest.mark.parametrize(
    "section, message",
    [
        ({"models": {"nosuch": 2}}, "null_calibration.models.nosuch: not a configured"),
        ({"models": {"minilm-l6-null": 2}}, "null_calibration.models.minilm-l6-null: not a"),
        ({"models": {"minilm-l6": 2}, "tests": ["C1/nosuch"]}, "null_calibration.tests names"),
        (
            {"models": {"minilm-l6": {"seeds": 2, "tests": ["nosuch"]}}},
            "null_calibration.models.minilm-l6.tests names 'nosuch', not in 'tests'",
        ),
        ({"models": {"minilm-l6": 2}, "lpbs_tests": ["WEAT2"]}, "lpbs_tests names 'WEAT2'"),
        ({"models": {"minilm-l6": 2}, "datasets": {"disco": 4}}, "datasets.disco: this data"),
        (
            {"models": {"minilm-l6": 2}, "lpbs_tests": ["C6"], "corpora": ["reddit"]},
            "null_calibration.corpora names 'reddit', not in lpbs.corpora",
        ),
    ],
)
def test_a_bad_null_calibration(section, message):
    def edit(config):
        config["null_calibration"] = section

    with pytest.raises(InputError, match=re.escape(message)):
        plan_of(edit)


WORDSET_C1 = "results/wordsets/C1/names.json"


def test_study_models_whose_masked_lm_runs_no_data_set():
    with pytest.raises(InputError, match=re.escape(UNPLANNED[8][2])):
        plan_of(without_study_datasets).injected_mean("0.30")


def test_a_study_not_configured():
    plan = plan_of(without_study)
    message = (
        "config.yaml: the ground-truth study is not planned (groundtruth is null): its files "
        "under results/studies/groundtruth/ are no target"
    )
    for check in (plan.groundtruth_model_file, lambda: plan.groundtruth_mean("0.30")):
        with pytest.raises(InputError, match=re.escape(message)):
            check()
    assert plan_of().groundtruth_model_file() == (
        "results/models/minilm-l6+mlm-head/biasbench_model.json"
    )


def dry_run(tmp_path, edit, target):
    config = default_config()
    if edit:
        edit(config)
    work = workdir_for(tmp_path, "work", config)
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "-s", str(ROOT / "Snakefile")]
        + ["-d", str(work), target],
        capture_output=True,
        text=True,
        timeout=300,
    )


#: one target per way into the planner (a dry run each: seconds)
ROUTES = [UNPLANNED[i] for i in (0, 1, 2, 3, 5, 7, 8, 9, 10, 11, 13, 14, 15)]


@pytest.mark.parametrize("edit, target, message", ROUTES, ids=[t for _e, t, _m in ROUTES])
def test_the_workflow_refuses_the_target_before_any_job(tmp_path, edit, target, message):
    run = dry_run(tmp_path, edit, target)
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert message in output, output[-3000:]
    assert "Job stats" not in output  # no job was planned, none ran


def test_a_target_of_a_study_not_configured(tmp_path):
    run = dry_run(tmp_path, without_study, "results/studies/groundtruth/frozen_states.safetensors")
    assert "the ground-truth study is not planned (groundtruth is null)" in run.stdout + run.stderr


def test_the_trained_weight_null_plans_one_job_per_model_on_its_own_vectors():
    from biasbench.reports.tables import report_settings

    config = validate_config(default_config())
    plan = make_plan(config, ROOT)
    section = config["null_calibration"]["trained"]
    assert plan.trained_files() == [
        f"results/scores/null/trained/{m}.tsv" for m in section["models"]
    ]
    bases = report_settings(config, plan)["trained_bases"]
    assert len(bases) == section["draws"] * len(section["models"])
    assert bases["glove-6b-50d-reassigned-r0"] == "glove-6b-50d"
    assert plan.trained_source("glove-6b-50d", "trained") == "words"
    tests = plan.trained_tests("minilm-l6", "trained")
    assert tests["C1"]["names"] == ["results/contexts/templates/C1/names.tsv", WORDSET_C1]
    mine = [j for j in plan.jobs if (j.model, j.source) == ("minilm-l6", "templates")]
    planned = {(j.test, j.descriptor) for j in mine}
    assert {(t, d) for t, ds in tests.items() for d in ds} == planned
    with pytest.raises(InputError, match="the trained-weight null has no model 'gemma3-270m-null'"):
        plan.trained_source("gemma3-270m-null", "trained")


@pytest.mark.parametrize(
    "models, message",
    [
        (["nosuch"], "null_calibration.trained.models names 'nosuch': not a configured"),
        (["minilm-l6-null"], "names 'minilm-l6-null': not a configured static or transformer"),
    ],
)
def test_a_bad_trained_weight_null(models, message):
    def edit(config):
        config["null_calibration"]["trained"] = {"models": models, "draws": 2}

    with pytest.raises(InputError, match=re.escape(message)):
        plan_of(edit)


def test_a_trained_null_model_without_tests_on_its_source_is_an_error():
    def edit(config):
        config["models"]["minilm-l6"]["tests"] = {"natural": ["C1"]}

    with pytest.raises(InputError, match=re.escape("'minilm-l6': it runs no test on templates")):
        plan_of(edit)


def test_a_plan_is_built_by_field_name_only():
    """Positional construction is refused: two fields of one type swapped in a call of 20
    arguments would plan other files without a word."""
    from biasbench.plan import Plan

    plan = plan_of()
    with pytest.raises(TypeError):
        Plan(plan.root, plan.jobs, plan.specs, plan.corpus_parts)  # positional: refused
    assert Plan(root=plan.root, jobs=(), specs={}, corpus_parts={}).jobs == ()


def planned_stages(output: str) -> dict[str, int]:
    """Jobs per stage of a dry run's job stats (a per-model rule counted with its stage)."""
    from biasbench.plan import rule_stage

    _, _, table = output.partition("Job stats:\n")
    counts: dict[str, int] = {}
    for line in table.splitlines()[2:]:
        rule, count = line.split()
        if rule == "total":
            return counts
        counts[rule_stage(rule)] = counts.get(rule_stage(rule), 0) + int(count)
    raise AssertionError(f"no job stats: {output[-2000:]}")


def test_one_test_s_scores_as_a_target_plan_only_their_model_s_jobs(tmp_path):
    """The per-model jobs keep a single target small: one test's scores of GloVe plan GloVe's
    preparation, its one embedding job and its one score job of the source, and what they
    read; no other model's job, no LPBS, data set, study or table."""
    run = dry_run(tmp_path, None, "results/scores/glove-6b-50d/words/C6.tsv")
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    stages = planned_stages(output)
    assert stages.keys() == {
        "fetch_external",
        "wordset",
        "word_contexts",
        "prepare_model",
        "embed",
        "score",
    }
    assert (stages["prepare_model"], stages["embed"], stages["score"]) == (1, 1, 1)
    assert "rule score__glove-6b-50d__words:" in output


def test_one_table_as_a_target_plans_only_the_jobs_of_what_it_reads(tmp_path):
    """The template study's KL table: the log-probability job of each of its three models
    (the KL beside the model's data sets, one load), their preparation and what those read;
    no embedding, score, LPBS, null-model or other model's job, no other table."""
    run = dry_run(tmp_path, None, "results/tables/delobelle2022_table2.md")
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    stages = planned_stages(output)
    assert (stages["logprobs"], stages["table"]) == (3, 1)
    for model in ("gemma3-270m", "smollm2-135m", "minilm-l6+mlm-head"):
        assert f"rule logprobs__{model}:" in output
    unneeded = {"embed", "score", "null_calibration"}
    assert not unneeded & stages.keys() and "collect_scores" not in stages
