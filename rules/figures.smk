def figure_inputs(figure):
    """Only what a figure shows, so `snakemake <figure>` builds no more than that."""
    if figure == "figure2_vocabulary":
        return PLAN.lpbs_files()
    return ["results/scores/all.tsv"]


rule figure:
    """One paper figure as PNG and PDF, from score rows."""
    input:
        scores=lambda w: figure_inputs(w.figure),
    output:
        png="results/figures/{figure}.png",
        pdf="results/figures/{figure}.pdf",
    log:
        "results/logs/figure/{figure}.log",
    conda:
        ENV
    script:
        "../workflow_scripts/make_figure.py"
