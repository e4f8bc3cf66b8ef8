rule template_contexts:
    """Each stimulus filled into every single-slot template of its kind, with its span."""
    input:
        wordset="results/wordsets/{test}/{descriptor}.json",
        templates=PLAN.template_file,
        external=external_inputs(PLAN.template_file),
    output:
        "results/contexts/templates/{test}/{descriptor}.tsv",
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
        wordset="results/wordsets/{test}/{descriptor}.json",
    output:
        "results/contexts/words/{test}/{descriptor}.tsv",
    log:
        "results/logs/contexts/words/{test}/{descriptor}.log",
    # bookkeeping that gates the whole DAG (under a second each): first, or it waits
    # behind every prioritised job and holds back the work that depends on it
    priority: 40
    conda:
        ENV
    script:
        "../workflow_scripts/make_contexts.py"
