from biasbench.reports.catalog import PROVENANCE


rule provenance:
    """The report's provenance page: the config, each model's source and version, and every
    score's seed and input signature."""
    input:
        scores=SCORES_TABLE,
        models=expand(paths.MODEL, model=config["models"]),
    output:
        report(
            PROVENANCE_PAGE,
            caption="../resources/report/provenance.rst",
            category=PROVENANCE,
        ),
    log:
        "results/logs/provenance.log",
    conda:
        ENV
    params:
        config=config,
    script:
        "../workflow_scripts/provenance.py"
