from biasbench.nulls import TRAINED_NULLS

#: the trained-weight null kinds' keys (their sections and results/scores/null/<key>/)
TRAINED_NULL_KEYS = names_only([kind.key for kind in TRAINED_NULLS])


rule null_trained:
    """A trained-weight null kind on one model (biasbench.nulls; the reassigned
    words: kind "trained"): its own vectors of every test it runs (words alone or templates),
    drawn anew draws times (each test's words reassigned to its sets at random), every method
    scored on each draw (each method's primary encoding), in one job."""
    input:
        unpack(of_wildcards(PLAN.trained_null_inputs, "model", "kind")),
    output:
        paths.TRAINED_NULL_SCORES,
    log:
        "results/logs/null_{kind}/{model}.log",
    benchmark:
        "results/benchmarks/null_{kind}/{model}.tsv"
    wildcard_constraints:
        kind=TRAINED_NULL_KEYS,
    conda:
        ENV
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        draws=of_wildcards(PLAN.trained_draws_of, "model", "kind"),
        source=of_wildcards(PLAN.trained_source, "model", "kind"),
        tests=of_wildcards(PLAN.trained_tests, "model", "kind"),
        spec=model_settings,
        scoring=config["scoring"],
        partitions=setting("null_calibration", "partitions"),
        seed=config["seed"],
    script:
        "../workflow_scripts/null_trained.py"
