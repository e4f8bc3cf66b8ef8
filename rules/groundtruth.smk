rule groundtruth_models:
    """The ground-truth study's models of one mean male probability: every sigma and repeat,
    fine-tuned and measured (the frozen part of the masked LM computed once per job)."""
    input:
        model=lambda w: f"results/models/{config['groundtruth']['model']}/biasbench_model.json",
        occupations="resources/lists/schroeder2021_occupations.yaml",
        train="resources/templates/schroeder2021_train.yaml",
        test="resources/templates/schroeder2021_test.yaml",
        pairs="results/external/debiaswe_definitional_pairs",
        professions="results/external/debiaswe_professions",
    output:
        "results/studies/groundtruth/mu{mu}.json",
    log:
        "results/logs/groundtruth/mu{mu}.log",
    benchmark:
        "results/benchmarks/groundtruth/mu{mu}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        study=config["groundtruth"],
        seed=config["seed"],
    script:
        "../workflow_scripts/groundtruth_models.py"
