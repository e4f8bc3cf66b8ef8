rule figure:
    """One paper figure as PNG and PDF, from only the files it shows."""
    input:
        unpack(of_wildcard("figure", figure_inputs)),
    output:
        png=report(
            "results/figures/{figure}.png",
            caption="../resources/report/figure.rst",
            category=of_wildcard("figure", report_section),
            labels={"name": "{figure}"},
        ),
        pdf="results/figures/{figure}.pdf",
    log:
        "results/logs/figure/{figure}.log",
    conda:
        ENV
    params:
        inputs_sha256=own_input_digests("figure"),
        settings=REPORT_SETTINGS,
        caption=of_wildcard("figure", figure_caption),
    script:
        "../workflow_scripts/make_figure.py"
