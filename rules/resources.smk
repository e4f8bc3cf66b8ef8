from biasbench.data.external import fetched_entry, load_manifest

#: the pinned upstream files (their ids, sources and sha256)
MANIFEST = load_manifest("resources/external.yaml")


rule fetch_external:
    """A pinned upstream file, checked against its sha256 (copied from $BIAS_DATA_MIRROR if set)."""
    output:
        paths.EXTERNAL,
    log:
        "results/logs/fetch_external/{file_id}.log",
    # bookkeeping that gates the whole DAG (under a second each): first, or it waits
    # behind every prioritised job and holds back the work that depends on it
    priority: 40
    conda:
        ENV
    params:
        entry=of_wildcards(fetched_entry, "file_id", manifest=MANIFEST),
    script:
        "../workflow_scripts/fetch_external.py"


rule wordset:
    """One descriptor of a bias test, resolved and validated."""
    input:
        yaml="resources/wordsets/{test}.yaml",
        external=of_wildcards(PLAN.wordset_externals, "test"),
    output:
        paths.WORDSET,
    log:
        "results/logs/wordset/{test}/{descriptor}.log",
    # bookkeeping that gates the whole DAG (under a second each): first, or it waits
    # behind every prioritised job and holds back the work that depends on it
    priority: 40
    conda:
        ENV
    params:
        inputs_sha256=own_input_digests("wordset"),
    script:
        "../workflow_scripts/resolve_wordset.py"
