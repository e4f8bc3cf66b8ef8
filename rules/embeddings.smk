rule embed:
    """Word- and sentence-level encodings of every context of a test (all its target
    descriptors in one pass), to HDF5 with a group per descriptor."""
    input:
        contexts=lambda w: PLAN.contexts_files(w.model, w.source, w.test),
        model="results/models/{model}/biasbench_model.json",
    output:
        "results/embeddings/{model}/{source}/{test}.h5",
    log:
        "results/logs/embed/{model}/{source}/{test}.log",
    benchmark:
        "results/benchmarks/embed/{model}/{source}/{test}.tsv"
    wildcard_constraints:
        model=OTHER_MODELS,
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        spec=lambda w: model_params(w.model),
        descriptors=lambda w: PLAN.descriptors_of(w.model, w.source, w.test),
        extraction=config["extraction"],
    script:
        "../workflow_scripts/embed.py"
