from biasbench.reports.catalog import MODELS


rule model_card:
    """One Markdown page per model: every method's score on every test it ran beside the zoo's,
    the method families that apply to it and why each other does not, its caveats, each
    method's validity from the comparison and its own null copies' false-positive shares; and
    its data-set scores in lm-evaluation-harness's results layout.
    """
    input:
        unpack(
            of_wildcards(PLAN.model_card_inputs, "model", comparison=COMPARISON_INPUTS)
        ),
    output:
        card=report(
            paths.MODEL_CARD,
            caption="../resources/report/model_card.rst",
            category=MODELS,
            labels={"model": "{model}"},
        ),
        # its data-set scores in lm-evaluation-harness's results layout
        lm_eval=paths.MODEL_LM_EVAL,
    log:
        "results/logs/model_card/{model}.log",
    localrule: True
    conda:
        ENV
    params:
        spec=of_wildcards(PLAN.card_settings, "model"),
        runs_tests=of_wildcards(PLAN.runs_tests, "model"),
        lpbs=of_wildcards(PLAN.runs_lpbs, "model"),
        datasets=of_wildcards(PLAN.datasets_of, "model"),
        divdist=of_wildcards(PLAN.divdist_scores, "model"),
        divdist_files=PLAN.study_score_files(),
        audit=AUDIT,
        alpha=config["alpha"],
        scores_file=SCORES_TABLE,
        run=of_wildcards(PLAN.run_settings, "model"),
        copies=of_wildcards(PLAN.null_copy_names, "model"),
        comparison=COMPARISON_FOUND,
    script:
        "../workflow_scripts/model_card.py"
