# The DAG's longest chain ends in this file's rules (masked-LM head -> frozen states ->
# ground-truth models -> their data-set scores, ~20 min of one core): each has priority 30, as
# the head's rule does, so it starts as soon as it can and a run does not end on it.


rule groundtruth_states:
    """The masked LM's frozen lower layers on every input of the ground-truth study: the same
    for each of its models, computed once for every job of the grid."""
    input:
        unpack(when_asked(PLAN.groundtruth_inputs)),
    output:
        paths.GROUNDTRUTH_STATES,
    log:
        "results/logs/groundtruth/frozen_states.log",
    benchmark:
        "results/benchmarks/groundtruth/frozen_states.tsv"
    priority: 30
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=30,
    params:
        inputs_sha256=own_input_digests("groundtruth_states"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["groundtruth"],
        study=settings("groundtruth", "trainable_layers"),
    script:
        "../workflow_scripts/groundtruth_states.py"


rule groundtruth_models:
    """The ground-truth study's models of one mean male probability: every sigma and repeat,
    fine-tuned and measured on the frozen states of groundtruth_states."""
    input:
        unpack(when_asked(PLAN.groundtruth_inputs)),
        states=paths.GROUNDTRUTH_STATES,
    output:
        records=paths.GROUNDTRUTH_RECORDS,
        weights=paths.GROUNDTRUTH_WEIGHTS,
    log:
        "results/logs/groundtruth/mu{mu}.log",
    benchmark:
        "results/benchmarks/groundtruth/mu{mu}.tsv"
    priority: 30
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=60,
    params:
        inputs_sha256=own_input_digests("groundtruth_models"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["groundtruth"],
        study=of_wildcards(PLAN.groundtruth_settings, "mu"),
        seed=config["seed"],
    script:
        "../workflow_scripts/groundtruth_models.py"


# The study models' scores: by default one job for every mean, so the masked LM's frozen
# lower layers run once on each input for the whole grid (the same for every study model):
# ~260 CPU-s less than five jobs that each computed them; a mean added reruns the two jobs
# (its training, groundtruth_models, alone is new). groundtruth.score_jobs: per_mean runs
# the per-mean variants below instead (the means in parallel on a cluster).


rule injected_scores:
    """The data-set measures on the ground-truth study's models that learned the bias (their
    trained top layers put back into the masked LM), every mean: models of known bias for
    Figure 4 and the league.
    """
    input:
        model=when_asked(PLAN.groundtruth_model_file),
        records=each_mean(paths.GROUNDTRUTH_RECORDS),
        weights=each_mean(paths.GROUNDTRUTH_WEIGHTS),
        files=when_asked(PLAN.injected_dataset_files),
    output:
        scores=PLAN.scored_in_one_job(paths.INJECTED_DATASETS, datasets=True),
        robustness=PLAN.scored_in_one_job(
            paths.INJECTED_DATASETS_ROBUSTNESS, datasets=True
        ),
        outcomes=PLAN.scored_in_one_job(paths.INJECTED_OUTCOMES, datasets=True),
    log:
        "results/logs/injected_scores.log",
    benchmark:
        "results/benchmarks/injected_scores.tsv"
    priority: 30
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=6000,
        runtime=300,
    params:
        inputs_sha256=own_input_digests("injected_scores"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["groundtruth"],
        datasets=when_asked(PLAN.study_datasets),
        files=when_asked(PLAN.injected_dataset_roles),
        limits=when_asked(PLAN.study_dataset_limits),
        batch=setting("datasets", "batch"),
        splits=setting("groundtruth", "reliability_splits"),
        scoring=config["scoring"],
        seed=config["seed"],
    script:
        "../workflow_scripts/injected_scores.py"


rule study_items:
    """How many units of the injected category each data set of the ground-truth study holds
    and its models score (the D-study: whether the length a measure needs is there)."""
    input:
        files=when_asked(PLAN.injected_dataset_files),
    output:
        paths.GROUNDTRUTH_ITEMS,
    log:
        "results/logs/groundtruth/items.log",
    benchmark:
        "results/benchmarks/groundtruth/items.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        inputs_sha256=own_input_digests("study_items"),
        files=when_asked(PLAN.injected_dataset_roles),
        limits=when_asked(PLAN.study_dataset_limits),
    script:
        "../workflow_scripts/study_items.py"


rule injected_methods:
    """Every method on context vectors, and LPBS, on the ground-truth study's models that
    learned the bias, every mean, on the study's own test (its occupations against its
    definitional words): the validity league's truth and robustness for those methods.
    """
    input:
        unpack(when_asked(PLAN.groundtruth_inputs)),
        records=each_mean(paths.GROUNDTRUTH_RECORDS),
        weights=each_mean(paths.GROUNDTRUTH_WEIGHTS),
        templates=PLAN.template_file,
        external=PLAN.external_files(PLAN.template_file),
    output:
        scores=PLAN.scored_in_one_job(paths.INJECTED_METHODS),
        robustness=PLAN.scored_in_one_job(paths.INJECTED_METHODS_ROBUSTNESS),
    log:
        "results/logs/injected_methods.log",
    benchmark:
        "results/benchmarks/injected_methods.tsv"
    priority: 30
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=300,
    params:
        inputs_sha256=own_input_digests("injected_methods"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["groundtruth"],
        scoring=config["scoring"],
        extraction=config["extraction"],
        study=settings("groundtruth", "reliability_splits"),
        negative=when_asked(PLAN.divdist_negative),
        seed=config["seed"],
    script:
        "../workflow_scripts/injected_methods.py"


use rule injected_scores as injected_scores_per_mean with:
    output:
        scores=[paths.INJECTED_DATASETS],
        robustness=[paths.INJECTED_DATASETS_ROBUSTNESS],
        outcomes=[paths.INJECTED_OUTCOMES],
    log:
        "results/logs/injected_scores/mu{mu}.log",
    benchmark:
        "results/benchmarks/injected_scores/mu{mu}.tsv"
    params:
        # a mean not planned, or a study whose models run no data set: refused, naming the field
        datasets=of_wildcards(PLAN.study_datasets, "mu"),


use rule injected_methods as injected_methods_per_mean with:
    output:
        scores=[paths.INJECTED_METHODS],
        robustness=[paths.INJECTED_METHODS_ROBUSTNESS],
    log:
        "results/logs/injected_methods/mu{mu}.log",
    benchmark:
        "results/benchmarks/injected_methods/mu{mu}.tsv"


ruleorder: injected_scores > injected_scores_per_mean
ruleorder: injected_methods > injected_methods_per_mean
