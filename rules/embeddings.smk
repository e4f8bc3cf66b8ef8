#: an audit's model embeds in one job, its longest, which every score job waits for: it goes
#: before the LPBS and data-set jobs (measured: a 135M causal LM's audit ran 10 min with it
#: last, its embedding started 6 min in); a default run keeps its measured packing
EMBED_PRIORITY = 15 if AUDIT else 0


for MODEL, MODEL_SOURCES in PLAN.embedding_models.items():
    if MODEL in PLAN.elmo_models:  # rules/elmo.smk
        continue

    rule:
        """Every test a model runs on every source, encoded with the model loaded once into
        the cache of embeddings files by signature (the bytes of the contexts, the model, its
        settings, the extraction settings, the code): a test already there is not encoded
        again. Each test's file (all its target descriptors, a group each, to HDF5) is copied
        from the cache, verified."""
        name:
            group_rule("embed", MODEL)
        input:
            contexts=[
                f
                for source in MODEL_SOURCES
                for f in PLAN.group_context_files(MODEL, source)
            ],
            model=paths.MODEL,
        output:
            [
                paths.EMBEDDINGS.format(model="{model}", source=source, test=test)
                for source, tests in MODEL_SOURCES.items()
                for test in tests
            ],
        log:
            "results/logs/embed/{model}.log",
        benchmark:
            "results/benchmarks/embed/{model}.tsv"
        wildcard_constraints:
            model=re.escape(MODEL),
        # an audit's longest job, which every score job waits for: first (EMBED_PRIORITY)
        priority: EMBED_PRIORITY
        conda:
            ENV
        threads: 1
        resources:
            gpu=int(config["compute"]["device"] == "cuda"),
            mem_mb=4000,
            runtime=sum(PLAN.group_runtime(MODEL, source) for source in MODEL_SOURCES),
        params:
            device=config["compute"]["device"],
            dtype=config["compute"]["dtype"]["extraction"],
            spec=model_settings,
            tests={source: PLAN.group_tests(MODEL, source) for source in MODEL_SOURCES},
            extraction=config["extraction"],
            cache={
                source: PLAN.embedding_cache(MODEL, source) for source in MODEL_SOURCES
            },
        script:
            "../workflow_scripts/embed_group.py"
