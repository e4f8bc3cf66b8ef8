"""What a configuration asks for: the (model, source, test, descriptor) jobs and their files.

Checked before any job runs, so an unknown test, template set, corpus or model source fails at
once with the config field named, instead of deep inside a job. The config must already hold
the schema's defaults (``biasbench.config.validate_config``).
"""

from __future__ import annotations

import dataclasses
import glob
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasbench.data.pins import external_pins, inside_package, package_root
from biasbench.data.wordsets import descriptors, read_yaml
from biasbench.errors import InputError
from biasbench.models.load import is_language_model
from biasbench.models.specs import ModelSpec, check_known_model

BUILTIN_SOURCES = ("templates", "words")
#: model sources that are the user's own files, identified by content (Plan.source_digests)
LOCAL_SCHEMES = ("path", "w2v-path")
#: model sources prepared from no file here (a hub download, another configured model, ELMo)
FILELESS_SCHEMES = ("hf", "mlm-head", "random", "elmo")


@dataclass(frozen=True)
class Job:
    model: str
    source: str
    test: str
    descriptor: str


@dataclass(frozen=True)
class Plan:
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

    @property
    def injected_datasets(self) -> list[str]:
        """The data sets the ground-truth models run: those of the masked LM they come from."""
        return [d for m, d in self.dataset_jobs if m == self.groundtruth_model]

    @property
    def injected_methods(self) -> list[str]:
        """Every method's scores on the ground-truth study's models and their spread over
        halves of the words and templates, two files per mean."""
        return [f.replace(".json", s) for f in self.groundtruth for s in INJECTED_METHOD_FILES]

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
        from biasbench.models.weights import content_digests

        files = self.source_files(model)
        return content_digests(files) if self.specs[model].scheme in LOCAL_SCHEMES else {}

    def corpus_files(self, corpus: str) -> list[str]:
        return [f for _cfg, files in self.corpus_parts[corpus] for f in files]

    def wordset_files(self) -> list[str]:
        """Every descriptor of every configured test: the corpus sampler matches all at once.
        Not only those some model runs: adding or removing a model then resamples no corpus
        (nor reruns every other model's natural contexts after it)."""
        return [f"results/wordsets/{t}/{d}.json" for t, ds in self.tests.items() for d in ds]

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
            return f"results/contexts/{source}/{test}/{descriptor}.tsv"
        return f"results/contexts/{source}/{self.specs[model].case}/{test}/{descriptor}.tsv"

    def contexts_files(self, model: str, source: str, test: str) -> list[str]:
        """The contexts of every descriptor of a (model, source, test): one embeddings file."""
        return [
            self.contexts_file(model, source, test, d)
            for d in self.descriptors_of(model, source, test)
        ]

    def pairs_file(self, model: str, corpus: str) -> str:
        """The LPBS contexts of a corpus under the model's case policy."""
        return f"results/corpus/{corpus}/{self.specs[model].case}/pairs.tsv"

    def score_files(self) -> list[str]:
        """One score file per embeddings file (all descriptors of a model, source and test)."""
        keys = dict.fromkeys((job.model, job.source, job.test) for job in self.jobs)
        return [f"results/scores/{m}/{s}/{t}.tsv" for m, s, t in keys]

    def lpbs_files(self) -> list[str]:
        """Score rows of LPBS: templates and, per corpus, probability-based CEAT."""
        return [
            f"results/lpbs/{m}/{s}/{t}.tsv"
            for m, t in self.lpbs_jobs
            for s in ["templates", *(self.lpbs_corpora if m in self.lpbs_corpus_models else [])]
        ]

    def dataset_score_files(self) -> list[str]:
        return [f"results/datasets/{m}/{d}.tsv" for m, d in self.dataset_jobs]

    def model_score_files(self, model: str) -> list[str]:
        """The score rows of one model (its embedding methods, LPBS, data sets; not the
        DivDist study's, one file over all models): what its card reads as its own."""
        return [
            f
            for f in self.score_files() + self.lpbs_files() + self.dataset_score_files()
            if f.split("/")[2] == model
        ]

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

    def groundtruth_model_file(self) -> str:
        """The masked LM the ground-truth study fine-tunes; none when it is not configured."""
        if self.groundtruth_model is None:
            raise InputError(
                "config.yaml: the ground-truth study is not planned (groundtruth is null): its "
                "files under results/studies/groundtruth/ are no target"
            )
        return f"results/models/{self.groundtruth_model}/biasbench_model.json"

    def groundtruth_mean(self, mu: str) -> float:
        """A mean of the ground-truth study (the ``mu`` of its file names) the configuration
        plans; another is an error naming the field."""
        self.groundtruth_model_file()
        if f"results/studies/groundtruth/mu{mu}.json" not in self.groundtruth:
            planned = [f.rpartition("/mu")[2].removesuffix(".json") for f in self.groundtruth]
            raise InputError(
                f"config.yaml: the ground-truth study has no mean mu{mu} (groundtruth.mu; "
                f"planned: {', '.join(f'mu{m}' for m in planned)})"
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

    def null_files(self) -> list[str]:
        """The score rows of the null-model calibration, one file per base model."""
        from biasbench.models.null import null_file

        return [null_file(m) for m in self.null_seeds]

    def null_copies(self) -> list[str]:
        """The model names of every null copy the calibration scores."""
        from biasbench.models.null import copy_names

        return [n for m, seeds in self.null_seeds.items() for n in copy_names(m, seeds)]

    def null_base(self, model: str) -> int:
        """The copies of a base model of the null-model calibration; another model is an
        error naming the field."""
        if model not in self.null_seeds:
            check_known_model(model, self.specs)
            raise InputError(
                f"config.yaml: the null-model calibration has no model {model!r} "
                f"(null_calibration.models; planned: {', '.join(self.null_seeds) or 'none'})"
            )
        return self.null_seeds[model]

    def null_source(self, model: str) -> str:
        """Where a base model's copies read the tests: words alone (static), templates."""
        self.null_base(model)
        return "words" if self.specs[model].kind == "static" else "templates"

    def null_test_files(self, model: str) -> dict[str, dict[str, list[str]]]:
        """Test -> descriptor -> [contexts file, word-set file] of a base model's copies."""
        source = self.null_source(model)
        out: dict[str, dict[str, list[str]]] = {}
        for test, descriptor in self.null_tests[model]:
            out.setdefault(test, {})[descriptor] = [
                self.contexts_file(model, source, test, descriptor),
                f"results/wordsets/{test}/{descriptor}.json",
            ]
        return out

    def null_lpbs_of(self, model: str) -> dict[str, list[str]]:
        """Test -> the LPBS word-set files of a base model's copies (a transformer's)."""
        self.null_base(model)
        return {
            t: [f"results/wordsets/{t}/{d}.json" for d in self.lpbs_descriptors(t)]
            for t in self.null_lpbs[model]
        }

    def null_bases(self) -> dict[str, str]:
        """Each null model (a ``random:`` model, a calibration copy) -> the model whose
        architecture and tokenizer it has (the base)."""
        from biasbench.models.null import copy_names

        bases = {n: s.location for n, s in self.specs.items() if s.scheme == "random"}
        for base, seeds in self.null_seeds.items():
            bases |= dict.fromkeys(copy_names(base, seeds), base)
        return bases

    def tokenization_bases(self) -> list[str]:
        """The transformers whose tokenizer null models encode with: the bases of the
        ``random:`` models and the calibration's transformer models, in config order."""
        bases = set(self.null_bases().values())
        return [m for m in self.specs if m in bases and self.specs[m].kind == "transformer"]

    def tokenization_files(self) -> list[str]:
        """The piece counts of the null models' stimuli, one file per base transformer."""
        from biasbench.models.word_pieces import tokenization_file

        return [tokenization_file(m) for m in self.tokenization_bases()]

    def tokenization_tests(self, model: str) -> dict[str, dict[str, str]]:
        """Test -> descriptor -> template contexts file of every (test, descriptor) a base
        transformer's null models encode (its calibration copies' and its ``random:`` models'
        jobs); another model is an error naming why."""
        if model not in self.tokenization_bases():
            check_known_model(model, self.specs)
            raise InputError(
                f"config.yaml: no null model has the tokenizer of {model!r} (models.*.source "
                f"random:<model>, null_calibration.models; with one: "
                f"{', '.join(self.tokenization_bases()) or 'none'})"
            )
        pairs = list(self.null_tests.get(model, ()))
        randoms = {n for n, s in self.specs.items() if s.scheme == "random" and s.location == model}
        pairs += [(j.test, j.descriptor) for j in self.jobs if j.model in randoms]
        out: dict[str, dict[str, str]] = {}
        for test, descriptor in dict.fromkeys(pairs):
            out.setdefault(test, {})[descriptor] = self.contexts_file(
                model, "templates", test, descriptor
            )
        return out

    def null_datasets_of(self, model: str) -> dict[str, dict]:
        """Data set -> {limit, files by role} of a base model's copies (a transformer's)."""
        self.null_base(model)
        return {
            d: {"limit": limit, "files": self.dataset_files[d]}
            for d, limit in self.null_datasets[model].items()
        }

    def lpbs_wordset_files(self) -> list[str]:
        tests = dict.fromkeys(t for _m, t in self.lpbs_jobs)
        return [f"results/wordsets/{t}/{d}.json" for t in tests for d in self.lpbs_descriptors(t)]

    def lpbs_descriptors(self, test: str) -> list[str]:
        """Target descriptors a test runs LPBS on (those its ``lpbs.templates`` names)."""
        return list(self._lpbs_section(test)["templates"])

    def lpbs_has_adjectives(self, test: str) -> bool:
        """Whether a test's LPBS attributes have adjective forms (the ``+adjective`` rows)."""
        return "adjectives" in self._lpbs_section(test)

    def _lpbs_section(self, test: str) -> dict:
        return read_yaml(self.root / "resources" / "wordsets" / f"{test}.yaml")["lpbs"]


#: the sections that compare models (studies, calibration): run in an audit (``only_models``)
#: only where they name an audited model, with the other models dropped from them
_ZOO_SECTIONS = {
    "null_calibration": ("models",),
    "delobelle": ("sensitivity_models", "kl_models"),
    "bommasani": ("static_models", "contextual_models"),
}


def restrict_to_models(config: dict[str, Any]) -> None:
    """``only_models``: measure these models and no other (an audit), with ``config`` changed
    in place, so that the plan and every rule reading the config see the same models.

    Every other model leaves ``models`` and every model list (``lpbs``, ``datasets``, the
    studies'); a model an audited one is built from (``mlm-head:``, ``random:``) stays,
    running no test. An audited model runs every family that applies to it, with its null
    copies (:func:`_audit_every_family`). A study or calibration that names no audited model
    (the ground-truth study, the template study, DivDist) becomes null: not run. A second call
    changes nothing. Null ``only_models``: every configured model runs."""
    only = config.get("only_models")
    if only is None:
        return
    models = config["models"]
    for name in only:
        if name not in models:
            raise InputError(
                f"config: only_models names {name!r}, not a configured model (models; "
                f"configured: {', '.join(models)})"
            )
    kept = {name: models[name] for name in only}
    todo = list(only)
    while todo:  # the models the audited ones are built from, recursively: prepared, unscored
        scheme, _, base = str(models[todo.pop()]["source"]).partition(":")
        if scheme in ("mlm-head", "random") and base in models and base not in kept:
            kept[base] = {**models[base], "tests": []}
            todo.append(base)
    config["models"] = kept
    _audit_every_family(config, only)
    wanted = set(only)
    lpbs = config.get("lpbs")
    if lpbs:
        lpbs["models"] = [m for m in lpbs["models"] if m in wanted]
        if lpbs.get("corpus_models") is not None:
            lpbs["corpus_models"] = [m for m in lpbs["corpus_models"] if m in wanted]
    if config.get("datasets"):
        config["datasets"]["models"] = {
            m: d for m, d in config["datasets"]["models"].items() if m in wanted
        }
    if config.get("groundtruth") and config["groundtruth"]["model"] not in wanted:
        config["groundtruth"] = None
    for section, fields in _ZOO_SECTIONS.items():
        study = config.get(section)
        if not study:
            continue
        for field in fields:
            chosen = study[field]
            study[field] = (
                {m: v for m, v in chosen.items() if m in wanted}
                if isinstance(chosen, dict)
                else [m for m in chosen if m in wanted]
            )
        if not any(study[field] for field in fields):
            config[section] = None
    bommasani = config.get("bommasani")
    if bommasani and bommasani["generation"] and bommasani["generation"]["model"] not in wanted:
        bommasani["generation"] = None


def _audit_every_family(config: dict[str, Any], only: list[str]) -> None:
    """An audited model runs every method family that applies to it: a language model (known
    before any job: :func:`is_language_model`) joins LPBS and every data set where the
    configuration does not list it, and a model with its own weights gets the null-model
    control of its architecture (``null_calibration.audit``, per kind) where
    ``null_calibration.models`` does not list it."""
    models = config["models"]
    lpbs, datasets, null = (
        config.get("lpbs"),
        config.get("datasets"),
        config.get("null_calibration"),
    )
    for name in only:
        spec = ModelSpec.from_config(name, models[name])
        language_model = spec.kind == "transformer" and is_language_model(spec)
        if language_model and lpbs and name not in lpbs["models"]:
            lpbs["models"] = [*lpbs["models"], name]
        if language_model and datasets and name not in datasets["models"]:
            datasets["models"] = {**datasets["models"], name: "all"}
        copies = (null or {}).get("audit") or {}
        own_weights = spec.scheme not in ("mlm-head", "random")
        if own_weights and spec.kind in copies and name not in null["models"]:
            entry = copies[spec.kind]
            entry = dict(entry) if isinstance(entry, dict) else {"seeds": entry}
            # the copies read the tests the model runs (of the entry's, where it names some)
            runs = _tests_run(models[name]["tests"], config["tests"])
            named = entry.get("tests", "all")
            entry["tests"] = [
                t for t in (runs if named == "all" else named) if t.partition("/")[0] in runs
            ]
            if not language_model:  # its copies' probabilities would stand beside no score
                entry |= {"lpbs_tests": [], "datasets": {}}
            if entry["tests"] or entry.get("lpbs_tests", null["lpbs_tests"]):
                null["models"] = {**null["models"], name: entry}


def _tests_run(tests: Any, configured: list[str]) -> list[str]:
    """The tests a model entry's ``tests`` runs on any context source, in configured order."""
    lists = tests.values() if isinstance(tests, dict) else [tests]
    named = set()
    for chosen in lists:
        named |= set(configured) if chosen == "all" else {t.partition("/")[0] for t in chosen}
    return [t for t in configured if t in named]


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
    corpus_parts = {name: _corpus_parts(name, corpora) for name in corpora}
    natural = config["natural_source"]
    if natural is not None and natural not in corpora:
        raise InputError(f"config: natural_source {natural!r} is not under 'corpora'")
    # each word set read once, whichever models and sources run it
    available = {t: descriptors(root / "resources" / "wordsets" / f"{t}.yaml") for t in tests}
    jobs = []
    for name, cfg in config["models"].items():
        default = "words" if specs[name].kind == "static" else "templates"
        wanted = cfg["tests"] if isinstance(cfg["tests"], dict) else {default: cfg["tests"]}
        for source, entries in wanted.items():
            # a contextual model reads words alone too ("[CLS] w [SEP]": Schröder et al.)
            allowed = {default} if default == "words" else {"templates", "words", *corpora}
            if source not in allowed:
                raise InputError(
                    f"config: models.{name}.tests names the source {source!r}; a "
                    f"{specs[name].kind} model reads {sorted(allowed)}"
                )
            for test, descriptor in _model_jobs(name, entries, available):
                jobs.append(Job(name, source, test, descriptor))
    lpbs = config["lpbs"] or {}
    lpbs_corpora = tuple(lpbs.get("corpora", ()))
    unknown = sorted(set(lpbs_corpora) - set(corpora))
    if unknown:
        raise InputError(f"config: lpbs.corpora names {unknown}, not under 'corpora'")
    corpus_models = lpbs.get("corpus_models")
    corpus_models = tuple(lpbs.get("models", ()) if corpus_models is None else corpus_models)
    unknown = sorted(set(corpus_models) - set(lpbs.get("models", ())))
    if unknown:
        raise InputError(f"config: lpbs.corpus_models names {unknown}, not in lpbs.models")
    null = _null_calibration(config, specs, available)
    return Plan(
        root,
        tuple(jobs),
        specs,
        corpus_parts,
        natural,
        _lpbs_jobs(config, specs, root),
        lpbs_corpora,
        corpus_models,
        _groundtruth_files(config, specs),
        (config["groundtruth"] or {}).get("model"),
        *_dataset_jobs(
            config, specs, root, extra=[d for ds in null.get("datasets", {}).values() for d in ds]
        ),
        _template_study_files(config, specs),
        _injected_files(config),
        _divdist_files(config, specs),
        available,
        null.get("seeds", {}),
        null.get("tests", {}),
        null.get("lpbs_tests", {}),
        null.get("datasets", {}),
        template_set=config["template_set"],
        lpbs_templates=lpbs.get("templates"),
        model_sources=model_sources(specs),
    )


def model_sources(specs: dict[str, ModelSpec]) -> dict[str, list[str]]:
    """Model -> the files preparing it reads, each existing: a source that cannot be prepared
    (a package not installed, a file gone) stops planning naming the field, in a finished
    directory as in a fresh one (where the rule's input function failed instead, Snakemake
    dropped the preparation and the run finished on the old prepared model)."""
    from biasbench.models.prepare import source_files

    out = {}
    for name, spec in specs.items():
        field = f"config: models.{name}.source {spec.scheme}:{spec.location}"
        try:
            files = source_files(spec)
        except (InputError, ImportError) as exc:  # ImportError: a gguf-asm module
            raise InputError(f"{field}: {exc}") from exc
        missing = [f for f in files if not Path(f).is_file()]
        if missing:
            raise InputError(f"{field}: no file {missing[0]}")
        if not files and spec.scheme not in FILELESS_SCHEMES:
            raise InputError(f"{field}: no model files there")
        out[name] = files
    return out


def _null_calibration(
    config: dict[str, Any], specs: dict[str, ModelSpec], available: dict[str, list[str]]
) -> dict[str, dict[str, Any]]:
    """The null-model calibration per base model: its seeds, (test, descriptor) pairs, LPBS
    tests and data sets with their limits (a model's own entries, else the section's),
    checked; {} when the section is null."""
    from biasbench.data.datasets import DATASETS

    section = config.get("null_calibration")
    if not section:
        return {}
    lpbs_tests = (config["lpbs"] or {}).get("tests", ())
    out: dict[str, dict[str, Any]] = {k: {} for k in ("seeds", "tests", "lpbs_tests", "datasets")}
    for model, entry in section["models"].items():
        field = f"config: null_calibration.models.{model}"
        spec = specs.get(model)
        if spec is None or spec.kind not in ("static", "transformer") or spec.scheme == "random":
            raise InputError(
                f"{field}: not a configured static or transformer model with its own weights"
            )
        own = entry if isinstance(entry, dict) else {"seeds": entry}
        chosen = {k: own.get(k, section[k]) for k in ("tests", "lpbs_tests", "datasets")}
        where = {k: f"null_calibration{'.models.' + model if k in own else ''}.{k}" for k in chosen}
        out["seeds"][model] = own["seeds"]
        out["tests"][model] = tuple(_model_jobs("", chosen["tests"], available, where["tests"]))
        for test in chosen["lpbs_tests"]:
            if test not in lpbs_tests:
                raise InputError(f"config: {where['lpbs_tests']} names {test!r}, not in lpbs.tests")
        if chosen["datasets"] and not config["datasets"]:
            raise InputError(f"config: {where['datasets']} needs the datasets section (its files)")
        for dataset, limit in chosen["datasets"].items():
            if limit is not None and not DATASETS[dataset].sampled:
                raise InputError(
                    f"config: {where['datasets']}.{dataset}: this data set is not sampled (null)"
                )
        static = spec.kind == "static"  # reads no LPBS templates, runs no data set
        out["lpbs_tests"][model] = () if static else tuple(chosen["lpbs_tests"])
        out["datasets"][model] = {} if static else dict(chosen["datasets"])
    return out


DIVDIST_OUTPUTS = ("strengths.tsv", "bias.tsv", "validity.json", "scores.tsv")


def _divdist_files(config: dict[str, Any], specs: dict[str, ModelSpec]) -> tuple[str, ...]:
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
    return tuple(f"results/studies/divdist/{name}" for name in DIVDIST_OUTPUTS)


def _dataset_jobs(
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


def _template_study_files(config: dict[str, Any], specs: dict[str, ModelSpec]) -> tuple[str, ...]:
    study = config["delobelle"]
    if not study:
        return ()
    files = []
    for field, name in (("sensitivity_models", "sensitivity"), ("kl_models", "kl")):
        for model in study[field]:
            if model not in specs or specs[model].kind != "transformer":
                raise InputError(f"config: delobelle.{field} names {model!r}, not a transformer")
            files.append(f"results/studies/templates/{model}/{name}.tsv")
    return tuple(files)


def _injected_files(config: dict[str, Any]) -> tuple[str, ...]:
    """The data-set scores of the ground-truth models and their spread over halves of the
    items, two files per mean: when the study and the data sets run, and the study's masked
    LM runs some data set itself."""
    study, section = config["groundtruth"], config["datasets"]
    if not study or not section or study["model"] not in section["models"]:
        return ()
    return tuple(
        groundtruth_file(mu).replace(".json", suffix)
        for mu in dict.fromkeys(study["mu"])
        for suffix in (".datasets.tsv", ".datasets.robustness.tsv")
    )


MODEL_NAME = "[A-Za-z0-9_.+-]"
#: what rule injected_methods writes per mean of the ground-truth study
INJECTED_METHOD_FILES = (".methods.tsv", ".robustness.tsv")


def names_except(names: list[str]) -> str:
    """A model-name wildcard pattern that matches every name but these (whole names, wherever
    the wildcard stands in a path): rules that build some models from others claim those."""
    excluded = "|".join(map(re.escape, names)) or "^$"
    return f"(?!(?:{excluded})(?!{MODEL_NAME})){MODEL_NAME}+"


def names_only(names: list[str]) -> str:
    """A model-name wildcard pattern that matches these names only (none: no name)."""
    return "|".join(map(re.escape, names)) or "^$"


def groundtruth_file(mu: float) -> str:
    return f"results/studies/groundtruth/mu{mu:.2f}.json"


def _groundtruth_files(config: dict[str, Any], specs: dict[str, ModelSpec]) -> tuple[str, ...]:
    study = config["groundtruth"]
    if not study:
        return ()
    model = study["model"]
    if model not in specs or specs[model].kind != "transformer":
        raise InputError(f"config: groundtruth.model {model!r} is not a transformer under 'models'")
    return tuple(groundtruth_file(mu) for mu in dict.fromkeys(study["mu"]))


def _lpbs_jobs(
    config: dict[str, Any], specs: dict[str, ModelSpec], root: Path
) -> tuple[tuple[str, str], ...]:
    lpbs = config["lpbs"]
    if not lpbs:
        return ()
    for model in lpbs["models"]:
        if model not in specs or specs[model].kind != "transformer":
            raise InputError(
                f"config: lpbs.models names {model!r}, not a transformer under 'models'"
            )
    for test in lpbs["tests"]:
        path = root / "resources" / "wordsets" / f"{test}.yaml"
        if test not in config["tests"] or "lpbs" not in read_yaml(path):
            raise InputError(
                f"config: lpbs.tests names {test!r}: not in 'tests' or {path} has no 'lpbs' section"
            )
    template_file = root / "resources" / "templates" / f"{lpbs['templates']}.yaml"
    if not template_file.is_file():
        raise InputError(f"config: lpbs.templates {lpbs['templates']!r}: no file {template_file}")
    return tuple((m, t) for m in lpbs["models"] for t in lpbs["tests"])


def _corpus_parts(name: str, corpora: dict[str, dict]) -> list[tuple[dict, list[str]]]:
    """(reader config, files) of a corpus, or of each member of a pool, in order."""
    cfg = corpora[name]
    if "pool" not in cfg:
        return [(cfg, resolve_corpus_files(name, cfg))]
    parts = []
    for member in cfg["pool"]:
        if member not in corpora or "pool" in corpora[member]:
            raise InputError(
                f"config: corpora.{name}.pool names {member!r}: not a corpus (pools do not nest)"
            )
        parts.append((corpora[member], resolve_corpus_files(member, corpora[member])))
    return parts


def resolve_corpus_files(name: str, cfg: dict[str, Any]) -> list[str]:
    """Absolute paths of a corpus' files."""
    return resolve_files(cfg["files"], f"corpora.{name}.files")


def resolve_files(patterns: list[str], field: str, manifest: dict | None = None) -> list[str]:
    """Paths of ``pkg:<package>/<glob>`` (inside an installed package), ``external:<id>``
    (a pinned file of the manifest, fetched by the workflow to results/external/) or a path
    glob; ``field`` names the config entry in errors."""
    from biasbench.data.external import manifest_entry

    paths: list[str] = []
    for given in patterns:
        if given.startswith("external:"):
            file_id = given.partition(":")[2]
            # an id of the manifest, never a path: ``..``, absolute or a file placed there
            known = external_pins() if manifest is None else manifest
            manifest_entry(known, file_id, f"config: {field}: {given}")
            paths.append(f"results/external/{file_id}")
            continue
        if given.startswith("pkg:"):
            package, _, pattern = given[4:].partition("/")
            root = package_root(package)
            if root is None:
                raise InputError(f"config: {field}: package {package!r} is not installed")
            found = [
                inside_package(p, root, f"config: {field}: {given}")
                for p in glob.glob(str(root / pattern))
            ]
        else:
            root, pattern = Path(), given
            found = [Path(p).resolve() for p in glob.glob(pattern)]
        if not found:
            raise InputError(f"config: {field}: nothing matches {pattern!r} under {root}")
        paths += sorted(map(str, found))
    return paths


def _model_jobs(
    model: str, wanted: list[str] | str, available: dict[str, list[str]], field: str = ""
) -> list[tuple[str, str]]:
    """(test, descriptor) pairs of a model: ``all``, or entries that are a test (all its
    descriptors) or ``test/descriptor`` (e.g. a vocabulary that covers only one of them);
    ``field`` names the config entry in errors (``models.<model>.tests``)."""
    field = field or f"models.{model}.tests"
    pairs = []
    for entry in available if wanted == "all" else wanted:
        test, _, only = entry.partition("/")
        if test not in available:
            raise InputError(f"config: {field} names {entry!r}, not in 'tests'")
        if only and only not in available[test]:
            raise InputError(
                f"config: {field} names {entry!r}; {test} has descriptors {available[test]}"
            )
        pairs += [(test, d) for d in available[test] if not only or d == only]
    return pairs


def package_files(plan: Plan) -> list[str]:
    """Every file inside an installed package that the plan reads (corpora, data sets, model
    sources): what ``resources/package_files.yaml`` pins."""
    from biasbench.models.prepare import source_files

    files = [f for parts in plan.corpus_parts.values() for _cfg, fs in parts for f in fs]
    files += [
        f for roles in (plan.dataset_files or {}).values() for fs in roles.values() for f in fs
    ]
    return files + [f for spec in plan.specs.values() for f in source_files(spec)]
