"""Helpers shared by the rules: the workflow's constants drawn from the config and its plan,
the wildcards' patterns, and the input and params functions more than one rule calls."""

import os

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
    return f"results/models/{PLAN.specs[wildcards.model].location}/biasbench_model.json"


def base_model_settings(wildcards):
    """The settings of the model a null model or a trained head is built from."""
    return model_params(PLAN.specs[wildcards.model].location)


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


def model_source_files(wildcards):
    """The files preparing a model reads: replacing one prepares it again. Resolved by the
    planner, which names the field of a source that cannot be prepared: an input function
    that raises only drops the job, and a finished directory kept its old model."""
    return PLAN.source_files(wildcards.model)


def prepared_model_settings(wildcards):
    """What preparing a model depends on: its settings and, for a local source, its files'
    sha256 (a file replaced with its mtime kept reruns the job: a params change)."""
    digests = PLAN.source_digests(wildcards.model)
    return model_settings(wildcards) | ({"sha256": digests} if digests else {})


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
    return [f"results/external/{i}" for i in external_ids(resource)]


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


#: what a ground-truth model job reads of the study: its grid beside the planned mean, its
#: training, and the representation its records carry to the report (not the means planned,
#: the masked LM's name or the data-set limits: adding a mean retrains no other)
GROUNDTRUTH_KEYS = (
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


def groundtruth_settings(mu):
    """What a ground-truth model job of a planned mean reads (another mean fails naming the
    field)."""
    PLAN.groundtruth_mean(mu)
    return settings_of("groundtruth", *GROUNDTRUTH_KEYS)


def groundtruth_inputs(wildcards):
    """What the ground-truth study's models are made of, under the names its scripts read:
    the masked LM it fine-tunes, the transcribed occupations and templates, debiaswe's
    definitional pairs and professions. An unconfigured study fails naming the field."""
    return {
        "model": PLAN.groundtruth_model_file(),
        "occupations": "resources/lists/schroeder2021_occupations.yaml",
        "train": "resources/templates/schroeder2021_train.yaml",
        "test": "resources/templates/schroeder2021_test.yaml",
        "pairs": "results/external/debiaswe_definitional_pairs",
        "professions": "results/external/debiaswe_professions",
    }


def study_datasets(mu):
    """The data sets the ground-truth models of one planned mean run."""
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


def embedding_cache(wildcards):
    """Where a model's embeddings files of a source are kept by signature (not an output:
    Snakemake deletes a job's outputs before it reruns it; biasbench/models/embedding_cache.py).
    """
    return f"results/cache/embeddings/{wildcards.model}/{wildcards.source}"


def null_calibration_inputs(wildcards):
    """What a base model's null copies read: the model (its architecture and tokenizer, or its
    vectors' norms), each test's contexts and word sets, the LPBS settings, word sets and
    templates, the pair contexts of p-CEAT, the data sets' files. A model the section does not name fails naming it.
    """
    model = wildcards.model
    tests = PLAN.null_test_files(model)
    lpbs = PLAN.null_lpbs_of(model)
    datasets = PLAN.null_datasets_of(model)
    inputs = {
        "model": f"results/models/{model}/biasbench_model.json",
        "pairs": list(PLAN.null_pairs_of(model).values()),
        "tests": [f for ds in tests.values() for pair in ds.values() for f in pair],
        "lpbs": [f for files in lpbs.values() for f in files]
        + [f"results/wordsets/{t}.lpbs.json" for t in lpbs],
        "datasets": [
            f for d in datasets.values() for files in d["files"].values() for f in files
        ],
    }
    if lpbs:
        inputs["templates"] = PLAN.lpbs_template_file
        inputs["external"] = external_inputs(PLAN.lpbs_template_file)
    return inputs


def null_trained_inputs(wildcards):
    """What a trained model's reassigned draws read: its embeddings file of each test on its
    source, each descriptor's contexts and word set. A model the section does not name fails
    naming it."""
    model = wildcards.model
    source = PLAN.trained_source(model)
    tests = PLAN.trained_tests(model)
    return {
        "embeddings": [f"results/embeddings/{model}/{source}/{t}.h5" for t in tests],
        "tests": [f for ds in tests.values() for pair in ds.values() for f in pair],
    }


def divdist_scores(model):
    """Whether the DivDist study scores ``model`` (in one file over all its models)."""
    study = config["bommasani"]
    return bool(study) and model in study["static_models"] + study["contextual_models"]


def model_card_inputs(wildcards):
    """A model's own score rows, word sets (what its tests compare) and prepared model, its
    null copies' rows where the null-model calibration scores it, and, in a default run, the
    comparison across the zoo (an audit reads a finished default run's comparison where it
    finds one: COMPARISON_FOUND)."""
    model = wildcards.model
    pairs = dict.fromkeys((j.test, j.descriptor) for j in PLAN.jobs if j.model == model)
    return {
        "scores": PLAN.model_score_files(model),
        "wordsets": [f"results/wordsets/{t}/{d}.json" for t, d in pairs],
        "model": f"results/models/{model}/biasbench_model.json",
        "null": [null_file(model)] if model in PLAN.null_seeds else [],
        # what the data sets' rows do not hold: items read and scored, likelihood_diff
        "coverage": [
            f"results/datasets/{model}/{d}.coverage.json"
            for m, d in PLAN.dataset_jobs
            if m == model
        ],
        "comparison": [] if AUDIT else list(COMPARISON),
    }


def null_copy_names(wildcards):
    """The names of a model's null copies (none where the calibration does not score it)."""
    model = wildcards.model
    return copy_names(model, PLAN.null_seeds[model]) if model in PLAN.null_seeds else []
