rule word_pieces:
    """The word pieces of every stimulus a base transformer's null models encode, counted in
    its template contexts with its tokenizer alone (no weights): what tells the null cells
    whose X and Y words differ in piece count from the balanced ones (synthesis_null,
    synthesis_tokenization)."""
    input:
        model=paths.MODEL,
        contexts=of_wildcards(PLAN.tokenization_context_files, "model"),
    output:
        paths.TOKENIZATION,
    log:
        "results/logs/word_pieces/{model}.log",
    benchmark:
        "results/benchmarks/word_pieces/{model}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        tests=of_wildcards(PLAN.tokenization_tests, "model"),
        spec=model_settings,
    script:
        "../workflow_scripts/word_pieces.py"
