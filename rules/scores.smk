rule score:
    """Every registered method on context vectors (WEAT, s-SEAT, w-SEAT, CEAT, MAC, ...) for
    every descriptor of one embeddings file (one job: scoring takes seconds, a job's start
    about as long)."""
    input:
        contexts=test_contexts,
        embeddings=paths.EMBEDDINGS,
        wordsets=test_wordsets,
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
        descriptors=test_descriptors,
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
