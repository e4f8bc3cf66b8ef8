rule template_sensitivity:
    """Delobelle et al.'s template study on one model: the WEAT effect size of every profession
    subset, per template T1-T11 and word representation."""
    input:
        model=paths.MODEL,
        templates="resources/templates/delobelle2022_sensitivity.yaml",
        lists="resources/lists/delobelle2022.yaml",
    output:
        paths.fill(paths.TEMPLATE_STUDY, name="sensitivity"),
    log:
        "results/logs/template_sensitivity/{model}.log",
    benchmark:
        "results/benchmarks/template_sensitivity/{model}.tsv"
    # the longest single jobs go first (longest-first packing: no lone long job at the end)
    priority: 5
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=20,
    params:
        inputs_sha256=own_input_digests("template_sensitivity"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["extraction"],
        spec=model_settings,
        study=settings("delobelle", "subsets", "subset_size"),
        extraction=config["extraction"],
    script:
        "../workflow_scripts/template_sensitivity.py"


rule template_kl:
    """KL divergence of each template's slot distribution from T1's, over the vocabulary and
    over the gendered words, on one model with a language-model head."""
    input:
        model=paths.MODEL,
        templates="resources/templates/delobelle2022_sensitivity.yaml",
        lists="resources/lists/delobelle2022.yaml",
    output:
        paths.fill(paths.TEMPLATE_STUDY, name="kl"),
    log:
        "results/logs/template_kl/{model}.log",
    benchmark:
        "results/benchmarks/template_kl/{model}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=6000,
        runtime=20,
    params:
        inputs_sha256=own_input_digests("template_kl"),
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["logprobs"],
        spec=model_settings,
        study=settings("delobelle", "kl_candidates"),
    script:
        "../workflow_scripts/template_kl.py"
