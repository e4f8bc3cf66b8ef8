#: the paired comparison's check on the study's models (synthesis_paired_check), which a
#: comparison's card quotes: an input in a default run, found like COMPARISON in an audit
PAIRED_CHECK = paths.TABLE.format(table="synthesis_paired_check")
PAIRED_CHECK_INPUTS = () if AUDIT else (PAIRED_CHECK,)
PAIRED_CHECK_FOUND = (
    {PAIRED_CHECK: sha256_of(PAIRED_CHECK)}
    if AUDIT and os.path.isfile(PAIRED_CHECK)
    else {}
)


rule compare_models:
    """Two models compared item by item on the data sets both score and word by word on the
    embedding measures of the tests both encoded and on LPBS and p-CEAT where both read the
    same templates or contexts (config compare:): the difference per
    measure with its interval over the independent units, the paired tests,
    Holm over the measures, the detectable difference; a card that says which differences are
    worth reading, the harness's results layout, and a figure of every difference."""
    input:
        unpack(
            of_wildcards(
                PLAN.comparison_inputs,
                "base",
                "against",
                comparison=COMPARISON_INPUTS,
                check=PAIRED_CHECK_INPUTS,
            )
        ),
    output:
        table=paths.COMPARISON,
        card=paths.COMPARISON_CARD,
        lm_eval=paths.COMPARISON_LM_EVAL,
        figure_png=paths.COMPARISON_FIGURE_PNG,
        figure_pdf=paths.COMPARISON_FIGURE_PDF,
    log:
        "results/logs/compare_models/{base}/{against}.log",
    conda:
        ENV
    params:
        datasets=of_wildcards(PLAN.comparison_datasets, "base", "against"),
        tests=of_wildcards(PLAN.comparison_tests, "base", "against"),
        scoring=config["scoring"],
        alpha=config["alpha"],
        seed=config["seed"],
        comparison=COMPARISON_FOUND,
        check=PAIRED_CHECK_FOUND,
    script:
        "../workflow_scripts/compare_models.py"
