"""The cache of per-test results of a per-model job (biasbench/test_cache.py): a test is
computed only when what it is computed from changed, a killed job keeps its finished tests,
a damaged entry is computed again, and a copy out of the cache is the computed bytes."""

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.errors import InputError
from biasbench.test_cache import OneTest, job_works, run_tests

TESTS = ("C1", "C3", "C6", "C9")


def make_works(root: Path, shared: dict | None = None) -> list[OneTest]:
    """Four tests, each reading its own word set and the one model file; two outputs each."""
    if not (root / "model.json").exists():
        (root / "model.json").write_text('{"weights": 1}\n')
    works = []
    for test in TESTS:
        words = root / f"{test}.words"
        if not words.exists():
            words.write_text(f"{test}: he she\n")
        works.append(
            OneTest(
                test,
                inputs=[str(words), str(root / "model.json")],
                outputs={
                    "scores": str(root / "out" / f"{test}.tsv"),
                    "samples": str(root / "out" / f"{test}.samples.npz"),
                },
                settings=shared or {"seed": 0},
            )
        )
    return works


class Counting:
    """A compute that records which tests it computed; its output is the words' bytes."""

    def __init__(self):
        self.computed = []

    def __call__(self, work, files):
        self.computed.append(work.test)
        words = Path(work.inputs[0]).read_text()
        files["scores"].write_text(f"score of {words}")
        files["samples"].write_bytes(words.encode() * 3)


def run(root: Path, works=None, code="v1") -> tuple[list[str], dict[str, str]]:
    compute = Counting()
    done = run_tests(
        root / "cache",
        works or make_works(root),
        compute,
        stage="score",
        code=code,
        log=lambda line: None,
    )
    return compute.computed, done


def outputs(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "out").iterdir())}


def test_a_second_run_computes_nothing_and_writes_the_same_bytes(tmp_path):
    computed, done = run(tmp_path)
    assert computed == list(TESTS) and set(done.values()) == {"computed"}
    first = outputs(tmp_path)
    assert first["C6.tsv"] == b"score of C6: he she\n"
    for path in (tmp_path / "out").iterdir():
        path.unlink()
    computed, done = run(tmp_path)
    assert computed == [] and set(done.values()) == {"cached"}
    assert outputs(tmp_path) == first


def test_one_word_set_edited_recomputes_its_test_alone(tmp_path):
    run(tmp_path)
    (tmp_path / "C3.words").write_text("C3: him her\n")
    computed, done = run(tmp_path)
    assert computed == ["C3"]
    assert done == {"C1": "cached", "C3": "computed", "C6": "cached", "C9": "cached"}
    assert outputs(tmp_path)["C3.tsv"] == b"score of C3: him her\n"
    # the edit undone: the earlier entry is still there, nothing computed
    (tmp_path / "C3.words").write_text("C3: he she\n")
    assert run(tmp_path)[0] == []
    assert outputs(tmp_path)["C3.tsv"] == b"score of C3: he she\n"


def test_the_model_settings_or_code_changed_recompute_every_test(tmp_path):
    run(tmp_path)
    (tmp_path / "model.json").write_text('{"weights": 2}\n')
    assert run(tmp_path)[0] == list(TESTS)
    assert run(tmp_path, make_works(tmp_path, {"seed": 1}))[0] == list(TESTS)
    assert run(tmp_path, make_works(tmp_path, {"seed": 1}), code="v2")[0] == list(TESTS)
    assert run(tmp_path, make_works(tmp_path, {"seed": 1}), code="v2")[0] == []


def test_a_damaged_entry_is_computed_again_never_copied(tmp_path):
    run(tmp_path)
    entries = [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]
    assert len(entries) == 4
    seal = {e: json.loads((e / "seal.json").read_text()) for e in entries}
    c9 = next(e for e in entries if seal[e]["computed_from"]["test"] == "C9")
    (c9 / "scores.tsv").write_text("score of something else\n")
    computed, _ = run(tmp_path)
    assert computed == ["C9"]
    assert outputs(tmp_path)["C9.tsv"] == b"score of C9: he she\n"


def test_a_job_failing_halfway_keeps_the_tests_it_finished(tmp_path):
    works = make_works(tmp_path)

    def fails_on_c6(work, files):
        if work.test == "C6":
            files["scores"].write_text("half")  # a partial file, then the failure
            raise RuntimeError("killed")
        Counting()(work, files)

    with pytest.raises(RuntimeError, match="killed"):
        run_tests(tmp_path / "cache", works, fails_on_c6, stage="score", code="v1", log=print)
    computed, done = run(tmp_path)
    assert computed == ["C6", "C9"]
    assert outputs(tmp_path)["C6.tsv"] == b"score of C6: he she\n"


KILLED_JOB = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from test_test_cache import Counting, make_works
    from biasbench.test_cache import run_tests

    root = Path({root!r})
    counting = Counting()

    def compute(work, files):
        if work.test == "C6":
            files["scores"].write_text("half")
            os.kill(os.getpid(), signal.SIGKILL)
        counting(work, files)

    run_tests(root / "cache", make_works(root), compute, stage="score", code="v1")
    """
)


def test_a_killed_job_resumes_without_redoing_its_finished_tests(tmp_path):
    """SIGKILL halfway through the third test: the rerun computes the third and fourth
    only; the killed test's half-written folder is never taken for an entry."""
    script = KILLED_JOB.format(tests=str(Path(__file__).parent), root=str(tmp_path))
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "C1.samples.npz",
        "C1.tsv",
        "C3.samples.npz",
        "C3.tsv",
    ]
    computed, _ = run(tmp_path)
    assert computed == ["C6", "C9"]
    assert outputs(tmp_path)["C6.tsv"] == b"score of C6: he she\n"


@settings(max_examples=25, deadline=None)
@given(edited=st.sets(st.sampled_from(TESTS)), model_changed=st.booleans())
def test_exactly_the_tests_whose_inputs_changed_are_computed(
    tmp_path_factory, edited, model_changed
):
    root = tmp_path_factory.mktemp("cache")
    run(root)
    for test in edited:
        (root / f"{test}.words").write_text(f"{test}: edited\n")
    if model_changed:
        (root / "model.json").write_text('{"weights": 3}\n')
    computed, _ = run(root)
    assert computed == [t for t in TESTS if model_changed or t in edited]
    for test in TESTS:
        words = "edited" if test in edited else "he she"
        assert outputs(root)[f"{test}.tsv"] == f"score of {test}: {words}\n".encode()


class Job:
    """What a workflow job hands its script, as far as :func:`job_works` reads it."""

    rule = "logprobs__tiny"

    def __init__(self, params: dict, output: dict):
        self.params, self.output = Params(params), Params(output)


class Params(dict):
    def __getattr__(self, name):
        return self[name]


def test_each_part_of_a_job_records_its_own_tests_outputs_and_settings():
    """A job of two parts (data sets, LPBS on templates): each part's tests come from its own
    param and outputs, and record the settings it is given alone, so a setting of one part
    (LPBS's batch) is not in the other's records and changes none of its entries."""
    job = Job(
        {
            "tests": {"crows_pairs": {"items": ["cp.csv"]}, "becpro": {"items": ["b.tsv"]}},
            "lpbs_tests": {"templates/C6": {"wordsets": ["C6.json"], "spec": ["C6.lpbs"]}},
            "limits": {"crows_pairs": 300, "becpro": None},
            "lpbs_batch": 16,
        },
        {
            "scores": ["cp.tsv", "b.tsv"],
            "lpbs_scores": ["lpbs/C6.tsv"],
        },
    )
    data_sets = job_works(job, ["limits"], ["scores"], settings={"seed": 1})
    assert [(w.test, w.outputs, dict(w.settings)) for w in data_sets] == [
        ("crows_pairs", {"scores": "cp.tsv"}, {"seed": 1, "limits": 300}),
        ("becpro", {"scores": "b.tsv"}, {"seed": 1, "limits": None}),
    ]
    (lpbs,) = job_works(
        job, roles=["lpbs_scores"], tests="lpbs_tests", settings={"seed": 1, "lpbs_batch": 16}
    )
    assert lpbs == OneTest(
        "templates/C6",
        inputs=["C6.json", "C6.lpbs"],
        outputs={"lpbs_scores": "lpbs/C6.tsv"},
        settings={"seed": 1, "lpbs_batch": 16},
    )
    # without settings (a job of one part, a score job): every param but what the tests are
    (cp, _b) = job_works(job, ["limits"], ["scores"])
    assert set(cp.settings) == {"lpbs_tests", "limits", "lpbs_batch"}
    with pytest.raises(InputError, match="output lpbs_scores has 1 files"):
        job_works(job, roles=["lpbs_scores"])


def test_a_job_logs_its_cpu_after_each_test_it_computes_and_none_for_a_cached_one(tmp_path, capsys):
    """run_job_tests: one CPU line per computed test, named by the test (what
    scripts/job_cpu.py --tests reads); a second run, every test cached, logs none."""
    from types import SimpleNamespace

    from biasbench.io import logged_cpu
    from biasbench.test_cache import TEST_CPU, run_job_tests

    (tmp_path / "score.py").write_text("# the job's script\n")
    job = SimpleNamespace(params=SimpleNamespace(cache=str(tmp_path / "cache")), scriptdir=tmp_path)
    works = make_works(tmp_path)
    run_job_tests(job, works, Counting(), "score.py")
    first = capsys.readouterr().err
    (tmp_path / "first.log").write_text(first)
    stamps = logged_cpu(tmp_path / "first.log")
    assert list(stamps) == [f"{TEST_CPU}{t}" for t in TESTS]
    assert list(stamps.values()) == sorted(stamps.values())
    run_job_tests(job, works, Counting(), "score.py")
    assert "cpu:" not in capsys.readouterr().err
