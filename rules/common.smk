"""Helpers shared by the rules: the workflow's constants drawn from the config and its plan,
the wildcards' patterns, and the input and params functions more than one rule calls."""

import os

from biasbench import paths
from biasbench.config import section_defaults
from biasbench.data.external import load_manifest, manifest_entry
from biasbench.data.pins import own_file_digests
from biasbench.data.wordsets import external_ids
from biasbench.errors import InputError
from biasbench.io import sha256_of
from biasbench.methods.registry import REGISTRY
from biasbench.models.null import copy_names, null_file
from biasbench.models.specs import model_spec
from biasbench.plan import names_except, names_only
from biasbench.plan.audit import run_files
from biasbench.reports.cards import slug
from biasbench.reports.catalog import MODELS, PROVENANCE, report_section
from biasbench.reports.model_cards import COMPARISON
from biasbench.reports.tables import report_settings as plan_report_settings

ENV = "../envs/biasbench.yaml"
MANIFEST = load_manifest("resources/external.yaml")
LPBS = config["lpbs"] or {}  # null: no LPBS jobs
#: what every table and figure is drawn with: the configuration and its plan
REPORT_SETTINGS = plan_report_settings(config, PLAN)
CARD_SLUGS = ["index", *(slug(m.name) for m in REGISTRY)]
#: an audit (only_models) collects its scores and provenance apart from a default run's and
#: from other audits' (one pair of files per audited model), so auditing in a checkout that
#: holds a run rewrites none of its files
AUDIT = config["only_models"] is not None
SCORES_TABLE, PROVENANCE_PAGE = run_files(config["only_models"])
#: an audit's model embeds each source in one job, its longest, which every score job waits
#: for: it goes before the LPBS and data-set jobs (measured: a 135M causal LM's audit ran 10
#: min with it last, its embedding started 6 min in); a default run keeps its measured packing
EMBED_PRIORITY = 15 if AUDIT else 0
#: an audit's comparison: a finished default run's tables in this checkout, each with its
#: sha256, read once when the workflow is planned (a changed table changes this param of every
#: card, so they are rebuilt, and a card's job reads only what was planned); none in a
#: default run, whose cards take its own tables as inputs
COMPARISON_FOUND = (
    {f: sha256_of(f) for f in COMPARISON}
    if AUDIT and all(os.path.isfile(f) for f in COMPARISON)
    else {}
)
#: the model names each rule that builds or embeds some models differently claims (the plan's
#: model classes: ELMo, trained masked-LM heads, null models); a name no rule claims (a typo
#: in a target) still reaches the ordinary rules, which name the models
ELMO_MODELS = names_only(PLAN.elmo_models)
OTHER_MODELS = names_except(PLAN.elmo_models)
HEAD_MODELS = names_only(PLAN.head_models)
RANDOM_MODELS = names_only(PLAN.random_models)
PREPARED_MODELS = names_except(PLAN.head_models + PLAN.random_models)


wildcard_constraints:
    model="[A-Za-z0-9_.+-]+",
    source="|".join(["templates", "words", *PLAN.corpus_parts]),
    corpus="|".join(PLAN.corpus_parts) or "^$",
    test="[A-Za-z0-9_]+",
    descriptor="[A-Za-z0-9_]+",
    case="any|exact",
    table="|".join(TABLES),
    figure="|".join(FIGURES),
    mu="[0-9.]+",
    # any name: a data set the config does not plan reaches the planner, which names the field
    dataset="[A-Za-z0-9_]+",


# small bookkeeping jobs run beside Snakemake, not as cluster jobs
localrules:
    all,
    fetch_external,
    wordset,
    lpbs_spec,
    template_contexts,
    word_contexts,
    corpus_contexts,
    elmo_tokens,
    collect_scores,
    table,
    figure,
    provenance,


#: model settings a job depends on: not which tests it runs or which paper model it stands for
#: (editing those re-prepares and re-embeds nothing)
MODEL_KEYS = ("kind", "source", "revision", "lowercase", "layer", "case")


def model_params(name, keys=MODEL_KEYS):
    model_spec(config, name)  # an unknown name fails naming the configured models
    return {k: v for k, v in config["models"][name].items() if k in keys}


def model_settings(wildcards):
    """The settings of the wildcard's model a job depends on."""
    return model_params(wildcards.model)


def base_model_file(wildcards):
    """The prepared model a null model or a trained head is built from."""
    return paths.MODEL.format(model=PLAN.specs[wildcards.model].location)


def base_model_settings(wildcards):
    """The settings of the model a null model or a trained head is built from."""
    return model_params(PLAN.specs[wildcards.model].location)


def base_model_name(wildcards):
    """The name of the model a null model or a trained head is built from."""
    return PLAN.specs[wildcards.model].location


def model_source(wildcards):
    """The source the wildcard's model is configured with."""
    return config["models"][wildcards.model]["source"]


def test_contexts(wildcards):
    """The contexts files of one model's test from one source, one per descriptor."""
    return PLAN.contexts_files(wildcards.model, wildcards.source, wildcards.test)


def test_descriptors(wildcards):
    """The descriptors of a test one model reads from one source."""
    return PLAN.descriptors_of(wildcards.model, wildcards.source, wildcards.test)


def corpus_files(wildcards):
    """The files of the wildcard's corpus."""
    return PLAN.corpus_files(wildcards.corpus)


def corpus_parts(wildcards):
    """The wildcard's corpus as its parts: each one's reader settings and files."""
    return PLAN.corpus_parts[wildcards.corpus]


def own_input_digests(rule):
    """A param of ``rule``: the sha256 of each of a job's inputs that is the user's own file
    (a word set, template, word list, published values, a local corpus or data-set file), so
    an edit with the mtime kept reruns the job. Not a function of ``input``: Snakemake leaves
    such params out of its params trigger (it counts them as the inputs', whose trigger
    compares names, not contents)."""

    def digests(wildcards):
        inputs, *_ = workflow.get_rule(rule).expand_input(dict(wildcards.items()))
        return own_file_digests(inputs)

    return digests


def external_inputs(resource):
    return [paths.EXTERNAL.format(file_id=i) for i in external_ids(resource)]


def wordset_externals(wildcards):
    """The external files the wildcard's test's word set reads."""
    return external_inputs(f"resources/wordsets/{wildcards.test}.yaml")


def settings_of(field, *keys):
    """The settings ``keys`` of the config section ``field`` (dotted): the ones a job's script
    reads, and no others. Snakemake reruns a job whose params changed, so a job handed a whole
    section reran when an entry it never reads changed (a model added to a list in it). A null
    section plans no job: a target of its typed by hand fails here, naming the field."""
    section, path = config, []
    for name in field.split("."):
        path.append(name)
        section = section[name]
        if section is None:
            raise InputError(f"config.yaml: {'.'.join(path)} is null: it plans no job")
    return {k: section[k] for k in keys}


def of_wildcard(name, function):
    """An input or params function: ``function`` of the job's wildcard ``name``."""

    def of_wildcards(wildcards):
        return function(wildcards[name])

    return of_wildcards


def when_asked(function, *args):
    """An input or params function: ``function(*args)``, called for a job that is asked for
    and not when the workflow is planned (a section switched off fails only where a job of
    it is asked for, naming the field)."""

    def of_wildcards(wildcards):
        return function(*args)

    return of_wildcards


def settings(field, *keys):
    """A params function: :func:`settings_of` ``(field, *keys)`` for a job asked for."""
    return when_asked(settings_of, field, *keys)


def setting(field, key):
    """A params function: the one setting ``key`` of the section ``field``."""

    def of_wildcards(wildcards):
        return settings_of(field, key)[key]

    return of_wildcards


def test_wordsets(wildcards):
    """The word set of each descriptor of one model's test from one source."""
    return [
        paths.WORDSET.format(test=wildcards.test, descriptor=d)
        for d in PLAN.descriptors_of(wildcards.model, wildcards.source, wildcards.test)
    ]
