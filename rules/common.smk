"""What the rules of several stages share (the constants drawn from the config and its plan,
the wildcards' patterns) and the adapters that make a stage plan's method (biasbench/plan/)
an input or params function: what one stage reads is its plan's method, tested there."""

import os
import re

from biasbench import paths
from biasbench.data.pins import own_file_digests
from biasbench.io import sha256_of
from biasbench.plan import (
    group_rule,
    names_except,
    names_except_files,
    names_only,
    refuse,
)
from biasbench.plan.audit import run_files
from biasbench.reports.catalog import report_section
from biasbench.reports.model_cards import COMPARISON
from biasbench.reports.tables import report_settings as plan_report_settings

ENV = "../envs/biasbench.yaml"
LPBS = config["lpbs"] or {}  # null: no LPBS jobs
#: what every table and figure is drawn with: the configuration and its plan
REPORT_SETTINGS = plan_report_settings(config, PLAN)
#: an audit (only_models) collects its scores and provenance apart from a default run's and
#: from other audits' (one pair of files per audited model), so auditing in a checkout that
#: holds a run rewrites none of its files
AUDIT = config["only_models"] is not None
SCORES_TABLE, PROVENANCE_PAGE = run_files(config["only_models"])
#: the comparison across the zoo (tables of the run) that the model cards and the paired
#: comparisons read: their inputs in a default run; none in an audit, which reads
#: COMPARISON_FOUND instead
COMPARISON_INPUTS = () if AUDIT else COMPARISON
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
QUANTIZED_MODELS = names_only(PLAN.quantized_models)
BUILT_MODELS = PLAN.head_models + PLAN.random_models + PLAN.quantized_models
PREPARED_MODELS = names_except(BUILT_MODELS)


wildcard_constraints:
    model="[A-Za-z0-9_.+-]+",
    # the two models of a paired comparison
    base="[A-Za-z0-9_.+-]+",
    against="[A-Za-z0-9_.+-]+",
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


def of_wildcards(function, *names, **fixed):
    """An input or params function: ``function`` of the job's wildcards ``names``, in that
    order (``of_wildcards(PLAN.contexts_files, "model", "source", "test")``), and of the
    keyword arguments ``fixed``, values of the workflow's."""

    def of_job(wildcards):
        return function(*(wildcards[n] for n in names), **fixed)

    return of_job


def when_asked(function, *args):
    """An input or params function: ``function(*args)``, called for a job that is asked for
    and not when the workflow is planned (a section switched off fails only where a job of
    it is asked for, naming the field)."""

    def of_job(wildcards):
        return function(*args)

    return of_job


def settings(field, *keys):
    """A params function: ``PLAN.settings_of(field, *keys)`` for a job asked for."""
    return when_asked(PLAN.settings_of, field, *keys)


def setting(field, key):
    """A params function: the one setting ``key`` of the section ``field``."""

    def of_job(wildcards):
        return PLAN.settings_of(field, key)[key]

    return of_job


def model_settings(wildcards):
    """The settings of the wildcard's model a job depends on (``Plan.model_params``)."""
    return PLAN.model_params(wildcards.model)


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


def each_mean(template):
    """An input function of a ground-truth study rule that its per-mean variant (``use rule``)
    inherits: ``template`` of the job's mean, or of every planned mean for the one job.
    """

    def of_job(wildcards):
        return PLAN.of_mean(
            template, wildcards.mu if hasattr(wildcards, "mu") else None
        )

    return of_job


def catalog_inputs(name, catalog):
    """The files a table or figure (``name`` in ``catalog``: TABLES, FIGURES) is drawn from,
    by role."""
    return catalog[name].inputs(PLAN)


def catalog_caption(name, catalog):
    """The caption of a table or figure (``name`` in ``catalog``: TABLES, FIGURES)."""
    return catalog[name].caption


#: the template study's transcribed templates and word lists (Delobelle et al.): a model's
#: encoding job computes its sensitivity, its log-probability job its KL
TEMPLATE_STUDY_INPUTS = {
    "templates": "resources/templates/delobelle2022_sensitivity.yaml",
    "lists": "resources/lists/delobelle2022.yaml",
}
