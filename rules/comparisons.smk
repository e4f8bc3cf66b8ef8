rule compare_models:
    """Two models compared item by item on the data sets both score and word by word on the
    embedding measures of the tests both encoded (config compare:): the difference per
    measure with its interval over the independent units, the paired tests,
    Holm over the measures, the detectable difference; a card that says which differences are
    worth reading, and the harness's results layout."""
    input:
        unpack(comparison_inputs),
    output:
        table=paths.COMPARISON,
        card=paths.COMPARISON_CARD,
        lm_eval=paths.COMPARISON_LM_EVAL,
    log:
        "results/logs/compare_models/{base}/{against}.log",
    conda:
        ENV
    params:
        datasets=comparison_datasets,
        tests=comparison_tests,
        scoring=config["scoring"],
        permutations=(config["compare"] or {}).get("permutations", 9999),
        alpha=config["alpha"],
        seed=config["seed"],
        comparison=COMPARISON_FOUND,
        check=PAIRED_CHECK_FOUND,
    script:
        "../workflow_scripts/compare_models.py"
