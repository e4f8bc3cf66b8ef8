rule prepare_model:
    """Once per model: dequantise GGUF to safetensors, cache static vectors as .npy."""
    output:
        "results/models/{model}/biasbench_model.json",
    log:
        "results/logs/prepare_model/{model}.log",
    benchmark:
        "results/benchmarks/prepare_model/{model}.tsv"
    wildcard_constraints:
        model=PREPARED_MODELS,
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=6000,
        runtime=15,
    params:
        spec=lambda w: model_params(w.model),
    script:
        "../workflow_scripts/prepare_model.py"
