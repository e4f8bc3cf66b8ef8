#: an audit's model embeds each source in one job, its longest, which every score job waits
#: for: it goes before the LPBS and data-set jobs (measured: a 135M causal LM's audit ran 10
#: min with it last, its embedding started 6 min in); a default run keeps its measured packing
EMBED_PRIORITY = 15 if AUDIT else 0


rule embed_group:
    """Every test a model runs on a source, encoded with the model loaded once into the
    cache of embeddings files by signature (the bytes of the contexts, the model, its settings,
    the extraction settings, the code): a test already there is not encoded again. Writes the
    tests' signatures; rule embed copies each test's file from the cache."""
    input:
        contexts=of_wildcards(PLAN.group_context_files, "model", "source"),
        model=paths.MODEL,
    output:
        paths.SIGNATURES,
    log:
        "results/logs/embed_group/{model}/{source}.log",
    benchmark:
        "results/benchmarks/embed_group/{model}/{source}.tsv"
    wildcard_constraints:
        model=OTHER_MODELS,
    # an audit's longest job, which every score job waits for: first (EMBED_PRIORITY)
    priority: EMBED_PRIORITY
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=of_wildcards(PLAN.group_runtime, "model", "source"),
    params:
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["extraction"],
        spec=model_settings,
        tests=of_wildcards(PLAN.group_tests, "model", "source"),
        extraction=config["extraction"],
        cache=of_wildcards(PLAN.embedding_cache, "model", "source"),
    script:
        "../workflow_scripts/embed_group.py"


rule embed:
    """Word- and sentence-level encodings of every context of a test (all its target
    descriptors in one pass), to HDF5 with a group per descriptor: the test's file of the
    cache that rule embed_group filled, verified and copied (encoded here only when the entry
    is missing or damaged). The group's signatures are an ancient input: the group job
    rerunning for another test reruns no job of this test; its own contexts, model, settings
    and code do."""
    input:
        contexts=of_wildcards(PLAN.contexts_files, "model", "source", "test"),
        model=paths.MODEL,
        group=ancient(paths.SIGNATURES),
    output:
        paths.EMBEDDINGS,
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
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=30,
    params:
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["extraction"],
        spec=model_settings,
        descriptors=of_wildcards(PLAN.descriptors_of, "model", "source", "test"),
        extraction=config["extraction"],
        cache=of_wildcards(PLAN.embedding_cache, "model", "source"),
    script:
        "../workflow_scripts/embed.py"
