rule figure:
    """One paper figure as PNG and PDF, from only the files it shows."""
    input:
        unpack(of_wildcards(catalog_inputs, "figure", catalog=FIGURES)),
    output:
        png=report(
            paths.FIGURE_PNG,
            caption="../resources/report/figure.rst",
            category=of_wildcards(report_section, "figure"),
            labels={"name": "{figure}"},
        ),
        pdf=paths.FIGURE_PDF,
    log:
        "results/logs/figure/{figure}.log",
    conda:
        ENV
    params:
        inputs_sha256=own_input_digests("figure"),
        settings=REPORT_SETTINGS,
        caption=of_wildcards(catalog_caption, "figure", catalog=FIGURES),
    script:
        "../workflow_scripts/make_figure.py"
