"""What a configuration asks for: the (model, source, test, descriptor) jobs and their files.

Checked before any job runs, so an unknown test, template set or model source fails at
once with the config field named, instead of deep inside a job.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasbench.errors import InputError
from biasbench.models import ModelSpec
from biasbench.wordsets import descriptors

SOURCE_OF_KIND = {"static": "words", "transformer": "templates"}


@dataclass(frozen=True)
class Job:
    model: str
    source: str
    test: str
    descriptor: str

    @property
    def stem(self) -> str:
        return f"{self.model}/{self.source}/{self.test}/{self.descriptor}"


@dataclass(frozen=True)
class Plan:
    root: Path
    jobs: tuple[Job, ...]
    specs: dict[str, ModelSpec]

    def wordset_file(self, test: str) -> Path:
        return self.root / "resources" / "wordsets" / f"{test}.yaml"

    def score_files(self) -> list[str]:
        return [f"results/scores/{job.stem}.tsv" for job in self.jobs]


def make_plan(config: dict[str, Any], root: str | Path) -> Plan:
    root = Path(root)
    tests = list(config["tests"])
    for test in tests:
        if not (root / "resources" / "wordsets" / f"{test}.yaml").is_file():
            raise InputError(
                f"config: tests lists {test!r} but resources/wordsets/{test}.yaml does not exist"
            )
    template_file = root / "resources" / "templates" / f"{config['template_set']}.yaml"
    if not template_file.is_file():
        raise InputError(
            f"config: template_set {config['template_set']!r}: no file {template_file}"
        )
    specs = {name: ModelSpec.from_config(name, cfg) for name, cfg in config["models"].items()}
    jobs = []
    for name, cfg in config["models"].items():
        source = SOURCE_OF_KIND[specs[name].kind]
        for test, descriptor in _model_jobs(name, cfg.get("tests", tests), tests, root):
            jobs.append(Job(name, source, test, descriptor))
    return Plan(root, tuple(jobs), specs)


def _model_jobs(
    model: str, wanted: list[str], tests: list[str], root: Path
) -> list[tuple[str, str]]:
    """(test, descriptor) pairs of a model: entries are a test (all its descriptors) or
    ``test/descriptor`` (a static model whose vocabulary covers only one of them)."""
    pairs = []
    for entry in wanted:
        test, _, only = entry.partition("/")
        if test not in tests:
            raise InputError(f"config: models.{model}.tests names {entry!r}, not in 'tests'")
        available = descriptors(root / "resources" / "wordsets" / f"{test}.yaml")
        if only and only not in available:
            raise InputError(
                f"config: models.{model}.tests names {entry!r}; {test} has descriptors {available}"
            )
        pairs += [(test, d) for d in available if not only or d == only]
    return pairs
