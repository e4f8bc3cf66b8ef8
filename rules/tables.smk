rule table:
    """One paper table as CSV (long, with p-values) and Markdown (wide, as printed)."""
    input:
        unpack(of_wildcards(catalog_inputs, "table", catalog=TABLES)),
    output:
        csv=paths.TABLE,
        # the CSV's checksum, which its readers check (biasbench.io.write_table_csv)
        sha256=paths.TABLE_CHECKSUM,
        md=paths.TABLE_MARKDOWN,
        html=report(
            paths.TABLE_HTML,
            caption="../resources/report/table.rst",
            category=of_wildcards(report_section, "table"),
            labels={"name": "{table}"},
        ),
    log:
        "results/logs/table/{table}.log",
    conda:
        ENV
    params:
        inputs_sha256=own_input_digests("table"),
        settings=REPORT_SETTINGS,
        caption=of_wildcards(catalog_caption, "table", catalog=TABLES),
    script:
        "../workflow_scripts/make_table.py"
