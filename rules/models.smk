rule prepare_model:
    """Once per model: dequantise GGUF to safetensors, cache static vectors as .npy, and record
    the digest of every file the model is loaded from."""
    input:
        of_wildcards(PLAN.source_files, "model"),
    output:
        paths.MODEL,
    log:
        "results/logs/prepare_model/{model}.log",
    benchmark:
        "results/benchmarks/prepare_model/{model}.tsv"
    wildcard_constraints:
        model=PREPARED_MODELS,
    # every model's jobs wait for it
    priority: 20
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=6000,
        runtime=15,
    params:
        spec=of_wildcards(PLAN.prepared_model_settings, "model"),
    script:
        "../workflow_scripts/prepare_model.py"


rule random_model:
    """A null model: a configured model's architecture and tokenizer with seeded random
    weights (``random:<model>``)."""
    input:
        base=of_wildcards(PLAN.base_model_file, "model"),
    output:
        paths.MODEL,
    log:
        "results/logs/random_model/{model}.log",
    wildcard_constraints:
        model=RANDOM_MODELS,
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=6000,
        runtime=10,
    params:
        base=of_wildcards(PLAN.base_model_settings, "model"),
        base_name=of_wildcards(PLAN.base_model, "model"),
        seed=config["seed"],
    script:
        "../workflow_scripts/random_model.py"


rule quantized_model:
    """A quantized copy: a configured transformer's weights rounded to a GGUF block format and
    back to float32, its head and tokenizer kept (``quantized:<model>:<format>``)."""
    input:
        base=of_wildcards(PLAN.base_model_file, "model"),
    output:
        paths.MODEL,
    log:
        "results/logs/quantized_model/{model}.log",
    benchmark:
        "results/benchmarks/quantized_model/{model}.tsv"
    wildcard_constraints:
        model=QUANTIZED_MODELS,
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=6000,
        runtime=10,
    params:
        spec=model_settings,
        base=of_wildcards(PLAN.base_model_settings, "model"),
        base_name=of_wildcards(PLAN.base_model, "model"),
    script:
        "../workflow_scripts/quantized_model.py"
