rule table:
    """One paper table as CSV (long, with p-values) and Markdown (wide, as printed)."""
    input:
        lambda w: TABLES[w.table].inputs(PLAN),
    output:
        csv="results/tables/{table}.csv",
        # the CSV's checksum, which its readers check (biasbench.io.write_table_csv)
        sha256="results/tables/{table}.csv.sha256",
        md="results/tables/{table}.md",
        html=report(
            "results/tables/{table}.html",
            caption="../resources/report/table.rst",
            category=lambda w: report_section(w.table),
            labels={"name": "{table}"},
        ),
    log:
        "results/logs/table/{table}.log",
    conda:
        ENV
    params:
        inputs_sha256=own_input_digests("table"),
        settings=REPORT_SETTINGS,
        caption=lambda w: TABLES[w.table].caption,
    script:
        "../workflow_scripts/make_table.py"
