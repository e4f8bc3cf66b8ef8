rule figure:
    """One paper figure as PNG and PDF, from the files it shows."""
    input:
        lambda w: figure_inputs(w.figure),
    output:
        png="results/figures/{figure}.png",
        pdf="results/figures/{figure}.pdf",
    log:
        "results/logs/figure/{figure}.log",
    conda:
        ENV
    params:
        alpha=config["alpha"],
    script:
        "../workflow_scripts/make_figure.py"
