rule table:
    """One paper table as CSV (long, with p-values) and Markdown (wide, as printed)."""
    input:
        scores="results/scores/all.tsv",
        published="resources/published/husse2022.csv",
    output:
        csv="results/tables/{table}.csv",
        md="results/tables/{table}.md",
    log:
        "results/logs/table/{table}.log",
    conda:
        ENV
    params:
        models={name: m.get("paper_model") for name, m in config["models"].items()},
        alpha=config["alpha"],
    script:
        "../workflow_scripts/make_table.py"
