rule template_contexts:
    """Each stimulus filled into every single-slot template of its kind, with its span."""
    input:
        wordset=paths.WORDSET,
        templates=PLAN.template_file,
        external=PLAN.external_files(PLAN.template_file),
    output:
        paths.fill(paths.CONTEXTS, source="templates"),
    log:
        "results/logs/contexts/templates/{test}/{descriptor}.log",
    # bookkeeping that gates the whole DAG (under a second each): first, or it waits
    # behind every prioritised job and holds back the work that depends on it
    priority: 40
    conda:
        ENV
    params:
        inputs_sha256=own_input_digests("template_contexts"),
    script:
        "../workflow_scripts/make_contexts.py"


rule word_contexts:
    """The bare stimuli: the input of static word embeddings."""
    input:
        wordset=paths.WORDSET,
    output:
        paths.fill(paths.CONTEXTS, source="words"),
    log:
        "results/logs/contexts/words/{test}/{descriptor}.log",
    # bookkeeping that gates the whole DAG (under a second each): first, or it waits
    # behind every prioritised job and holds back the work that depends on it
    priority: 40
    conda:
        ENV
    script:
        "../workflow_scripts/make_contexts.py"
