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


rule lpbs_templates:
    """LPBS on double-slot templates: every descriptor, word-set variant and attribute form,
    and the templates' log-probabilities."""
    input:
        spec=paths.LPBS_SPEC,
        wordsets=of_wildcards(PLAN.lpbs_wordsets_of, "test"),
        templates=PLAN.lpbs_template_file,
        external=when_asked(PLAN.lpbs_template_externals),
        model=paths.MODEL,
    output:
        scores=paths.fill(paths.LPBS, corpus="templates"),
        logprobs=paths.fill(paths.LPBS_LOGPROBS, corpus="templates"),
    log:
        "results/logs/lpbs/{model}/templates/{test}.log",
    benchmark:
        "results/benchmarks/lpbs/{model}/templates/{test}.tsv"
    # the longest single jobs go first (longest-first packing: no lone long job at the end)
    priority: 10
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=30,
    params:
        inputs_sha256=own_input_digests("lpbs_templates"),
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


rule lpbs_corpus:
    """Probability-based CEAT on a corpus: LPBS bias scores per sampled context, combined
    as in CEAT; also the window-size sweep, the per-sample effect sizes and the contexts'
    log-probabilities."""
    input:
        pairs=of_wildcards(PLAN.pairs_file, "model", "corpus"),
        wordsets=of_wildcards(PLAN.lpbs_wordsets_of, "test"),
        model=paths.MODEL,
    output:
        scores=paths.LPBS,
        sweep=paths.LPBS_SWEEP,
        samples=paths.LPBS_SAMPLES,
        logprobs=paths.LPBS_LOGPROBS,
    log:
        "results/logs/lpbs/{model}/{corpus}/{test}.log",
    benchmark:
        "results/benchmarks/lpbs/{model}/{corpus}/{test}.tsv"
    # the longest single jobs go first (longest-first packing: no lone long job at the end)
    priority: 10
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=60,
    params:
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["logprobs"],
        spec=model_settings,
        lpbs=settings("lpbs", "max_gap", "window_sweep"),
        scoring=config["scoring"],
        seed=config["seed"],
    script:
        "../workflow_scripts/lpbs_corpus.py"
