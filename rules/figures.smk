rule figure:
    """One paper figure as PNG and PDF, from only the files it shows."""
    input:
        lambda w: FIGURES[w.figure].inputs(PLAN),
    output:
        png="results/figures/{figure}.png",
        pdf="results/figures/{figure}.pdf",
    log:
        "results/logs/figure/{figure}.log",
    conda:
        ENV
    params:
        settings=report_settings(),
    script:
        "../workflow_scripts/make_figure.py"
