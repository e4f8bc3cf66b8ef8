rule prepare_model:
    """Once per model: dequantise GGUF to safetensors, cache static vectors as .npy."""
    output:
        "results/models/{model}/biasbench_model.json",
    params:
        spec=lambda w: model_params(w.model, ("kind", "source", "revision")),
    threads: 2
    log:
        "results/logs/prepare_model/{model}.log",
    conda:
        ENV
    script:
        "../workflow_scripts/prepare_model.py"
