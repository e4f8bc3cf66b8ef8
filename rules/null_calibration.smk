rule null_calibration:
    """The null-model calibration of one configured model: its seeded random copies built in
    memory, each scored with every method on context vectors (templates; a static model's on
    the words alone), LPBS, p-CEAT and the data-set measures (a transformer's), in one job.
    """
    input:
        unpack(null_calibration_inputs),
    output:
        "results/scores/null/{model}.tsv",
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
        mem_mb=6000,
        runtime=60,
    params:
        inputs_sha256=own_input_digests("null_calibration"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["null_calibration"],
        seeds=lambda w: PLAN.null_base(w.model),
        tests=lambda w: PLAN.null_test_files(w.model),
        lpbs=lambda w: PLAN.null_lpbs_of(w.model),
        pairs=lambda w: PLAN.null_pairs_of(w.model),
        max_gap=LPBS.get("max_gap"),
        datasets=lambda w: PLAN.null_datasets_of(w.model),
        spec=model_settings,
        extraction=config["extraction"],
        scoring=config["scoring"],
        partitions=lambda w: settings_of("null_calibration", "partitions")["partitions"],
        seed=config["seed"],
        batch=lambda w: (
            config["datasets"]["batch"] if PLAN.null_datasets_of(w.model) else None
        ),
        lpbs_batch=LPBS.get("batch"),
    script:
        "../workflow_scripts/null_calibration.py"
