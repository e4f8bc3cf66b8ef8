"""Per-test results of a per-model job, through a content-addressed cache.

A job that loads a model once computes every test it owes and still writes one file per test
(what the tables and a single target read). What a test's files are computed from (the
sha256 of each of its input files, the job's settings that reach it, the code) is its
*record*; the sha256 of the record names its entry, ``<cache>/<sha>/``: the test's files and
``seal.json`` (each file's sha256 and the record). A test whose entry is whole is copied, not
computed: editing one word set recomputes one test. An entry is renamed into place only when
every file is written and sealed, so a job killed halfway keeps the tests it finished and
leaves nothing half made; a damaged entry (a file that does not match its seal) is computed
again, never used.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biasbench import __version__
from biasbench.errors import InputError
from biasbench.io import atomic_path, log_cpu, sha256_of

#: the packages whose versions change the numbers a test computes
PACKAGES = ("torch", "transformers", "tokenizers", "numpy", "scipy", "pandas", "h5py")
SEAL = "seal.json"


@dataclass(frozen=True)
class OneTest:
    """One test of a per-model job: its name, the input files it reads, the settings that
    reach it, and its declared outputs by role (each role is a file of its entry)."""

    test: str
    inputs: Sequence[str]
    outputs: Mapping[str, str]
    settings: Mapping[str, Any] = field(default_factory=dict)


def code_version(*scripts: str | os.PathLike) -> str:
    """sha256 over the library's source (every module of the package), the job's scripts and
    the versions of :data:`PACKAGES`: an edit to any of them computes every test again."""
    digest = hashlib.sha256(f"biasbench {__version__}\n".encode())
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(f"{path.relative_to(package)} {sha256_of(path)}\n".encode())
    for script in scripts:
        digest.update(f"script {sha256_of(script)}\n".encode())
    digest.update(package_versions(PACKAGES).encode())
    return digest.hexdigest()


def package_versions(names: Sequence[str]) -> str:
    """One line per package, ``<name> <version>`` ("-" where it is not installed), none of
    them imported: what a cache's code digest holds of the packages that compute."""
    lines = []
    for name in names:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "-"
        lines.append(f"{name} {version}\n")
    return "".join(lines)


def record_of(work: OneTest, stage: str, code: str) -> dict[str, Any]:
    """What a test's files are computed from: the stage, the test, its inputs' bytes, its
    settings and the code."""
    return {
        "stage": stage,
        "test": work.test,
        "inputs": [[str(path), sha256_of(path)] for path in work.inputs],
        "settings": json.loads(json.dumps(work.settings, sort_keys=True, default=str)),
        "roles": sorted(work.outputs),
        "code": code,
    }


def signature(record: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def entry_files(entry: Path, outputs: Mapping[str, str]) -> dict[str, Path]:
    """Role -> the entry's file of it (the role, with the output's suffix)."""
    return {role: entry / f"{role}{Path(out).suffix}" for role, out in outputs.items()}


def whole_entry(entry: Path, outputs: Mapping[str, str], log: Callable[[str], None]) -> bool:
    """Whether an entry is there with every file its seal names, byte for byte."""
    seal = entry / SEAL
    if not seal.is_file():
        return False
    try:
        sealed = json.loads(seal.read_text())["sha256"]
        found = {role: sha256_of(p) for role, p in entry_files(entry, outputs).items()}
    except (OSError, ValueError, KeyError) as exc:
        log(f"cache entry {entry} is unusable ({exc}): computing it again")
        return False
    if found != sealed:
        log(f"cache entry {entry} does not match its seal: damaged; computing it again")
        return False
    return True


def copy_out(entry: Path, outputs: Mapping[str, str]) -> None:
    """Copy an entry's files to the declared outputs, atomically, each checked against the
    seal (else an InputError naming the entry)."""
    sealed = json.loads((entry / SEAL).read_text())["sha256"]
    for role, source in entry_files(entry, outputs).items():
        with atomic_path(outputs[role]) as tmp:
            shutil.copyfile(source, tmp)
            if sha256_of(tmp) != sealed[role]:
                raise InputError(
                    f"{source}: the copy is not the sealed file: the cache entry changed while "
                    "it was copied; delete it and rerun"
                )


def run_tests(
    cache: str | os.PathLike,
    works: Sequence[OneTest],
    compute: Callable[[OneTest, dict[str, Path]], None],
    *,
    stage: str,
    code: str,
    log: Callable[[str], None] = print,
) -> dict[str, str]:
    """Every test's outputs written; test -> "cached" or "computed". ``compute(work, files)``
    writes each role's file at ``files[role]``; it is called only for the tests whose entry
    is missing or damaged, in order (a model it loads, it loads on its first call)."""
    done = {}
    for work in works:
        sha = signature(record_of(work, stage, code))
        entry = Path(cache) / sha
        if whole_entry(entry, work.outputs, log):
            done[work.test] = "cached"
        else:
            _compute_entry(entry, sha, work, compute, stage, code)
            done[work.test] = "computed"
        copy_out(entry, work.outputs)
        log(f"{work.test}: {done[work.test]} ({entry})")
    return done


def _compute_entry(entry: Path, sha: str, work: OneTest, compute, stage: str, code: str) -> None:
    """Compute a test into a folder of its own, seal it, then rename it to its entry."""
    building = entry.with_name(f".{sha}.{os.getpid()}.building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    files = entry_files(building, work.outputs)
    compute(work, files)
    seal = {
        "signature": sha,
        "sha256": {role: sha256_of(path) for role, path in files.items()},
        "computed_from": record_of(work, stage, code),
    }
    (building / SEAL).write_text(json.dumps(seal, indent=1, sort_keys=True) + "\n")
    shutil.rmtree(entry, ignore_errors=True)  # a damaged entry
    os.replace(building, entry)


#: the prefix of a per-model job's CPU line after a test it computed
TEST_CPU = "computed "

#: a per-model job's params that do not reach a test's numbers: what the tests are and where
#: they go, the user's files' digests (each test's own inputs are hashed in its record) and the
#: device (as for the embeddings cache: the batching and the device do not enter)
NOT_SETTINGS = ("tests", "cache", "inputs_sha256", "device")


def job_settings(job) -> dict[str, Any]:
    """The settings of a per-model workflow job that reach each of its tests."""
    return {k: v for k, v in job.params.items() if k not in NOT_SETTINGS}


def run_job_tests(
    job, works: Sequence[OneTest], compute, script: str, cache: str | None = None
) -> dict[str, str]:
    """:func:`run_tests` for a workflow job: its cache (``params.cache``, or ``cache``), its
    script's code (``script`` in the workflow's scripts folder), its progress on the job's
    log, with the CPU seconds spent so far after each test it computes (what
    ``scripts/job_cpu.py --tests`` reads)."""
    import sys

    def compute_logged(work: OneTest, files: dict[str, Path]) -> None:
        compute(work, files)
        log_cpu(f"{TEST_CPU}{work.test}")

    return run_tests(
        job.params.cache if cache is None else cache,
        works,
        compute_logged,
        stage=Path(script).stem,
        code=code_version(Path(job.scriptdir) / script),
        log=lambda line: print(line, file=sys.stderr),
    )


def job_works(
    job,
    per_test: Sequence[str] = (),
    roles: Sequence[str] | None = None,
    *,
    tests: str = "tests",
    settings: Mapping[str, Any] | None = None,
) -> list[OneTest]:
    """A per-model workflow job's tests: ``params[tests]`` (test -> role -> the files it
    reads, in its rows' signature order), each with the files of every named output at its
    place (each output lists one file per test, in the order of ``params[tests]``) and the
    settings that reach it (``settings``; None: :func:`job_settings`), where a param named in
    ``per_test`` (test -> value) gives each test its own value alone. ``roles``: the outputs
    that are the tests' (None: all)."""
    named_tests = job.params[tests]
    named = dict(job.output.items())
    outputs = {role: list(named[role]) for role in (named if roles is None else roles)}
    for role, files in outputs.items():
        if len(files) != len(named_tests):
            raise InputError(
                f"rule {job.rule}: output {role} has {len(files)} files for {list(named_tests)}"
            )
    shared = job_settings(job) if settings is None else dict(settings)
    shared = {k: v for k, v in shared.items() if k not in per_test}
    return [
        OneTest(
            test,
            inputs=[f for files in named_tests[test].values() for f in files],
            outputs={role: files[i] for role, files in outputs.items()},
            settings={**shared, **{name: job.params[name][test] for name in per_test}},
        )
        for i, test in enumerate(named_tests)
    ]


def run_job_study(
    job,
    stage: str,
    output: str,
    compute,
    inputs: Sequence[str],
    settings: Mapping[str, Any],
    script: str,
) -> str | None:
    """A study's file of the job's model, computed beside the job's tests (``compute``, on the
    model the job loaded) through the cache of per-test results under
    ``params.caches[stage]``: the job's output ``output`` (empty: the study does not read
    this model), its record the files ``inputs``, the model and ``settings``. Returns
    "cached" or "computed", None where the output is empty."""
    files = list(dict(job.output.items())[output])
    if not files:
        return None
    work = OneTest(
        stage, inputs=[*inputs, job.input.model], outputs={output: files[0]}, settings=settings
    )
    return run_job_tests(job, [work], compute, script, cache=job.params.caches[stage])[stage]
