def figure_inputs(figure):
    """Only what a figure shows, so `snakemake <figure>` builds no more than that."""
    lpbs = config.get("lpbs") or {}
    models, corpora = lpbs.get("models", []), lpbs.get("corpora", [])
    if figure == "figure2_vocabulary":
        return [f"results/lpbs/{m}/templates/{t}.tsv" for m, t in PLAN.lpbs_jobs]
    lpbs_tests = {t for _m, t in PLAN.lpbs_jobs}
    if figure == "figure3_distributions":  # C1 on the first LPBS model
        model = models[:1]
        return [
            f"results/scores/{job.stem}.samples.npz"
            for job in PLAN.jobs
            if (job.model, job.source, job.test) == (*model, "templates", "C1")
            and job.descriptor in ("names", "simplified")
        ] + [
            f"results/lpbs/{m}/{c}/C1.samples.npz"
            for m in model
            for c in corpora
            if "C1" in lpbs_tests
        ]
    if figure == "figure4_window":
        return [
            f"results/lpbs/{m}/{c}/{t}.sweep.tsv"
            for m in models
            for c in corpora
            for t in ("C1", "C9")
            if t in lpbs_tests
        ]
    return ["results/scores/all.tsv"]


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
