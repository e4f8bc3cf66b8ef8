"""The zoo's plan, which every stage's plan reads: the (model, source, test, descriptor) jobs,
the models' specs and settings, the corpora and word sets, the files they name and the config
the settings of every stage's jobs come from (rules/resources.smk, rules/contexts.smk,
rules/corpora.smk, rules/models.smk, rules/mlm_head.smk, rules/embeddings.smk,
rules/elmo.smk, rules/scores.smk)."""

from __future__ import annotations

from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import Any

from biasbench import paths
from biasbench.data.wordsets import external_ids
from biasbench.errors import InputError
from biasbench.models.specs import BUILTIN_SOURCES, ModelSpec, check_known_model, model_spec
from biasbench.plan.inputs import LOCAL_SCHEMES

#: model settings a job depends on: not which tests it runs or which paper model it stands for
#: (editing those re-prepares and re-embeds nothing)
MODEL_KEYS = ("kind", "source", "revision", "lowercase", "layer", "case")


@dataclass(frozen=True)
class Job:
    model: str
    source: str
    test: str
    descriptor: str


@dataclass(frozen=True, kw_only=True)
class ZooPlan:
    """The zoo's jobs and files; built by name only (``kw_only``: two fields of one type
    swapped in a positional call would go unnoticed)."""

    root: Path
    jobs: tuple[Job, ...]
    specs: dict[str, ModelSpec]
    corpus_parts: dict[str, list[tuple[dict, list[str]]]]  # corpus -> (reader config, files)
    natural: str | None = None  # the corpus the paper tables show as natural contexts
    #: every configured test's descriptors (what the corpus samplers match, whatever the models)
    tests: dict[str, list[str]] = field(default_factory=dict)
    template_set: str | None = None  # the single-slot templates' set (``template_set``)
    #: model -> the files its preparation reads, resolved when planning (:func:`model_sources`)
    model_sources: dict[str, list[str]] = field(default_factory=dict)
    #: the validated configuration the plan was made from (restricted to ``only_models``):
    #: the settings each stage's jobs read, as their params
    config: dict[str, Any] = field(default_factory=dict)

    def settings_of(self, section: str, *keys: str) -> dict[str, Any]:
        """The settings ``keys`` of the config section ``section`` (dotted): the ones a job's
        script reads, and no others. Snakemake reruns a job whose params changed, so a job
        handed a whole section reran when an entry it never reads changed (a model added to a
        list in it). A null section plans no job: a target of its typed by hand fails here,
        naming the field."""
        found, path = self.config, []
        for name in section.split("."):
            path.append(name)
            found = found[name]
            if found is None:
                raise InputError(f"config.yaml: {'.'.join(path)} is null: it plans no job")
        return {k: found[k] for k in keys}

    def model_params(self, name: str, keys: tuple[str, ...] = MODEL_KEYS) -> dict[str, Any]:
        """The settings ``keys`` of a configured model (by default those a job depends on);
        an unknown name fails naming the configured models."""
        model_spec(self.config, name)
        return {k: v for k, v in self.config["models"][name].items() if k in keys}

    def configured_source(self, model: str) -> str:
        """The source a model is configured with, as written (ELMo's layers read it)."""
        return self.config["models"][model]["source"]

    def base_model(self, model: str) -> str:
        """The name of the model a null model, a trained head or a quantized copy is built
        from."""
        return self.specs[model].base

    def base_model_file(self, model: str) -> str:
        """The prepared model a null model, a trained head or a quantized copy is built from."""
        return paths.MODEL.format(model=self.base_model(model))

    def base_model_settings(self, model: str) -> dict[str, Any]:
        """The settings of the model a null model, a trained head or a quantized copy is built
        from."""
        return self.model_params(self.base_model(model))

    def prepared_model_settings(self, model: str) -> dict[str, Any]:
        """What preparing a model depends on: its settings and, for a local source, its files'
        sha256 (a file replaced with its mtime kept reruns the job: a params change)."""
        digests = self.source_digests(model)
        return self.model_params(model) | ({"sha256": digests} if digests else {})

    def head_corpus_files(self) -> list[str]:
        """The files of every corpus the masked-LM head trains on (rules/mlm_head.smk)."""
        return [f for c in self.config["mlm_head"]["corpora"] for f in self.corpus_files(c)]

    def head_corpus_parts(self) -> list[tuple[dict, list[str]]]:
        """Those corpora as their parts: each one's reader settings and files."""
        return [p for c in self.config["mlm_head"]["corpora"] for p in self.corpus_parts[c]]

    def head_settings(self) -> dict[str, Any]:
        """Every setting of the head but its corpora (those are its parts)."""
        return {k: v for k, v in self.config["mlm_head"].items() if k != "corpora"}

    def runs_tests(self, model: str) -> bool:
        """Whether the model runs any test of the embedding family."""
        return any(j.model == model for j in self.jobs)

    def paired_tests(self) -> list[str]:
        """The configured tests whose attributes are definitional pairs."""
        from biasbench.data.wordsets import has_pairs

        return [t for t in self.tests if has_pairs(self.root / "resources/wordsets" / f"{t}.yaml")]

    @property
    def template_file(self) -> str:
        """The templates every transformer's template contexts are built from."""
        return f"resources/templates/{self.template_set}.yaml"

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
    def quantized_models(self) -> list[str]:
        """Quantized copies of a configured transformer: rules/models.smk builds them."""
        return [m for m, s in self.specs.items() if s.scheme == "quantized"]

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

    def planned_test(self, model: str, source: str, test: str) -> list[str]:
        """A test's descriptors on a model and source, or an error naming the field: the
        source the model does not read, else the test it does not run there."""
        self.tests_of(model, source)
        return self.descriptors_of(model, source, test)

    @property
    def source_groups(self) -> dict[tuple[str, str], list[str]]:
        """(model, source) -> the tests the model runs on the source, in config order: one
        embedding job and one score job each."""
        groups: dict[tuple[str, str], list[str]] = {}
        for job in self.jobs:
            tests = groups.setdefault((job.model, job.source), [])
            if job.test not in tests:
                tests.append(job.test)
        return groups

    @property
    def embedding_models(self) -> dict[str, dict[str, list[str]]]:
        """Model -> source -> its tests there: one embedding job per model, its model loaded
        once for every source."""
        models: dict[str, dict[str, list[str]]] = {}
        for (model, source), tests in self.source_groups.items():
            models.setdefault(model, {})[source] = tests
        return models

    def score_test_inputs(self, model: str, source: str, test: str) -> dict[str, list[str]]:
        """What one test's scores on a source read, by role."""
        return {
            "contexts": self.contexts_files(model, source, test),
            "embeddings": [paths.EMBEDDINGS.format(model=model, source=source, test=test)],
            "wordsets": self.test_wordsets(model, source, test),
        }

    def group_contexts(self, model: str, source: str) -> dict[str, dict[str, str]]:
        """Test -> descriptor -> contexts file, of every test a model runs on a source."""
        return {
            test: {
                d: self.contexts_file(model, source, test, d)
                for d in self.descriptors_of(model, source, test)
            }
            for test in self.tests_of(model, source)
        }

    def group_context_files(self, model: str, source: str) -> list[str]:
        """The contexts files of :meth:`group_contexts`, in its order (rule embed's)."""
        groups = self.group_contexts(model, source)
        return [f for files in groups.values() for f in files.values()]

    def group_tests(self, model: str, source: str) -> dict[str, list[str]]:
        """Each test a model runs on a source, with its descriptors (rule embed's)."""
        return {t: self.descriptors_of(model, source, t) for t in self.tests_of(model, source)}

    def group_runtime(self, model: str, source: str) -> int:
        """Minutes of one embedding group's job (rule embed's runtime): a model load,
        then ~15 s per test on templates (minutes on natural contexts)."""
        return 20 + 10 * len(self.tests_of(model, source))

    def embedding_cache(self, model: str, source: str) -> str:
        """Where a model's embeddings files of a source are kept by signature."""
        return paths.EMBEDDING_CACHE.format(model=model, source=source)

    def test_cache(self, model: str, stage: str) -> str:
        """Where a per-model job of ``stage`` keeps its tests' files by signature."""
        return paths.TEST_CACHE.format(stage=stage, model=model)

    def test_wordsets(self, model: str, source: str, test: str) -> list[str]:
        """The word set of each descriptor of a model's test on a source (rule score's)."""
        return [
            paths.WORDSET.format(test=test, descriptor=d)
            for d in self.descriptors_of(model, source, test)
        ]

    def external_files(self, resource: str) -> list[str]:
        """The pinned upstream files a resource (a word set, a template file) draws on."""
        return [paths.EXTERNAL.format(file_id=i) for i in external_ids(self.root / resource)]

    def wordset_externals(self, test: str) -> list[str]:
        """The pinned upstream files a test's word set reads."""
        return self.external_files(f"resources/wordsets/{test}.yaml")

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

    def contexts_jobs(self) -> list[tuple[str, str, str, str, str]]:
        """(model, source, test, descriptor, contexts file) of every embedding job: what a
        paired comparison pairs on (:func:`biasbench.plan.comparisons.shared_tests`)."""
        return [
            (j.model, j.source, j.test, j.descriptor, self.contexts_file(*astuple(j)))
            for j in self.jobs
        ]

    def score_files(self) -> list[str]:
        """One score file per embeddings file (all descriptors of a model, source and test)."""
        keys = dict.fromkeys((job.model, job.source, job.test) for job in self.jobs)
        return [paths.SCORES.format(model=m, source=s, test=t) for m, s, t in keys]
