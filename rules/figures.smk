rule figure:
    """One paper figure as PNG and PDF, from only the files it shows."""
    input:
        lambda w: FIGURES[w.figure].inputs(PLAN),
    output:
        png=report(
            "results/figures/{figure}.png",
            caption="../resources/report/figure.rst",
            category=lambda w: report_section(w.figure),
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
        caption=lambda w: FIGURES[w.figure].caption,
    script:
        "../workflow_scripts/make_figure.py"
