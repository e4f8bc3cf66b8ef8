rule dataset_scores:
    """The probability-based measures of one data set on one model (CrowS-Pairs, StereoSet,
    BEC-Pro, WinoBias, DisCo, LPBS on salary titles), with how many items it scored."""
    input:
        model="results/models/{model}/biasbench_model.json",
        files=lambda w: [f for fs in PLAN.dataset_files[w.dataset].values() for f in fs],
    output:
        scores="results/datasets/{model}/{dataset}.tsv",
        coverage="results/datasets/{model}/{dataset}.coverage.json",
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
        files=lambda w: PLAN.dataset_roles(w.model, w.dataset),
        spec=model_settings,
        limit=lambda w: config["datasets"]["limits"].get(w.dataset),
        batch=lambda w: config["datasets"]["batch"],
        scoring=config["scoring"],
        seed=config["seed"],
    script:
        "../workflow_scripts/dataset_scores.py"
