rule lpbs_spec:
    """A test's LPBS settings (template categories, plural targets, adjective forms)."""
    input:
        yaml="resources/wordsets/{test}.yaml",
        external=lambda w: external_inputs(f"resources/wordsets/{w.test}.yaml"),
    output:
        "results/wordsets/{test}.lpbs.json",
    log:
        "results/logs/lpbs_spec/{test}.log",
    conda:
        ENV
    script:
        "../workflow_scripts/resolve_lpbs_spec.py"


rule lpbs_templates:
    """LPBS on double-slot templates: every descriptor, word-set variant and attribute form."""
    input:
        spec="results/wordsets/{test}.lpbs.json",
        wordsets=lambda w: [
            f"results/wordsets/{w.test}/{d}.json"
            for d in PLAN.lpbs_descriptors(w.test)
        ],
        templates=LPBS_TEMPLATE_FILE,
        external=external_inputs(LPBS_TEMPLATE_FILE),
        model="results/models/{model}/biasbench_model.json",
    output:
        "results/lpbs/{model}/templates/{test}.tsv",
    log:
        "results/logs/lpbs/{model}/templates/{test}.log",
    conda:
        ENV
    threads: 1
    params:
        spec=lambda w: model_params(w.model),
        scoring=config["scoring"],
        seed=config["seed"],
        batch=config.get("lpbs", {}).get("batch", 64),
    script:
        "../workflow_scripts/lpbs_templates.py"
