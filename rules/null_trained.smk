rule null_trained:
    """The trained-weight null of one model: its own vectors of every test it runs (words
    alone or templates), each test's words reassigned to its sets at random, draws times,
    every method scored on each draw (each method's primary encoding), in one job."""
    input:
        unpack(null_trained_inputs),
    output:
        paths.TRAINED_NULL_SCORES,
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
        draws=of_wildcard("model", PLAN.trained_draws.__getitem__),
        source=of_wildcard("model", PLAN.trained_source),
        tests=of_wildcard("model", PLAN.trained_tests),
        spec=model_settings,
        scoring=config["scoring"],
        partitions=setting("null_calibration", "partitions"),
        seed=config["seed"],
    script:
        "../workflow_scripts/null_trained.py"
