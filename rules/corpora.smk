rule sample_corpus:
    """One pass over a corpus: up to N seeded contexts per stimulus of every test, counting
    the occurrences that pass a case policy (`any`, or `exact` for cased models)."""
    input:
        files=of_wildcards(PLAN.corpus_files, "corpus"),
        wordsets=PLAN.wordset_files(),
    output:
        samples=paths.CORPUS_SAMPLES,
        coverage=paths.CORPUS_COVERAGE,
    log:
        "results/logs/sample_corpus/{corpus}/{case}.log",
    benchmark:
        "results/benchmarks/sample_corpus/{corpus}/{case}.tsv"
    # a short job that gates long ones (the natural-context embeddings, p-CEAT): without
    # a priority it waits behind every prioritised job and their work ends the run
    priority: 25
    conda:
        ENV
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        inputs_sha256=own_input_digests("sample_corpus"),
        parts=corpus_parts,
        sampling=config["sampling"],
        seed=config["seed"],
    script:
        "../workflow_scripts/sample_corpus.py"


rule corpus_contexts:
    """A test's natural contexts: its stimuli's samples, cut to the word window."""
    input:
        samples=paths.CORPUS_SAMPLES,
        wordset=paths.WORDSET,
    output:
        paths.CORPUS_CONTEXTS,
    log:
        "results/logs/contexts/{corpus}/{case}/{test}/{descriptor}.log",
    # a short job that gates long ones (the natural-context embeddings, p-CEAT): without
    # a priority it waits behind every prioritised job and their work ends the run
    priority: 25
    conda:
        ENV
    params:
        window=config["sampling"]["window_words"] > 0,
    script:
        "../workflow_scripts/make_contexts.py"
