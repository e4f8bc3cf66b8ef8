def null_calibration_inputs(wildcards):
    """What a base model's null copies read: the model (its architecture and tokenizer, or its
    vectors' norms), each test's contexts and word sets, the LPBS settings, word sets and
    templates, the pair contexts of p-CEAT, the data sets' files, the word sets of the
    generated designs' pool. A model the section does not name fails naming it."""
    model = wildcards.model
    tests = PLAN.null_test_files(model)
    lpbs = PLAN.null_lpbs_of(model)
    datasets = PLAN.null_datasets_of(model)
    inputs = {
        "model": paths.MODEL.format(model=model),
        "pairs": list(PLAN.null_pairs_of(model).values()),
        "tests": [f for ds in tests.values() for pair in ds.values() for f in pair],
        "lpbs": [f for files in lpbs.values() for f in files]
        + [paths.LPBS_SPEC.format(test=t) for t in lpbs],
        "datasets": [
            f for d in datasets.values() for files in d["files"].values() for f in files
        ],
        # the generated designs' pool of words: every word set of the run
        "pool": PLAN.null_pool_files(model),
    }
    if lpbs:
        inputs["templates"] = PLAN.lpbs_template_file
        inputs["external"] = external_inputs(PLAN.lpbs_template_file)
    return inputs


def null_dataset_batch(model):
    """The data sets' batch size where the null copies of ``model`` run any (else None)."""
    return config["datasets"]["batch"] if PLAN.null_datasets_of(model) else None


rule null_calibration:
    """The null-model calibration of one configured model: its seeded random copies built in
    memory, each scored with every method on context vectors (templates; a static model's on
    the words alone), LPBS, p-CEAT and the data-set measures (a transformer's), and its
    generated designs, each on a copy of its own, its words alone; in one job.
    """
    input:
        unpack(null_calibration_inputs),
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
        mem_mb=6000,
        runtime=60,
    params:
        inputs_sha256=own_input_digests("null_calibration"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["null_calibration"],
        seeds=of_wildcard("model", PLAN.null_base),
        tests=of_wildcard("model", PLAN.null_test_files),
        lpbs=of_wildcard("model", PLAN.null_lpbs_of),
        pairs=of_wildcard("model", PLAN.null_pairs_of),
        max_gap=LPBS.get("max_gap"),
        datasets=of_wildcard("model", PLAN.null_datasets_of),
        designs=of_wildcard("model", PLAN.null_designs_of),
        spec=model_settings,
        extraction=config["extraction"],
        scoring=config["scoring"],
        partitions=setting("null_calibration", "partitions"),
        seed=config["seed"],
        batch=of_wildcard("model", null_dataset_batch),
        lpbs_batch=LPBS.get("batch"),
    script:
        "../workflow_scripts/null_calibration.py"
