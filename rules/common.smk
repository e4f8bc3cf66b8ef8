"""Helpers shared by the rules: the workflow's constants drawn from the config and its plan,
the wildcards' patterns, and the input and params functions more than one rule calls."""

import os

from biasbench import paths
from biasbench.config import section_defaults
from biasbench.data.external import load_manifest, manifest_entry
from biasbench.data.pins import own_file_digests
from biasbench.errors import InputError
from biasbench.io import sha256_of
from biasbench.methods.registry import REGISTRY
from biasbench.models.null import copy_names
from biasbench.models.specs import model_spec
from biasbench.plan import names_except, names_only
from biasbench.plan.audit import run_files
from biasbench.plan.comparisons import comparisons
from biasbench.reports.cards import slug
from biasbench.reports.catalog import MODELS, PROVENANCE, report_section
from biasbench.reports.model_cards import COMPARISON
from biasbench.reports.tables import report_settings as plan_report_settings
from biasbench.nulls import TRAINED_NULLS

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
#: the paired comparison's check on the study's models (synthesis_paired_check), which a
#: comparison's card quotes: an input in a default run, found like COMPARISON in an audit
PAIRED_CHECK = paths.TABLE.format(table="synthesis_paired_check")
PAIRED_CHECK_FOUND = (
    {PAIRED_CHECK: sha256_of(PAIRED_CHECK)}
    if AUDIT and os.path.isfile(PAIRED_CHECK)
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


#: model settings a job depends on: not which tests it runs or which paper model it stands for
#: (editing those re-prepares and re-embeds nothing)
MODEL_KEYS = ("kind", "source", "revision", "lowercase", "layer", "case")


def model_params(name, keys=MODEL_KEYS):
    model_spec(config, name)  # an unknown name fails naming the configured models
    return {k: v for k, v in config["models"][name].items() if k in keys}


def model_settings(wildcards):
    """The settings of the wildcard's model a job depends on."""
    return model_params(wildcards.model)


def null_lexicon_params(wildcards):
    """The settings of the static model whose vocabulary is the generated designs' lexicon
    (None without generated designs)."""
    if not PLAN.null_pool_files(wildcards.model):
        return None
    return {"name": PLAN.null_lexicon, **model_params(PLAN.null_lexicon)}


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


def wordset_externals(wildcards):
    """The external files the wildcard's test's word set reads."""
    return PLAN.external_files(f"resources/wordsets/{wildcards.test}.yaml")


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


def of_wildcards(function, *names):
    """An input or params function: ``function`` of the job's wildcards ``names``, in that
    order (``of_wildcards(PLAN.contexts_files, "model", "source", "test")``)."""

    def of_job(wildcards):
        return function(*(wildcards[n] for n in names))

    return of_job


def when_asked(function, *args):
    """An input or params function: ``function(*args)``, called for a job that is asked for
    and not when the workflow is planned (a section switched off fails only where a job of
    it is asked for, naming the field)."""

    def of_job(wildcards):
        return function(*args)

    return of_job


def settings(field, *keys):
    """A params function: :func:`settings_of` ``(field, *keys)`` for a job asked for."""
    return when_asked(settings_of, field, *keys)


def setting(field, key):
    """A params function: the one setting ``key`` of the section ``field``."""

    def of_job(wildcards):
        return settings_of(field, key)[key]

    return of_job


# datasets.smk


def dataset_limit(dataset):
    """How many items of ``dataset`` a job reads (None: every item)."""
    return config["datasets"]["limits"].get(dataset)


# divdist.smk
def divdist_corpus_files(wildcards):
    """The files of every corpus the study samples its contexts from."""
    return [f for c in DIVDIST["corpora"] for f in PLAN.corpus_files(c)]


def divdist_corpus_parts(wildcards):
    """Those corpora as their parts: each one's reader settings and files."""
    return [p for c in DIVDIST["corpora"] for p in PLAN.corpus_parts[c]]


def divdist_text_files(wildcards):
    """The automated-text source's counts, one file per corpus."""
    return [paths.DIVDIST_TEXT.format(corpus=c) for c in DIVDIST["corpora"]]


def divdist_vector_files(wildcards):
    """The contextual models' vectors of the study's contexts."""
    return [paths.DIVDIST_VECTORS.format(model=m) for m in DIVDIST["contextual_models"]]


def divdist_generated_files(wildcards):
    """The generated text, where the study generates any."""
    generation = DIVDIST["generation"]
    return (
        [paths.DIVDIST_GENERATED.format(model=generation["model"])]
        if generation
        else []
    )


def divdist_static_files(wildcards):
    """The static models the study reads the vectors of."""
    return [paths.MODEL.format(model=m) for m in DIVDIST["static_models"]]


def divdist_static_specs(wildcards):
    """Their settings, by name."""
    return {m: model_params(m) for m in DIVDIST["static_models"]}


# embeddings.smk


def group_runtime(wildcards):
    """Minutes: a model load, then ~15 s per test on templates (minutes on natural contexts)."""
    return 20 + 10 * len(PLAN.tests_of(wildcards.model, wildcards.source))


def embedding_cache(wildcards):
    """Where the job's model's embeddings files of its source are kept by signature."""
    return paths.EMBEDDING_CACHE.format(model=wildcards.model, source=wildcards.source)


# figures.smk
def figure_inputs(figure):
    """The files one figure draws from, by role."""
    return FIGURES[figure].inputs(PLAN)


def figure_caption(figure):
    return FIGURES[figure].caption


# groundtruth.smk
def groundtruth_settings(mu):
    """What a ground-truth model job of a planned mean reads (another mean fails naming the
    field)."""
    PLAN.groundtruth_mean(mu)
    return settings_of("groundtruth", *GROUNDTRUTH_KEYS)


def each_mean(template):
    """An input function: ``template`` (a per-mean path) of the job's mean, for a job of one
    mean (groundtruth.score_jobs: per_mean), or of every planned mean, for the one job.
    """

    def files(wildcards):
        if hasattr(wildcards, "mu"):
            return [template.format(mu=wildcards.mu)]
        return PLAN.of_each_mean(template)

    return files


def study_datasets():
    """The data sets the ground-truth study's models run."""
    return PLAN.injected_datasets


def study_datasets_of_mean(mu):
    """The data sets the study's models of one planned mean run (another mean, or a study
    whose models run none, fails naming the field)."""
    PLAN.injected_mean(mu)
    return PLAN.injected_datasets


def study_dataset_limits():
    """The study's limits of the data sets its models run (not of the others)."""
    limits = config["groundtruth"]["dataset_limits"]
    return {d: limits[d] for d in PLAN.injected_datasets if d in limits}


def divdist_negative():
    """DivDist's handling of a negative cosine on the study's models: Bommasani's setting, or
    the schema's default when that study is not configured."""
    section = config["bommasani"] or section_defaults("bommasani")
    return section["negative"]


# lpbs.smk


def lpbs_template(wildcards):
    """LPBS' templates file (read for a job asked for: LPBS switched off fails naming it)."""
    return PLAN.lpbs_template_file


# mlm_head.smk
def head_corpus_files(wildcards):
    """The files of every corpus the masked-LM head trains on."""
    return [f for c in config["mlm_head"]["corpora"] for f in PLAN.corpus_files(c)]


def head_corpus_parts(wildcards):
    """Those corpora as their parts: each one's reader settings and files."""
    return [p for c in config["mlm_head"]["corpora"] for p in PLAN.corpus_parts[c]]


def head_settings(wildcards):
    """Every setting of the head but its corpora (those are its parts)."""
    return {k: v for k, v in config["mlm_head"].items() if k != "corpora"}


# model_cards.smk
def card_model_settings(model):
    """The model's settings a card shows, with the paper model it stands for."""
    return model_params(model, (*MODEL_KEYS, "paper_model"))


def runs_tests(model):
    """Whether the model runs any test of the embedding family."""
    return any(j.model == model for j in PLAN.jobs)


def runs_lpbs(model):
    return any(m == model for m, _t in PLAN.lpbs_jobs)


def datasets_of(model):
    """The data sets the model runs."""
    return [d for m, d in PLAN.dataset_jobs if m == model]


def run_settings(model):
    """How the model's data sets were run, as the lm-evaluation-harness export records it."""
    datasets = config["datasets"] or {}
    return {
        "source": config["models"][model]["source"],
        "revision": config["models"][model].get("revision"),
        "dtype": config["compute"]["dtype"]["logprobs"],
        "batch_size": datasets.get("batch"),
        "device": config["compute"]["device"],
        "limits": datasets.get("limits"),
        "files": datasets.get("files"),
        "random_seed": config["seed"],
    }


def divdist_scores(model):
    """Whether the DivDist study scores ``model`` (in one file over all its models)."""
    study = config["bommasani"]
    return bool(study) and model in study["static_models"] + study["contextual_models"]


def model_card_inputs(wildcards):
    """What a model's card reads (``Plan.model_card_inputs``) with, in a default run, the
    comparison across the zoo (an audit reads a finished default run's comparison where it
    finds one: COMPARISON_FOUND)."""
    return PLAN.model_card_inputs(wildcards.model, [] if AUDIT else list(COMPARISON))


#: the paired comparisons config compare: asks for (checked when the workflow is planned)
COMPARISONS = {
    (c.base, c.against): c
    for c in comparisons(config["compare"], config["models"], PLAN.dataset_jobs)
}
#: each comparison's table, card and harness file (targets of rule all)
COMPARISON_TARGETS = [
    template.format(base=base, against=against)
    for base, against in COMPARISONS
    for template in (paths.COMPARISON, paths.COMPARISON_CARD, paths.COMPARISON_LM_EVAL)
]


def paired_comparison(wildcards):
    """The comparison a job's wildcards name (one config compare: does not ask for: an error
    naming both)."""
    key = (wildcards.base, wildcards.against)
    if key not in COMPARISONS:
        raise InputError(
            f"no paired comparison of {key[1]!r} with {key[0]!r} is configured (compare: in "
            "config.yaml)"
        )
    return COMPARISONS[key]


def comparison_inputs(wildcards):
    """Both models' per-item outcomes on every data set they share, the base model's coverage
    of each (the harness file's n-samples, as the model's own), and the comparison across
    the zoo in a default run (an audit reads a finished run's: COMPARISON_FOUND)."""
    found = paired_comparison(wildcards)
    return {
        "base": [
            paths.DATASET_OUTCOMES.format(model=found.base, dataset=d)
            for d in found.datasets
        ],
        "against": [
            paths.DATASET_OUTCOMES.format(model=found.against, dataset=d)
            for d in found.datasets
        ],
        "coverage": [
            paths.DATASET_COVERAGE.format(model=found.base, dataset=d)
            for d in found.datasets
        ],
        "comparison": [] if AUDIT else list(COMPARISON),
        "check": [] if AUDIT else [PAIRED_CHECK],
    }


def comparison_datasets(wildcards):
    """The data sets a comparison reads, in its inputs' order."""
    return list(paired_comparison(wildcards).datasets)


def null_copy_names(wildcards):
    """The names of a model's null copies (none where the calibration does not score it)."""
    model = wildcards.model
    return copy_names(model, PLAN.null_seeds[model]) if model in PLAN.null_seeds else []


# models.smk


def prepared_model_settings(wildcards):
    """What preparing a model depends on: its settings and, for a local source, its files'
    sha256 (a file replaced with its mtime kept reruns the job: a params change)."""
    digests = PLAN.source_digests(wildcards.model)
    return model_settings(wildcards) | ({"sha256": digests} if digests else {})


# null_calibration.smk


def null_dataset_batch(model):
    """The data sets' batch size where the null copies of ``model`` run any (else None)."""
    return config["datasets"]["batch"] if PLAN.null_datasets_of(model) else None


# null_trained.smk
#: the trained-weight null kinds' keys (their sections and results/scores/null/<key>/)
TRAINED_NULL_KEYS = names_only([kind.key for kind in TRAINED_NULLS])


# resources.smk
def external_entry(file_id):
    """The manifest's entry of a pinned upstream file, with where it is fetched to."""
    return manifest_entry(MANIFEST, file_id, paths.EXTERNAL.format(file_id=file_id))


# tables.smk
def table_inputs(table):
    """The files one table is computed from, by role."""
    return TABLES[table].inputs(PLAN)


def table_caption(table):
    return TABLES[table].caption

# tokenization.smk
