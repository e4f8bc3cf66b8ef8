"""The studies' plan: the ground-truth study (Schröder et al.'s section 5) and the data sets
its models run, Delobelle et al.'s template study, Bommasani & Liang's DivDist
(rules/groundtruth.smk, rules/divdist.smk; a model's study files come from its jobs in
rules/embeddings.smk and rules/logprobs.smk)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from biasbench import paths
from biasbench.config import section_defaults
from biasbench.errors import InputError
from biasbench.models.specs import ModelSpec
from biasbench.plan.datasets import DatasetPlan
from biasbench.plan.lpbs import LpbsPlan

#: what a study reads of one model, written by the model's encoding job (divdist, sensitivity)
#: or its log-probability job (kl, generated)
STUDY_FILES = {
    "divdist": paths.DIVDIST_VECTORS,
    "sensitivity": paths.fill(paths.TEMPLATE_STUDY, name="sensitivity"),
    "kl": paths.fill(paths.TEMPLATE_STUDY, name="kl"),
    "generated": paths.DIVDIST_GENERATED,
}
DIVDIST_OUTPUTS = ("strengths.tsv", "bias.tsv", "validity.json", "scores.tsv")
#: what rule injected_methods writes per mean of the ground-truth study
INJECTED_METHOD_FILES = (".methods.tsv", ".robustness.tsv")
#: what a ground-truth model job reads of the study: its design and levels beside the planned
#: mean, its training, and the representation its records carry to the report (not the masked
#: LM's name or the data-set limits; on a grid not the means planned either: there adding a
#: mean retrains no other, while in a Latin hypercube it moves every model's strata)
GROUNDTRUTH_KEYS = (
    "design",
    "sigma",
    "alignment",
    "repeats",
    "trainable_layers",
    "epochs",
    "batch",
    "learning_rate",
    "test_share",
    "r2_threshold",
    "representation",
    "retest",
)


@dataclass(frozen=True, kw_only=True)
class StudyPlan(LpbsPlan, DatasetPlan):
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

    @property
    def vector_models(self) -> dict[str, dict[str, list[str]]]:
        """Model -> source -> its tests there (:attr:`embedding_models`), and every model whose
        vectors only a study reads (DivDist's contexts, the template study's sensitivity), with
        no source: one encoding job per model, its model loaded once for all of it."""
        models = {model: dict(sources) for model, sources in self.embedding_models.items()}
        for model in self.study_models("divdist") + self.study_models("sensitivity"):
            models.setdefault(model, {})
        return models

    @property
    def logprob_models(self) -> dict[str, list[str]]:
        """Model -> its data sets (:attr:`dataset_models`), and every model that runs LPBS or
        whose log-probabilities only a study reads (the template study's KL, DivDist's
        generated text), with none: one job per model, its model loaded once for all of it."""
        models = {model: list(datasets) for model, datasets in self.dataset_models.items()}
        lpbs = list(dict.fromkeys(m for m, _t in self.lpbs_jobs))
        for model in lpbs + self.study_models("kl") + self.study_models("generated"):
            models.setdefault(model, [])
        return models

    def logprob_inputs(self, model: str) -> list[str]:
        """Every file the tests of a model's log-probability job read: its data sets, LPBS on
        templates, p-CEAT (their union, in order)."""
        tests = [
            *(self.dataset_test_inputs(model, d) for d in self.logprob_models[model]),
            *self.lpbs_template_tests(model).values(),
            *self.pceat_tests(model).values(),
        ]
        return list(dict.fromkeys(f for roles in tests for files in roles.values() for f in files))

    def study_models(self, study: str) -> list[str]:
        """The models ``study`` reads (a key of :data:`STUDY_FILES`); none where the study is
        not configured."""
        if study == "divdist":
            return [PurePosixPath(f).stem for f in self.divdist_vector_files()]
        if study == "generated":
            return [PurePosixPath(f).stem for f in self.divdist_generated_files()]
        return [PurePosixPath(f).parent.name for f in self.template_study_tables(study)]

    def planned_template_study(self, model: str, name: str) -> None:
        """A template study's file of ``model`` (``name``: sensitivity or kl), or the error
        naming the field: the study not configured, else the model it does not list."""
        self.settings_of("delobelle")
        if model not in self.study_models(name):
            planned = ", ".join(self.study_models(name)) or "none"
            raise InputError(
                f"config.yaml: the template study's {name} has no model {model!r} "
                f"(delobelle.{name}_models; planned: {planned})"
            )

    def study_outputs(self, model: str, study: str) -> list[str]:
        """The file ``study`` reads of ``model`` as the model's job writes it (``{model}`` left
        a wildcard), or none where the study does not read the model."""
        return [STUDY_FILES[study]] if model in self.study_models(study) else []

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
        reliability's input, the data sets' first), their records, and the units of each data
        set they score and it holds (the D-study's reach)."""
        datasets = bool(self.injected_scores)
        return {
            "study_datasets": self.of_each_mean(paths.INJECTED_DATASETS) if datasets else [],
            "study_items": [paths.GROUNDTRUTH_ITEMS] if datasets else [],
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

    def of_mean(self, template: str, mu: str | None) -> list[str]:
        """``template`` of the mean ``mu``, for a job of one mean (groundtruth.score_jobs:
        per_mean), or of every planned mean (``mu`` None), for the one job."""
        return [template.format(mu=mu)] if mu is not None else self.of_each_mean(template)

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

    def groundtruth_settings(self, mu: str) -> dict[str, Any]:
        """What a ground-truth model job of a planned mean reads (another mean fails naming
        the field)."""
        self.groundtruth_mean(mu)
        settings = self.settings_of("groundtruth", *GROUNDTRUTH_KEYS)
        if settings["design"] == "grid":
            return settings
        return settings | self.settings_of("groundtruth", "mu")

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

    def study_datasets(self, mu: str | None = None) -> list[str]:
        """The data sets the ground-truth study's models run; those of the models of one
        planned mean where ``mu`` is given (another mean, or a study whose models run none,
        fails naming the field)."""
        if mu is not None:
            self.injected_mean(mu)
        return self.injected_datasets

    def study_dataset_limits(self) -> dict[str, int | None]:
        """The study's limits of the data sets its models run (not of the others)."""
        limits = self.config["groundtruth"]["dataset_limits"]
        return {d: limits[d] for d in self.injected_datasets if d in limits}

    def study_score_files(self) -> list[str]:
        """Score rows that a study writes (DivDist per source of association)."""
        return [f for f in self.divdist if f.endswith("/scores.tsv")]

    @property
    def _divdist_study(self) -> dict[str, Any]:
        """The DivDist study's section (``bommasani``; empty when null: it plans no job)."""
        return self.config["bommasani"] or {}

    def divdist_corpus_files(self) -> list[str]:
        """The files of every corpus the DivDist study samples its contexts from."""
        return [f for c in self._divdist_study["corpora"] for f in self.corpus_files(c)]

    def divdist_corpus_parts(self) -> list[tuple[dict, list[str]]]:
        """Those corpora as their parts: each one's reader settings and files."""
        return [p for c in self._divdist_study["corpora"] for p in self.corpus_parts[c]]

    def divdist_text_files(self) -> list[str]:
        """The automated-text source's counts, one file per corpus."""
        return [paths.DIVDIST_TEXT.format(corpus=c) for c in self._divdist_study["corpora"]]

    def divdist_vector_files(self) -> list[str]:
        """The contextual models' vectors of the study's contexts (none without the study)."""
        models = self._divdist_study.get("contextual_models", [])
        return [paths.DIVDIST_VECTORS.format(model=m) for m in models]

    def divdist_generated_files(self) -> list[str]:
        """The generated text, where the study generates any."""
        generation = self._divdist_study.get("generation")
        return [paths.DIVDIST_GENERATED.format(model=generation["model"])] if generation else []

    def divdist_static_files(self) -> list[str]:
        """The static models the study reads the vectors of."""
        return [paths.MODEL.format(model=m) for m in self._divdist_study["static_models"]]

    def divdist_static_specs(self) -> dict[str, dict[str, Any]]:
        """Their settings, by name."""
        return {m: self.model_params(m) for m in self._divdist_study["static_models"]}

    def divdist_scores(self, model: str) -> bool:
        """Whether the DivDist study scores ``model`` (in one file over all its models)."""
        study = self.config["bommasani"]
        return bool(study) and model in study["static_models"] + study["contextual_models"]

    def divdist_negative(self) -> str:
        """DivDist's handling of a negative cosine on the ground-truth study's models:
        Bommasani's setting, or the schema's default when that study is not configured."""
        section = self.config["bommasani"] or section_defaults("bommasani")
        return section["negative"]


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
