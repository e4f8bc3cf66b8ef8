rule figure:
    """One paper figure as PNG and PDF, from the tidy score table."""
    input:
        scores="results/scores/all.tsv",
    output:
        png="results/figures/{figure}.png",
        pdf="results/figures/{figure}.pdf",
    log:
        "results/logs/figure/{figure}.log",
    conda:
        ENV
    script:
        "../workflow_scripts/make_figure.py"
