rule table:
    """One paper table as CSV (long, with p-values) and Markdown (wide, as printed)."""
    input:
        lambda w: TABLES[w.table].inputs(PLAN),
    output:
        csv="results/tables/{table}.csv",
        md="results/tables/{table}.md",
    log:
        "results/logs/table/{table}.log",
    conda:
        ENV
    params:
        settings=report_settings(),
    script:
        "../workflow_scripts/make_table.py"
