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
        wanted = cfg.get("tests", tests)
        unknown = sorted(set(wanted) - set(tests))
        if unknown:
            raise InputError(f"config: models.{name}.tests names tests not in 'tests': {unknown}")
        source = SOURCE_OF_KIND[specs[name].kind]
        for test in wanted:
            for descriptor in descriptors(root / "resources" / "wordsets" / f"{test}.yaml"):
                jobs.append(Job(name, source, test, descriptor))
    return Plan(root, tuple(jobs), specs)
