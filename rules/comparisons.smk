rule compare_models:
    """Two models compared item by item on the data sets both score (config compare:): the
    difference per measure with its interval over the independent units, the paired tests,
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
    localrule: True
    conda:
        ENV
    params:
        datasets=comparison_datasets,
        alpha=config["alpha"],
        seed=config["seed"],
        comparison=COMPARISON_FOUND,
        check=PAIRED_CHECK_FOUND,
    script:
        "../workflow_scripts/compare_models.py"
