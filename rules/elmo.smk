rule elmo_tokens:
    """ELMo's input: every distinct context sentence of a test as tokens, with offsets."""
    input:
        contexts=of_wildcards(PLAN.contexts_files, "model", "source", "test"),
    output:
        paths.ELMO_TOKENS,
    log:
        "results/logs/elmo_tokens/{model}/{source}/{test}.log",
    conda:
        ENV
    script:
        "../workflow_scripts/elmo_tokens.py"


rule elmo_layers:
    """The three ELMo layers of every token, in ELMo's own environment (AllenNLP)."""
    input:
        paths.ELMO_TOKENS,
    output:
        paths.ELMO_LAYERS,
    log:
        "results/logs/elmo_layers/{model}/{source}/{test}.log",
    conda:
        "../envs/elmo.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        source=of_wildcards(PLAN.configured_source, "model"),
    script:
        "../workflow_scripts/elmo_layers.py"


rule embed_elmo:
    """ELMo's layers pooled into the embeddings contract (words: sum over layers; sentences:
    mean over tokens, summed over layers), as the embed rule writes for other models."""
    input:
        contexts=of_wildcards(PLAN.contexts_files, "model", "source", "test"),
        tokens=paths.ELMO_TOKENS,
        layers=paths.ELMO_LAYERS,
        model=paths.MODEL,
    output:
        paths.EMBEDDINGS,
    log:
        "results/logs/embed/{model}/{source}/{test}.log",
    wildcard_constraints:
        model=ELMO_MODELS,
    conda:
        ENV
    params:
        spec=model_settings,
        descriptors=of_wildcards(PLAN.descriptors_of, "model", "source", "test"),
    script:
        "../workflow_scripts/embed_elmo.py"
