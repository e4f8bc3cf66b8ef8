rule model_card:
    """One Markdown page per model: every method's score on every test it ran beside the zoo's,
    the method families that apply to it and why each other does not, its caveats, each
    method's validity from the comparison and its own null copies' false-positive shares.
    """
    input:
        unpack(model_card_inputs),
    output:
        report(
            "results/cards/models/{model}.md",
            caption="../resources/report/model_card.rst",
            category=MODELS,
            labels={"model": "{model}"},
        ),
    log:
        "results/logs/model_card/{model}.log",
    localrule: True
    conda:
        ENV
    params:
        spec=lambda w: model_params(w.model, (*MODEL_KEYS, "paper_model")),
        runs_tests=lambda w: any(j.model == w.model for j in PLAN.jobs),
        lpbs=lambda w: any(m == w.model for m, _t in PLAN.lpbs_jobs),
        datasets=lambda w: [d for m, d in PLAN.dataset_jobs if m == w.model],
        divdist=lambda w: divdist_scores(w.model),
        divdist_files=PLAN.study_score_files(),
        audit=AUDIT,
        alpha=config["alpha"],
        scores_file=SCORES_TABLE,
        copies=null_copy_names,
        comparison=COMPARISON_FOUND,
    script:
        "../workflow_scripts/model_card.py"
