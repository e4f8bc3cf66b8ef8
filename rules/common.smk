"""Helpers shared by the rules."""


def model_params(name, keys=("kind", "source", "revision", "lowercase", "layer")):
    """The model settings a job depends on (not its test list), so editing which tests a
    model runs does not re-prepare or re-embed it."""
    model_spec(config, name)  # an unknown name fails naming the configured models
    return {k: v for k, v in config["models"][name].items() if k in keys}


def external_inputs(resource):
    return [f"results/external/{i}" for i in external_ids(resource)]


def figure_inputs(figure):
    """Only what a figure shows, so `snakemake <figure>` builds no more than that."""
    lpbs = config.get("lpbs") or {}
    models, corpora = PLAN.lpbs_corpus_models, lpbs.get("corpora", [])
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
