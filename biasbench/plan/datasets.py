"""The data sets' plan (CrowS-Pairs, StereoSet, BEC-Pro, WinoBias, DisCo, ...): which model
runs which data set and the files of each role (rules/logprobs.smk)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasbench import paths
from biasbench.errors import InputError
from biasbench.models.specs import ModelSpec, check_known_model
from biasbench.plan.core import ZooPlan
from biasbench.plan.inputs import resolve_files


@dataclass(frozen=True, kw_only=True)
class DatasetPlan(ZooPlan):
    """The data sets' jobs and files (a part of :class:`biasbench.plan.Plan`)."""

    dataset_jobs: tuple[tuple[str, str], ...] = ()  # (model, data set id)
    dataset_files: dict[str, dict[str, list[str]]] | None = None  # data set -> role -> files

    def dataset_score_files(self) -> list[str]:
        return [paths.DATASET.format(model=m, dataset=d) for m, d in self.dataset_jobs]

    def dataset_coverage_files(self) -> list[str]:
        """What each data-set job read and scored, in :meth:`dataset_score_files`' order."""
        return [paths.DATASET_COVERAGE.format(model=m, dataset=d) for m, d in self.dataset_jobs]

    def datasets_of(self, model: str) -> list[str]:
        """The data sets a model runs."""
        return [d for m, d in self.dataset_jobs if m == model]

    @property
    def dataset_models(self) -> dict[str, list[str]]:
        """Each model that runs data sets, with its data sets: one job per model."""
        models: dict[str, list[str]] = {}
        for model, dataset in self.dataset_jobs:
            models.setdefault(model, []).append(dataset)
        return models

    def dataset_test_inputs(self, model: str, dataset: str) -> dict[str, list[str]]:
        """What a model's job of a data set reads, by role (the data set's, then the model),
        in the order its rows' signature hashes them."""
        return {**self.dataset_roles(model, dataset), "model": [paths.MODEL.format(model=model)]}

    def dataset_limit(self, dataset: str) -> int | None:
        """How many items of ``dataset`` a job reads (None: every item)."""
        return self.config["datasets"]["limits"].get(dataset)

    def dataset_file_list(self, dataset: str) -> list[str]:
        """Every file of a data set, its roles' in order (what a job of it reads)."""
        return [f for files in self.dataset_files[dataset].values() for f in files]

    def planned_dataset(self, model: str, dataset: str) -> dict[str, list[str]]:
        """:meth:`dataset_roles`, after the data set's files: a data set no model runs is an
        error saying so before one the model does not run."""
        self.dataset_file_list(dataset)
        return self.dataset_roles(model, dataset)

    def dataset_roles(self, model: str, dataset: str) -> dict[str, list[str]]:
        """The files by role of a data set a model runs; a target the configuration does not
        plan (typed by hand) is an error naming the field, before any job."""
        if (model, dataset) not in self.dataset_jobs:
            check_known_model(model, self.specs)
            planned = [d for m, d in self.dataset_jobs if m == model]
            raise InputError(
                f"config.yaml: model {model!r} runs no data set {dataset!r} "
                f"(datasets.models.{model}; planned there: {', '.join(planned) or 'none'})"
            )
        return self.dataset_files[dataset]


def dataset_jobs(
    config: dict[str, Any], specs: dict[str, ModelSpec], root: Path, extra: list[str] = ()
):
    """((model, data set) jobs, data set -> role -> files), checked against the registry;
    ``extra``: data sets whose files are needed besides those of the jobs (the null-model
    calibration's)."""
    from biasbench.data.datasets import DATASETS
    from biasbench.data.external import load_manifest

    section = config["datasets"]
    if not section:
        return (), DatasetFiles()
    jobs = []
    for model, wanted in section["models"].items():
        if model not in specs or specs[model].kind != "transformer":
            raise InputError(f"config: datasets.models names {model!r}, not a transformer")
        jobs += [(model, d) for d in (DATASETS if wanted == "all" else wanted)]
    manifest = load_manifest(root / "resources" / "external.yaml")
    files = DatasetFiles()
    for dataset in dict.fromkeys([*(d for _m, d in jobs), *extra]):
        given = section["files"].get(dataset, {})
        missing = [r for r in DATASETS[dataset].roles if r not in given]
        if missing:
            raise InputError(f"config: datasets.files.{dataset} needs the roles {missing}")
        files[dataset] = {
            role: resolve_files([given[role]], f"datasets.files.{dataset}.{role}", manifest)
            for role in DATASETS[dataset].roles
        }
    return tuple(jobs), files


class DatasetFiles(dict):
    """Data set -> role -> files, of the data sets some model runs; another data set (a target
    typed by hand) is an error naming the field, not a KeyError."""

    def __missing__(self, dataset: str):
        raise InputError(
            f"config.yaml: no model runs the data set {dataset!r} (datasets.models; planned: "
            f"{', '.join(self) or 'none'})"
        )
