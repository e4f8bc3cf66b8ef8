rule null_calibration:
    """The null-model calibration of one configured model: its seeded random copies built in
    memory, each scored with every method on context vectors (templates; a static model's on
    the words alone), LPBS, p-CEAT and the data-set measures (a transformer's), and its
    generated designs, each on a copy of its own, its words alone; in one job.
    """
    input:
        unpack(of_wildcards(PLAN.null_calibration_inputs, "model")),
    output:
        paths.NULL_SCORES,
    log:
        "results/logs/null_calibration/{model}.log",
    benchmark:
        "results/benchmarks/null_calibration/{model}.tsv"
    # long single jobs go first (longest-first packing: no lone long job at the end)
    priority: 5
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=8000,
        runtime=60,
    params:
        inputs_sha256=own_input_digests("null_calibration"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["null_calibration"],
        seeds=of_wildcards(PLAN.null_seeds_of, "model"),
        tests=of_wildcards(PLAN.null_test_files, "model"),
        lpbs=of_wildcards(PLAN.null_lpbs_of, "model"),
        pairs=of_wildcards(PLAN.null_pairs_of, "model"),
        max_gap=LPBS.get("max_gap"),
        datasets=of_wildcards(PLAN.null_datasets_of, "model"),
        item_designs=of_wildcards(PLAN.null_item_designs_of, "model"),
        designs=of_wildcards(PLAN.null_designs_of, "model"),
        lpbs_designs=of_wildcards(PLAN.null_lpbs_designs_of, "model"),
        lexicon=of_wildcards(PLAN.null_lexicon_params, "model"),
        spec=model_settings,
        extraction=config["extraction"],
        scoring=config["scoring"],
        partitions=setting("null_calibration", "partitions"),
        seed=config["seed"],
        batch=of_wildcards(PLAN.null_dataset_batch, "model"),
        lpbs_batch=LPBS.get("batch"),
    script:
        "../workflow_scripts/null_calibration.py"
