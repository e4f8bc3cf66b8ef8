rule dataset_scores:
    """The probability-based measures of one data set on one model (CrowS-Pairs, StereoSet,
    BEC-Pro, WinoBias, DisCo, LPBS on salary titles), with how many items it scored."""
    input:
        model=paths.MODEL,
        files=of_wildcards(PLAN.dataset_file_list, "dataset"),
    output:
        scores=paths.DATASET,
        coverage=paths.DATASET_COVERAGE,
        outcomes=paths.DATASET_OUTCOMES,
    log:
        "results/logs/datasets/{model}/{dataset}.log",
    benchmark:
        "results/benchmarks/datasets/{model}/{dataset}.tsv"
    # the longest single jobs go first (longest-first packing: no lone long job at the end)
    priority: 5
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=6000,
        runtime=60,
    params:
        inputs_sha256=own_input_digests("dataset_scores"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["logprobs"],
        # first: a data set the config does not plan for the model fails naming the field
        files=of_wildcards(PLAN.dataset_roles, "model", "dataset"),
        spec=model_settings,
        limit=of_wildcards(PLAN.dataset_limit, "dataset"),
        batch=setting("datasets", "batch"),
        too_long=setting("datasets", "too_long"),
        scoring=config["scoring"],
        seed=config["seed"],
    script:
        "../workflow_scripts/dataset_scores.py"
