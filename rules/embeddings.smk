#: an audit's model embeds in one job, its longest, which every score job waits for: it goes
#: before the LPBS and data-set jobs (measured: a 135M causal LM's audit ran 10 min with it
#: last, its embedding started 6 min in); a default run keeps its measured packing
EMBED_PRIORITY = 15 if AUDIT else 0


for MODEL, MODEL_SOURCES in PLAN.vector_models.items():
    if MODEL in PLAN.elmo_models:  # rules/elmo.smk
        continue
    DIVDIST = PLAN.study_outputs(MODEL, "divdist")
    SENSITIVITY = PLAN.study_outputs(MODEL, "sensitivity")

    rule:
        """Every vector a model owes, encoded with the model loaded once. Every test on every
        source, into the cache of embeddings files by signature (the bytes of the contexts,
        the model, its settings, the extraction settings, the code): a test already there is
        not encoded again; each test's file (all its target descriptors, a group each, to
        HDF5) is copied from the cache, verified. Then what the studies read: the word's
        final-layer vector in each DivDist context, and the template study's WEAT effect
        size of every profession subset per template T1-T11 and word representation, each
        through the cache of per-test results."""
        name:
            group_rule("embed", MODEL)
        input:
            contexts=[
                f
                for source in MODEL_SOURCES
                for f in PLAN.group_context_files(MODEL, source)
            ],
            divdist=[paths.DIVDIST_CONTEXTS] if DIVDIST else [],
            templates=[TEMPLATE_STUDY_INPUTS["templates"]] if SENSITIVITY else [],
            lists=[TEMPLATE_STUDY_INPUTS["lists"]] if SENSITIVITY else [],
            model=paths.MODEL,
        output:
            embeddings=[
                paths.EMBEDDINGS.format(model="{model}", source=source, test=test)
                for source, tests in MODEL_SOURCES.items()
                for test in tests
            ],
            divdist=DIVDIST,
            sensitivity=SENSITIVITY,
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
            runtime=sum(PLAN.group_runtime(MODEL, source) for source in MODEL_SOURCES)
            + 20 * len(DIVDIST + SENSITIVITY),
        params:
            inputs_sha256=own_input_digests(group_rule("embed", MODEL)),
            device=config["compute"]["device"],
            dtype=config["compute"]["dtype"]["extraction"],
            spec=model_settings,
            tests={source: PLAN.group_tests(MODEL, source) for source in MODEL_SOURCES},
            extraction=config["extraction"],
            cache={
                source: PLAN.embedding_cache(MODEL, source) for source in MODEL_SOURCES
            },
            study=(
                settings("delobelle", "subsets", "subset_size") if SENSITIVITY else {}
            ),
            caches={
                stage: PLAN.test_cache(MODEL, stage)
                for stage in ["divdist_vectors", "template_sensitivity"]
            },
        script:
            "../workflow_scripts/embed_group.py"


rule unplanned_template_study:
    """A template study's file of a model the configuration does not plan (a target typed
    by hand; the planned ones come from the model's encoding and log-probability jobs): the
    planner's error naming the field, before any job."""
    input:
        refuse(PLAN.planned_template_study, "model", "name"),
    output:
        paths.TEMPLATE_STUDY,
    wildcard_constraints:
        model=names_except_files(
            [f"{m}/{n}" for n in ("sensitivity", "kl") for m in PLAN.study_models(n)]
        ),
        name="sensitivity|kl",
