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


rule unplanned_lpbs:
    """An LPBS or p-CEAT file the configuration does not plan (a target typed by hand; the
    planned ones come from the model's log-probability job): the planner's error naming the
    field, before any job."""
    input:
        refuse(PLAN.planned_lpbs, "model", "corpus", "test"),
    output:
        paths.LPBS,
        paths.LPBS_LOGPROBS,
        paths.LPBS_SWEEP,
        paths.LPBS_SAMPLES,
    wildcard_constraints:
        model=names_except_files(
            [
                f.removeprefix("results/lpbs/").removesuffix(".tsv")
                for f in PLAN.lpbs_files()
            ]
        ),
        corpus="[^/]+",  # "templates" or a corpus of p-CEAT
        test="[^/.]+",
