rule lpbs_spec:
    """A test's LPBS settings (template categories, plural targets, adjective forms)."""
    input:
        yaml="resources/wordsets/{test}.yaml",
        external=of_wildcards(PLAN.wordset_externals, "test"),
    output:
        paths.LPBS_SPEC,
    log:
        "results/logs/lpbs_spec/{test}.log",
    # bookkeeping that gates the whole DAG (under a second each): first, or it waits
    # behind every prioritised job and holds back the work that depends on it
    priority: 40
    conda:
        ENV
    params:
        inputs_sha256=own_input_digests("lpbs_spec"),
    script:
        "../workflow_scripts/resolve_lpbs_spec.py"


#: the tests every LPBS model runs, and the corpora of p-CEAT: one job per model computes them
#: (each output lists their files in that order: corpus by corpus, test by test)
LPBS_TESTS = PLAN.lpbs_tests
LPBS_CORPORA = list(PLAN.lpbs_corpora)


if LPBS_TESTS:

    rule lpbs_templates:
        """LPBS on double-slot templates, every test of a model with the model loaded once:
        every descriptor, word-set variant and attribute form, and the templates'
        log-probabilities, each test's files through the cache of per-test results.
        """
        input:
            files=of_wildcards(PLAN.lpbs_model_inputs, "model", corpora=["templates"]),
            model=paths.MODEL,
        output:
            scores=[
                paths.fill(paths.LPBS, corpus=c, test=t)
                for c in ["templates"]
                for t in LPBS_TESTS
            ],
            logprobs=[
                paths.fill(paths.LPBS_LOGPROBS, corpus=c, test=t)
                for c in ["templates"]
                for t in LPBS_TESTS
            ],
        log:
            "results/logs/lpbs/{model}/templates.log",
        benchmark:
            "results/benchmarks/lpbs/{model}/templates.tsv"
        # the longest single jobs go first (longest-first packing: no lone long job at the end)
        priority: 10
        conda:
            ENV
        threads: 1
        resources:
            gpu=int(config["compute"]["device"] == "cuda"),
            mem_mb=4000,
            runtime=30 * len(LPBS_TESTS),
        params:
            inputs_sha256=own_input_digests("lpbs_templates"),
            tests=of_wildcards(PLAN.lpbs_model_tests, "model", corpora=["templates"]),
            cache=of_wildcards(PLAN.test_cache, "model", stage="lpbs_templates"),
            device=config["compute"]["device"],
            dtype=config["compute"]["dtype"]["logprobs"],
            spec=model_settings,
            scoring=config["scoring"],
            seed=config["seed"],
            batch=LPBS.get("batch"),
        script:
            "../workflow_scripts/lpbs_templates.py"


rule sample_pairs:
    """One pass over a corpus: up to N seeded contexts per (target, attribute) pair of the
    LPBS tests, both stimuli at most the largest configured gap apart and passing a case
    policy."""
    input:
        files=of_wildcards(PLAN.corpus_files, "corpus"),
        wordsets=PLAN.lpbs_wordset_files(),
    output:
        paths.PAIRS,
    log:
        "results/logs/sample_pairs/{corpus}/{case}.log",
    benchmark:
        "results/benchmarks/sample_pairs/{corpus}/{case}.tsv"
    # a short job that gates long ones (the natural-context embeddings, p-CEAT): without
    # a priority it waits behind every prioritised job and their work ends the run
    priority: 25
    conda:
        ENV
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        inputs_sha256=own_input_digests("sample_pairs"),
        parts=corpus_parts,
        lpbs=settings("lpbs", "per_pair", "max_gap", "window_sweep"),
        sampling=config["sampling"],
        seed=config["seed"],
    script:
        "../workflow_scripts/sample_pairs.py"


if LPBS_TESTS and LPBS_CORPORA:

    rule lpbs_corpus:
        """Probability-based CEAT on the corpora, every (corpus, test) of a model with the
        model loaded once: LPBS bias scores per sampled context, combined as in CEAT; also the
        window-size sweep, the per-sample effect sizes and the contexts' log-probabilities,
        each test's files through the cache of per-test results."""
        input:
            files=of_wildcards(PLAN.lpbs_model_inputs, "model", corpora=LPBS_CORPORA),
            model=paths.MODEL,
        output:
            scores=[
                paths.fill(paths.LPBS, corpus=c, test=t)
                for c in LPBS_CORPORA
                for t in LPBS_TESTS
            ],
            sweep=[
                paths.fill(paths.LPBS_SWEEP, corpus=c, test=t)
                for c in LPBS_CORPORA
                for t in LPBS_TESTS
            ],
            samples=[
                paths.fill(paths.LPBS_SAMPLES, corpus=c, test=t)
                for c in LPBS_CORPORA
                for t in LPBS_TESTS
            ],
            logprobs=[
                paths.fill(paths.LPBS_LOGPROBS, corpus=c, test=t)
                for c in LPBS_CORPORA
                for t in LPBS_TESTS
            ],
        log:
            "results/logs/lpbs/{model}/corpora.log",
        benchmark:
            "results/benchmarks/lpbs/{model}/corpora.tsv"
        # the longest single jobs go first (longest-first packing: no lone long job at the end)
        priority: 10
        conda:
            ENV
        threads: 1
        resources:
            gpu=int(config["compute"]["device"] == "cuda"),
            mem_mb=4000,
            runtime=60 * len(LPBS_TESTS) * len(LPBS_CORPORA),
        params:
            inputs_sha256=own_input_digests("lpbs_corpus"),
            tests=of_wildcards(PLAN.lpbs_model_tests, "model", corpora=LPBS_CORPORA),
            cache=of_wildcards(PLAN.test_cache, "model", stage="lpbs_corpus"),
            device=config["compute"]["device"],
            dtype=config["compute"]["dtype"]["logprobs"],
            spec=model_settings,
            lpbs=settings("lpbs", "max_gap", "window_sweep"),
            scoring=config["scoring"],
            seed=config["seed"],
        script:
            "../workflow_scripts/lpbs_corpus.py"
