rule score:
    """Every registered method on context vectors (WEAT, s-SEAT, w-SEAT, CEAT, MAC, ...) for one
    descriptor of an embeddings file."""
    input:
        contexts=lambda w: PLAN.contexts_file(w.model, w.source, w.test, w.descriptor),
        embeddings="results/embeddings/{model}/{source}/{test}.h5",
        wordset="results/wordsets/{test}/{descriptor}.json",
    output:
        scores="results/scores/{model}/{source}/{test}/{descriptor}.tsv",
        samples="results/scores/{model}/{source}/{test}/{descriptor}.samples.npz",
    log:
        "results/logs/score/{model}/{source}/{test}/{descriptor}.log",
    benchmark:
        "results/benchmarks/score/{model}/{source}/{test}/{descriptor}.tsv"
    conda:
        ENV
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        scoring=config["scoring"],
        seed=config["seed"],
        spec=lambda w: model_params(w.model),
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
        "results/scores/all.tsv",
    log:
        "results/logs/collect_scores.log",
    conda:
        ENV
    script:
        "../workflow_scripts/collect_scores.py"
