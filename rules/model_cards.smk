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
    """A model's own score rows, word sets (what its tests compare) and prepared model, its
    null copies' rows where the null-model calibration scores it, and, in a default run, the
    comparison across the zoo (an audit reads a finished default run's comparison where it
    finds one: COMPARISON_FOUND)."""
    model = wildcards.model
    pairs = dict.fromkeys((j.test, j.descriptor) for j in PLAN.jobs if j.model == model)
    return {
        "scores": PLAN.model_score_files(model),
        "wordsets": [paths.WORDSET.format(test=t, descriptor=d) for t, d in pairs],
        "model": paths.MODEL.format(model=model),
        "null": [null_file(model)] if model in PLAN.null_seeds else [],
        # what the data sets' rows do not hold: items read and scored, likelihood_diff
        "coverage": [
            paths.DATASET_COVERAGE.format(model=model, dataset=d)
            for m, d in PLAN.dataset_jobs
            if m == model
        ],
        "comparison": [] if AUDIT else list(COMPARISON),
    }


def null_copy_names(wildcards):
    """The names of a model's null copies (none where the calibration does not score it)."""
    model = wildcards.model
    return copy_names(model, PLAN.null_seeds[model]) if model in PLAN.null_seeds else []


rule model_card:
    """One Markdown page per model: every method's score on every test it ran beside the zoo's,
    the method families that apply to it and why each other does not, its caveats, each
    method's validity from the comparison and its own null copies' false-positive shares; and
    its data-set scores in lm-evaluation-harness's results layout.
    """
    input:
        unpack(model_card_inputs),
    output:
        card=report(
            "results/cards/models/{model}.md",
            caption="../resources/report/model_card.rst",
            category=MODELS,
            labels={"model": "{model}"},
        ),
        # its data-set scores in lm-evaluation-harness's results layout
        lm_eval="results/lm_eval/{model}.json",
    log:
        "results/logs/model_card/{model}.log",
    localrule: True
    conda:
        ENV
    params:
        spec=of_wildcard("model", card_model_settings),
        runs_tests=of_wildcard("model", runs_tests),
        lpbs=of_wildcard("model", runs_lpbs),
        datasets=of_wildcard("model", datasets_of),
        divdist=of_wildcard("model", divdist_scores),
        divdist_files=PLAN.study_score_files(),
        audit=AUDIT,
        alpha=config["alpha"],
        scores_file=SCORES_TABLE,
        run=of_wildcard("model", run_settings),
        copies=null_copy_names,
        comparison=COMPARISON_FOUND,
    script:
        "../workflow_scripts/model_card.py"
