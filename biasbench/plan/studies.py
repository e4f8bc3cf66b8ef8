"""The studies' plan: the ground-truth study (Schröder et al.'s section 5) and the data sets
its models run, Delobelle et al.'s template study, Bommasani & Liang's DivDist
(rules/groundtruth.smk, rules/template_study.smk, rules/divdist.smk)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from biasbench import paths
from biasbench.errors import InputError
from biasbench.models.specs import ModelSpec
from biasbench.plan.datasets import DatasetPlan

DIVDIST_OUTPUTS = ("strengths.tsv", "bias.tsv", "validity.json", "scores.tsv")
#: what rule injected_methods writes per mean of the ground-truth study
INJECTED_METHOD_FILES = (".methods.tsv", ".robustness.tsv")


@dataclass(frozen=True, kw_only=True)
class StudyPlan(DatasetPlan):
    """The studies' files (a part of :class:`biasbench.plan.Plan`); the ground-truth study's
    models run the data sets of its masked LM."""

    groundtruth: tuple[str, ...] = ()  # the ground-truth study's model files, one per mu
    groundtruth_model: str | None = None  # the masked LM it fine-tunes
    groundtruth_score_jobs: str = "one"  # its models scored in one job or a job per mean
    template_study: tuple[str, ...] = ()  # its output files (sensitivity and KL per model)
    injected_scores: tuple[str, ...] = ()  # data-set scores of the ground-truth study's models
    divdist: tuple[str, ...] = ()  # the DivDist study's outputs (Bommasani & Liang)

    @property
    def injected_datasets(self) -> list[str]:
        """The data sets the ground-truth models run: those of the masked LM they come from."""
        return [d for m, d in self.dataset_jobs if m == self.groundtruth_model]

    @property
    def injected_methods(self) -> list[str]:
        """Every method's scores on the ground-truth study's models and their spread over
        halves of the words and templates, two files per mean."""
        return [f.replace(".json", s) for f in self.groundtruth for s in INJECTED_METHOD_FILES]

    @property
    def injected_outcomes(self) -> list[str]:
        """Each mean's study models' per-item outcomes (the paired-comparison check)."""
        return self.of_each_mean(paths.INJECTED_OUTCOMES) if self.injected_scores else []

    def template_study_tables(self, kind: str) -> list[str]:
        """The template study's tables of one kind (``sensitivity`` or ``kl``), one per model
        (the ``name`` of :data:`paths.TEMPLATE_STUDY`)."""
        return [f for f in self.template_study if PurePosixPath(f).stem == kind]

    def groundtruth_inputs(self) -> dict[str, str]:
        """What the ground-truth study's models are made of, under the names its scripts
        read: the masked LM it fine-tunes, the transcribed occupations and templates,
        debiaswe's definitional pairs and professions. An unconfigured study fails naming the
        field."""
        return {
            "model": self.groundtruth_model_file(),
            "occupations": "resources/lists/schroeder2021_occupations.yaml",
            "train": "resources/templates/schroeder2021_train.yaml",
            "test": "resources/templates/schroeder2021_test.yaml",
            "pairs": paths.EXTERNAL.format(file_id="debiaswe_definitional_pairs"),
            "professions": paths.EXTERNAL.format(file_id="debiaswe_professions"),
        }

    def injected_dataset_files(self) -> list[str]:
        """Every file of the data sets the study's models run."""
        return [f for d in self.injected_datasets for f in self.dataset_file_list(d)]

    def injected_dataset_roles(self) -> dict[str, dict[str, list[str]]]:
        """Those data sets' files by role."""
        return {d: self.dataset_files[d] for d in self.injected_datasets}

    def study_files(self) -> dict[str, list[str]]:
        """The ground-truth study's files by role, each per mean: its models' scores on the
        data sets (where they run any) and on every method, their scores on halves (the
        reliability's input, the data sets' first) and their records."""
        datasets = bool(self.injected_scores)
        return {
            "study_datasets": self.of_each_mean(paths.INJECTED_DATASETS) if datasets else [],
            "study_methods": self.of_each_mean(paths.INJECTED_METHODS),
            "study_halves": [
                *(self.of_each_mean(paths.INJECTED_DATASETS_ROBUSTNESS) if datasets else []),
                *self.of_each_mean(paths.INJECTED_METHODS_ROBUSTNESS),
            ],
            "study_records": list(self.groundtruth),
        }

    @property
    def groundtruth_means(self) -> list[str]:
        """The planned means as the study's file names spell them (``0.30``)."""
        return [f.rpartition("/mu")[2].removesuffix(".json") for f in self.groundtruth]

    def of_each_mean(self, template: str) -> list[str]:
        """``template`` (a per-mean path of :mod:`biasbench.paths`) filled with every planned
        mean: the files one job writes or reads for the whole grid."""
        return [template.format(mu=mu) for mu in self.groundtruth_means]

    def scored_in_one_job(self, template: str, *, datasets: bool = False) -> list[str]:
        """What the one job of rule injected_scores (``datasets``) or injected_methods writes
        of ``template`` for every mean; none where the study is scored in a job per mean
        (``groundtruth.score_jobs``: their rules' per-mean variants write the files) or, for
        the data sets, where the study's models run none."""
        if self.groundtruth_score_jobs != "one" or (datasets and not self.injected_scores):
            return []
        return self.of_each_mean(template)

    def groundtruth_model_file(self) -> str:
        """The masked LM the ground-truth study fine-tunes; none when it is not configured."""
        if self.groundtruth_model is None:
            raise InputError(
                "config.yaml: the ground-truth study is not planned (groundtruth is null): its "
                "files under results/studies/groundtruth/ are no target"
            )
        return paths.MODEL.format(model=self.groundtruth_model)

    def groundtruth_mean(self, mu: str) -> float:
        """A mean of the ground-truth study (the ``mu`` of its file names) the configuration
        plans; another is an error naming the field."""
        self.groundtruth_model_file()
        if paths.GROUNDTRUTH_RECORDS.format(mu=mu) not in self.groundtruth:
            raise InputError(
                f"config.yaml: the ground-truth study has no mean mu{mu} (groundtruth.mu; "
                f"planned: {', '.join(f'mu{m}' for m in self.groundtruth_means)})"
            )
        return float(mu)

    def injected_mean(self, mu: str) -> float:
        """A mean whose study models run the data sets (their masked LM runs some itself)."""
        self.groundtruth_mean(mu)
        if not self.injected_scores:
            model = self.groundtruth_model
            raise InputError(
                f"config.yaml: the ground-truth study's models run no data set: its masked LM "
                f"{model!r} runs none (datasets.models.{model})"
            )
        return float(mu)

    def study_score_files(self) -> list[str]:
        """Score rows that a study writes (DivDist per source of association)."""
        return [f for f in self.divdist if f.endswith("/scores.tsv")]


def groundtruth_file(mu: float) -> str:
    return paths.GROUNDTRUTH_RECORDS.format(mu=f"{mu:.2f}")


def groundtruth_files(config: dict[str, Any], specs: dict[str, ModelSpec]) -> tuple[str, ...]:
    study = config["groundtruth"]
    if not study:
        return ()
    model = study["model"]
    if model not in specs or specs[model].kind != "transformer":
        raise InputError(f"config: groundtruth.model {model!r} is not a transformer under 'models'")
    return tuple(groundtruth_file(mu) for mu in dict.fromkeys(study["mu"]))


def injected_files(config: dict[str, Any]) -> tuple[str, ...]:
    """The data-set scores of the ground-truth models and their spread over halves of the
    items, two files per mean: when the study and the data sets run, and the study's masked
    LM runs some data set itself."""
    study, section = config["groundtruth"], config["datasets"]
    if not study or not section or study["model"] not in section["models"]:
        return ()
    return tuple(
        template.format(mu=f"{mu:.2f}")
        for mu in dict.fromkeys(study["mu"])
        for template in (paths.INJECTED_DATASETS, paths.INJECTED_DATASETS_ROBUSTNESS)
    )


def template_study_files(config: dict[str, Any], specs: dict[str, ModelSpec]) -> tuple[str, ...]:
    study = config["delobelle"]
    if not study:
        return ()
    files = []
    for field, name in (("sensitivity_models", "sensitivity"), ("kl_models", "kl")):
        for model in study[field]:
            if model not in specs or specs[model].kind != "transformer":
                raise InputError(f"config: delobelle.{field} names {model!r}, not a transformer")
            files.append(paths.TEMPLATE_STUDY.format(model=model, name=name))
    return tuple(files)


def divdist_files(config: dict[str, Any], specs: dict[str, ModelSpec]) -> tuple[str, ...]:
    study = config["bommasani"]
    if not study:
        return ()
    for corpus in study["corpora"]:
        cfg = config["corpora"].get(corpus)
        if cfg is None or "pool" in cfg:
            raise InputError(f"config: bommasani.corpora names {corpus!r}, not a corpus")
    for field, kinds in (
        ("static_models", ("static",)),
        ("contextual_models", ("transformer",)),
    ):
        for model in study[field]:
            if model not in specs or specs[model].kind not in kinds:
                raise InputError(
                    f"config: bommasani.{field} names {model!r}, not a {kinds[0]} model"
                )
    generation = study["generation"]
    if generation and (
        generation["model"] not in specs or specs[generation["model"]].kind != "transformer"
    ):
        raise InputError(
            f"config: bommasani.generation.model {generation['model']!r} is not a transformer"
        )
    return tuple(paths.DIVDIST_STUDY.format(name=name) for name in DIVDIST_OUTPUTS)
