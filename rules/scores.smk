rule score:
    """Every registered method on context vectors (WEAT, s-SEAT, w-SEAT, CEAT, MAC, ...) for
    every descriptor of one embeddings file (one job: scoring takes seconds, a job's start
    about as long)."""
    input:
        contexts=of_wildcards(PLAN.contexts_files, "model", "source", "test"),
        embeddings=paths.EMBEDDINGS,
        wordsets=of_wildcards(PLAN.test_wordsets, "model", "source", "test"),
    output:
        scores=paths.SCORES,
        samples=paths.SAMPLES,
    log:
        "results/logs/score/{model}/{source}/{test}.log",
    benchmark:
        "results/benchmarks/score/{model}/{source}/{test}.tsv"
    conda:
        ENV
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        scoring=config["scoring"],
        seed=config["seed"],
        spec=model_settings,
        descriptors=of_wildcards(PLAN.descriptors_of, "model", "source", "test"),
    script:
        "../workflow_scripts/score.py"


rule collect_scores:
    """All score rows (WEAT family, CEAT, LPBS, the data sets, DivDist) in one tidy table."""
    input:
        PLAN.score_files()
        + PLAN.lpbs_files()
        + PLAN.dataset_score_files()
        + PLAN.study_score_files(),
    output:
        SCORES_TABLE,
    log:
        "results/logs/collect_scores.log",
    conda:
        ENV
    params:
        # a row whose permutation test cannot reach alpha gets a note saying so
        alpha=config["alpha"],
    script:
        "../workflow_scripts/collect_scores.py"
