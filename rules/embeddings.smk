rule embed:
    """Word- and sentence-level encodings of every context, to HDF5."""
    input:
        contexts="results/contexts/{source}/{test}/{descriptor}.tsv",
        model="results/models/{model}/biasbench_model.json",
    output:
        "results/embeddings/{model}/{source}/{test}/{descriptor}.h5",
    log:
        "results/logs/embed/{model}/{source}/{test}/{descriptor}.log",
    conda:
        ENV
    threads: lambda w: 1 if config["models"][w.model]["kind"] == "static" else 2
    params:
        spec=lambda w: model_params(w.model),
        extraction=config["extraction"],
    script:
        "../workflow_scripts/embed.py"
