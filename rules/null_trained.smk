rule null_trained:
    """The trained-weight null of one model: its own vectors of every test it runs (words
    alone or templates), each test's words reassigned to its sets at random, draws times,
    every method scored on each draw (each method's primary encoding), in one job."""
    input:
        unpack(null_trained_inputs),
    output:
        "results/scores/null/trained/{model}.tsv",
    log:
        "results/logs/null_trained/{model}.log",
    benchmark:
        "results/benchmarks/null_trained/{model}.tsv"
    conda:
        ENV
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        draws=lambda w: PLAN.trained_draws[w.model],
        source=lambda w: PLAN.trained_source(w.model),
        tests=lambda w: PLAN.trained_tests(w.model),
        spec=model_settings,
        scoring=config["scoring"],
        partitions=lambda w: settings_of("null_calibration", "partitions")["partitions"],
        seed=config["seed"],
    script:
        "../workflow_scripts/null_trained.py"
