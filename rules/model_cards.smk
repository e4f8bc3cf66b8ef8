rule model_card:
    """One Markdown page per model: every method's score on every test it ran beside the zoo's,
    the method families that apply to it and why each other does not, its caveats, each
    method's validity from the comparison and its own null copies' false-positive shares; and
    its data-set scores in lm-evaluation-harness's results layout.
    """
    input:
        unpack(model_card_inputs),
    output:
        card=report(
            "results/cards/models/{model}.md",
            caption="../resources/report/model_card.rst",
            category=MODELS,
            labels={"model": "{model}"},
        ),
        # its data-set scores in lm-evaluation-harness's results layout
        lm_eval="results/lm_eval/{model}.json",
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
        run=lambda w: {
            "source": config["models"][w.model]["source"],
            "revision": config["models"][w.model].get("revision"),
            "dtype": config["compute"]["dtype"]["logprobs"],
            "batch_size": (config["datasets"] or {}).get("batch"),
            "device": config["compute"]["device"],
            "limits": (config["datasets"] or {}).get("limits"),
            "files": (config["datasets"] or {}).get("files"),
            "random_seed": config["seed"],
        },
        copies=null_copy_names,
        comparison=COMPARISON_FOUND,
    script:
        "../workflow_scripts/model_card.py"
