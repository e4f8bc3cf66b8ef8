"""What a configuration asks for: the (model, source, test, descriptor) jobs and their files.

Checked before any job runs, so an unknown test, template set, corpus or model source fails at
once with the config field named, instead of deep inside a job. The config must already hold
the schema's defaults (``biasbench.config.validate_config``). One module per stage, as
``rules/`` is split: the null-model control (:mod:`biasbench.plan.null`), LPBS, the data sets,
the studies, an audit's restriction; config fields to files in :mod:`biasbench.plan.inputs`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasbench import paths
from biasbench.data.wordsets import descriptors
from biasbench.errors import InputError
from biasbench.models.specs import BUILTIN_SOURCES, ModelSpec, check_known_model
from biasbench.plan.audit import restrict_to_models
from biasbench.plan.datasets import DatasetPlan, dataset_jobs
from biasbench.plan.inputs import (
    LOCAL_SCHEMES,
    corpus_parts,
    model_jobs,
    model_sources,
    resolve_files,
)
from biasbench.plan.lpbs import LpbsPlan, lpbs_jobs, pceat_models
from biasbench.plan.null import NullPlan, check_model_names, null_calibration, trained_null
from biasbench.plan.studies import (
    StudyPlan,
    divdist_files,
    groundtruth_files,
    injected_files,
    template_study_files,
)

__all__ = [
    "Job",
    "Plan",
    "make_plan",
    "names_except",
    "names_only",
    "package_files",
    "resolve_files",
]


@dataclass(frozen=True)
class Job:
    model: str
    source: str
    test: str
    descriptor: str


@dataclass(frozen=True, kw_only=True)
class Plan(NullPlan, LpbsPlan, DatasetPlan, StudyPlan):
    """Every stage's jobs and files; built by name only (``kw_only``: two fields of one type
    swapped in a positional call would go unnoticed)."""

    root: Path
    jobs: tuple[Job, ...]
    specs: dict[str, ModelSpec]
    corpus_parts: dict[str, list[tuple[dict, list[str]]]]  # corpus -> (reader config, files)
    natural: str | None = None  # the corpus the paper tables show as natural contexts
    lpbs_jobs: tuple[tuple[str, str], ...] = ()  # (model, test) of LPBS
    lpbs_corpora: tuple[str, ...] = ()  # corpora of probability-based CEAT
    lpbs_corpus_models: tuple[str, ...] = ()  # the models that run it
    groundtruth: tuple[str, ...] = ()  # the ground-truth study's model files, one per mu
    groundtruth_model: str | None = None  # the masked LM it fine-tunes
    groundtruth_score_jobs: str = "one"  # its models scored in one job or a job per mean
    dataset_jobs: tuple[tuple[str, str], ...] = ()  # (model, data set id)
    dataset_files: dict[str, dict[str, list[str]]] | None = None  # data set -> role -> files
    template_study: tuple[str, ...] = ()  # its output files (sensitivity and KL per model)
    injected_scores: tuple[str, ...] = ()  # data-set scores of the ground-truth study's models
    divdist: tuple[str, ...] = ()  # the DivDist study's outputs (Bommasani & Liang)
    #: every configured test's descriptors (what the corpus samplers match, whatever the models)
    tests: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    #: the null-model calibration (``null_calibration``), per base model: its seeded copies,
    #: the (test, descriptor) pairs each copy scores, the tests it runs LPBS on (templates)
    #: and the data sets it scores (data set -> item limit)
    null_seeds: dict[str, int] = dataclasses.field(default_factory=dict)
    null_tests: dict[str, tuple[tuple[str, str], ...]] = dataclasses.field(default_factory=dict)
    null_lpbs: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    null_datasets: dict[str, dict[str, int | None]] = dataclasses.field(default_factory=dict)
    null_corpora: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    null_designs: dict[str, int] = dataclasses.field(default_factory=dict)
    #: the trained-weight null (``null_calibration.trained``): model -> its reassigned draws
    trained_draws: dict[str, int] = dataclasses.field(default_factory=dict)
    template_set: str | None = None  # the single-slot templates' set (``template_set``)
    lpbs_templates: str | None = None  # LPBS's double-slot templates' set (``lpbs.templates``)
    #: model -> the files its preparation reads, resolved when planning (:func:`model_sources`)
    model_sources: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    @property
    def template_file(self) -> str:
        """The templates every transformer's template contexts are built from."""
        return f"resources/templates/{self.template_set}.yaml"

    @property
    def lpbs_template_file(self) -> str:
        """LPBS's double-slot templates (no file when ``lpbs`` is null: no LPBS job reads it)."""
        return f"resources/templates/{self.lpbs_templates}.yaml"

    @property
    def elmo_models(self) -> list[str]:
        """ELMo models: their embeddings come from rules/elmo.smk (AllenNLP in its own
        environment)."""
        return [m for m, s in self.specs.items() if s.kind == "elmo"]

    @property
    def head_models(self) -> list[str]:
        """Models whose masked-LM head is trained here: rules/mlm_head.smk prepares them."""
        return [m for m, s in self.specs.items() if s.scheme == "mlm-head"]

    @property
    def random_models(self) -> list[str]:
        """Null models (random weights): rules/models.smk builds them."""
        return [m for m, s in self.specs.items() if s.scheme == "random"]

    def source_files(self, model: str) -> list[str]:
        """The files preparing a model reads: its rule's inputs, resolved when planning, so
        the input function cannot fail (Snakemake drops a job whose input function raises and,
        in a finished directory, keeps the old outputs)."""
        check_known_model(model, self.specs)
        return self.model_sources[model]

    def source_digests(self, model: str) -> dict[str, str]:
        """File -> sha256 of a model's local files (``path:``, ``w2v-path:``): a param of its
        preparation. A file replaced with its modification time kept (``cp -p``, ``rsync -a``)
        passes Snakemake's mtime trigger; a changed param reruns the job. Package files are
        pinned and checked by every job; a hub snapshot is fixed by its revision."""
        from biasbench.io import content_digests

        files = self.source_files(model)
        return content_digests(files) if self.specs[model].scheme in LOCAL_SCHEMES else {}

    def corpus_files(self, corpus: str) -> list[str]:
        return [f for _cfg, files in self.corpus_parts[corpus] for f in files]

    def wordset_files(self) -> list[str]:
        """Every descriptor of every configured test: the corpus sampler matches all at once.
        Not only those some model runs: adding or removing a model then resamples no corpus
        (nor reruns every other model's natural contexts after it)."""
        return [
            paths.WORDSET.format(test=t, descriptor=d) for t, ds in self.tests.items() for d in ds
        ]

    def descriptors_of(self, model: str, source: str, test: str) -> list[str]:
        """Descriptors a model runs for a test on a source (those its embedding file holds); a
        file the configuration does not plan (a target typed by hand) is an error naming why."""
        found = [
            j.descriptor for j in self.jobs if (j.model, j.source, j.test) == (model, source, test)
        ]
        if not found:
            check_known_model(model, self.specs)
            planned = sorted({j.test for j in self.jobs if (j.model, j.source) == (model, source)})
            raise InputError(
                f"config.yaml: model {model!r} has no test {test!r} on source {source!r} "
                f"(models.{model}.tests; planned there: {', '.join(planned) or 'none'})"
            )
        return found

    def tests_of(self, model: str, source: str) -> list[str]:
        """The tests a model runs on a source (one embeddings file each, in config order):
        what one job encodes with the model loaded once. None planned is an error naming the
        field, as for :meth:`descriptors_of`."""
        found = [j.test for j in self.jobs if (j.model, j.source) == (model, source)]
        if not found:
            check_known_model(model, self.specs)
            sources = sorted({j.source for j in self.jobs if j.model == model})
            raise InputError(
                f"config.yaml: model {model!r} runs no test on source {source!r} "
                f"(models.{model}.tests; its sources: {', '.join(sources) or 'none'})"
            )
        return list(dict.fromkeys(found))

    def group_contexts(self, model: str, source: str) -> dict[str, dict[str, str]]:
        """Test -> descriptor -> contexts file, of every test a model runs on a source."""
        return {
            test: {
                d: self.contexts_file(model, source, test, d)
                for d in self.descriptors_of(model, source, test)
            }
            for test in self.tests_of(model, source)
        }

    def contexts_file(self, model: str, source: str, test: str, descriptor: str) -> str:
        """The contexts a model embeds: a corpus' under the model's case policy."""
        if source in BUILTIN_SOURCES:
            return paths.CONTEXTS.format(source=source, test=test, descriptor=descriptor)
        case = self.specs[model].case
        return paths.CORPUS_CONTEXTS.format(
            corpus=source, case=case, test=test, descriptor=descriptor
        )

    def contexts_files(self, model: str, source: str, test: str) -> list[str]:
        """The contexts of every descriptor of a (model, source, test): one embeddings file."""
        return [
            self.contexts_file(model, source, test, d)
            for d in self.descriptors_of(model, source, test)
        ]

    def score_files(self) -> list[str]:
        """One score file per embeddings file (all descriptors of a model, source and test)."""
        keys = dict.fromkeys((job.model, job.source, job.test) for job in self.jobs)
        return [paths.SCORES.format(model=m, source=s, test=t) for m, s, t in keys]

    def model_score_files(self, model: str) -> list[str]:
        """The score rows of one model (its embedding methods, LPBS, data sets; not the
        DivDist study's, one file over all models): what its card reads as its own."""
        return [
            f
            for f in self.score_files() + self.lpbs_files() + self.dataset_score_files()
            if f.split("/")[2] == model
        ]


def make_plan(config: dict[str, Any], root: str | Path) -> Plan:
    """The plan of a validated config (restricted first to ``only_models``, in place)."""
    restrict_to_models(config)
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
    check_model_names(config["models"])
    specs = {name: ModelSpec.from_config(name, cfg) for name, cfg in config["models"].items()}
    for name, spec in specs.items():  # a model built from another names a configured one
        if spec.scheme in ("mlm-head", "random") and spec.location not in specs:
            raise InputError(
                f"config: models.{name}.source {spec.scheme}:{spec.location} names no "
                f"configured model; configured: {sorted(specs)}"
            )
        if spec.scheme in ("mlm-head", "random") and specs[spec.location].kind != "transformer":
            raise InputError(
                f"config: models.{name}.source {spec.scheme}:{spec.location}: "
                f"{spec.location} is a {specs[spec.location].kind} model; {spec.scheme}: "
                "builds from a transformer's architecture and tokenizer"
            )
    corpora = config["corpora"]
    parts = {name: corpus_parts(name, corpora) for name in corpora}
    natural = config["natural_source"]
    if natural is not None and natural not in corpora:
        raise InputError(f"config: natural_source {natural!r} is not under 'corpora'")
    # each word set read once, whichever models and sources run it
    available = {t: descriptors(root / "resources" / "wordsets" / f"{t}.yaml") for t in tests}
    jobs = []
    for name, cfg in config["models"].items():
        default = specs[name].default_source
        wanted = cfg["tests"] if isinstance(cfg["tests"], dict) else {default: cfg["tests"]}
        for source, entries in wanted.items():
            # a contextual model reads words alone too ("[CLS] w [SEP]": Schröder et al.)
            allowed = {default} if default == "words" else {"templates", "words", *corpora}
            if source not in allowed:
                raise InputError(
                    f"config: models.{name}.tests names the source {source!r}; a "
                    f"{specs[name].kind} model reads {sorted(allowed)}"
                )
            for test, descriptor in model_jobs(name, entries, available):
                jobs.append(Job(name, source, test, descriptor))
    lpbs = config["lpbs"] or {}
    lpbs_corpora = tuple(lpbs.get("corpora", ()))
    unknown = sorted(set(lpbs_corpora) - set(corpora))
    if unknown:
        raise InputError(f"config: lpbs.corpora names {unknown}, not under 'corpora'")
    corpus_models = pceat_models(lpbs)
    unknown = sorted(set(corpus_models) - set(lpbs.get("models", ())))
    if unknown:
        raise InputError(f"config: lpbs.corpus_models names {unknown}, not in lpbs.models")
    null = null_calibration(config, specs, available)
    datasets, files = dataset_jobs(
        config, specs, root, extra=[d for ds in null.get("datasets", {}).values() for d in ds]
    )
    return Plan(
        root=root,
        jobs=tuple(jobs),
        specs=specs,
        corpus_parts=parts,
        natural=natural,
        lpbs_jobs=lpbs_jobs(config, specs, root),
        lpbs_corpora=lpbs_corpora,
        lpbs_corpus_models=corpus_models,
        groundtruth=groundtruth_files(config, specs),
        groundtruth_model=(config["groundtruth"] or {}).get("model"),
        groundtruth_score_jobs=(config["groundtruth"] or {}).get("score_jobs", "one"),
        dataset_jobs=datasets,
        dataset_files=files,
        template_study=template_study_files(config, specs),
        injected_scores=injected_files(config),
        divdist=divdist_files(config, specs),
        tests=available,
        null_seeds=null.get("seeds", {}),
        null_tests=null.get("tests", {}),
        null_lpbs=null.get("lpbs_tests", {}),
        null_datasets=null.get("datasets", {}),
        null_corpora=null.get("corpora", {}),
        null_designs=null.get("designs", {}),
        trained_draws=trained_null(config, specs, jobs),
        template_set=config["template_set"],
        lpbs_templates=lpbs.get("templates"),
        model_sources=model_sources(specs),
    )


MODEL_NAME = "[A-Za-z0-9_.+-]"


def names_except(names: list[str]) -> str:
    """A model-name wildcard pattern that matches every name but these (whole names, wherever
    the wildcard stands in a path): rules that build some models from others claim those."""
    excluded = "|".join(map(re.escape, names)) or "^$"
    return f"(?!(?:{excluded})(?!{MODEL_NAME})){MODEL_NAME}+"


def names_only(names: list[str]) -> str:
    """A model-name wildcard pattern that matches these names only (none: no name)."""
    return "|".join(map(re.escape, names)) or "^$"


def package_files(plan: Plan) -> list[str]:
    """Every file inside an installed package that the plan reads (corpora, data sets, model
    sources): what ``resources/package_files.yaml`` pins."""
    from biasbench.models.prepare import source_files

    files = [f for parts in plan.corpus_parts.values() for _cfg, fs in parts for f in fs]
    files += [
        f for roles in (plan.dataset_files or {}).values() for fs in roles.values() for f in fs
    ]
    return files + [f for spec in plan.specs.values() for f in source_files(spec)]
