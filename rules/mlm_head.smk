rule train_mlm_head:
    """A masked-LM head for an encoder that has none, trained on corpus sentences with the
    encoder frozen: a model of its own (``mlm-head:<encoder>``), labelled as such."""
    input:
        base=of_wildcards(PLAN.base_model_file, "model"),
        files=when_asked(PLAN.head_corpus_files),
    output:
        paths.MODEL,
    log:
        "results/logs/train_mlm_head/{model}.log",
    benchmark:
        "results/benchmarks/train_mlm_head/{model}.tsv"
    wildcard_constraints:
        model=HEAD_MODELS,
    # the DAG's longest chain (masked-LM head -> ground-truth models -> their data-set
    # scores, ~20 min of one core): started as soon as it can, so a run does not end on it
    priority: 30
    conda:
        ENV
    # one thread: a two-thread job waits until both cores are free at once, which with a
    # queue of one-thread jobs is the end of the run
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=30,
    params:
        inputs_sha256=own_input_digests("train_mlm_head"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["mlm_head"],
        base=of_wildcards(PLAN.base_model_settings, "model"),
        parts=when_asked(PLAN.head_corpus_parts),
        # every setting of the head but its corpora (those are `parts`)
        settings=when_asked(PLAN.head_settings),
        seed=config["seed"],
    script:
        "../workflow_scripts/train_mlm_head.py"
