"""Helpers shared by the rules."""

from biasbench.config import section_defaults
from biasbench.errors import InputError

#: model settings a job depends on: not which tests it runs or which paper model it stands for
#: (editing those re-prepares and re-embeds nothing)
MODEL_KEYS = ("kind", "source", "revision", "lowercase", "layer", "case")


def model_params(name, keys=MODEL_KEYS):
    model_spec(config, name)  # an unknown name fails naming the configured models
    return {k: v for k, v in config["models"][name].items() if k in keys}


def model_source_files(wildcards):
    """The files preparing a model reads: replacing one prepares it again."""
    return source_files(model_spec(config, wildcards.model))


def external_inputs(resource):
    return [f"results/external/{i}" for i in external_ids(resource)]


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
    "repeats",
    "trainable_layers",
    "epochs",
    "batch",
    "learning_rate",
    "test_share",
    "r2_threshold",
    "representation",
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
    return INJECTED_DATASETS


def study_dataset_limits():
    """The study's limits of the data sets its models run (not of the others)."""
    limits = config["groundtruth"]["dataset_limits"]
    return {d: limits[d] for d in INJECTED_DATASETS if d in limits}


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
