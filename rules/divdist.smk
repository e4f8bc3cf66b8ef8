DIVDIST = config["bommasani"] or {}
DIVDIST_DATA = [
    "results/external/helm_word_lists",
    "results/external/garg_census_gender",
    "results/external/garg_census_race",
]


rule divdist_text:
    """Bommasani & Liang's automated-text source on one corpus: exclusive co-occurrence of each
    census profession with each group's words in contexts of k sentences (and HELM's form).
    """
    input:
        files=corpus_files,
        data=DIVDIST_DATA,
    output:
        "results/studies/divdist/text/{corpus}.tsv",
    log:
        "results/logs/divdist_text/{corpus}.log",
    benchmark:
        "results/benchmarks/divdist_text/{corpus}.tsv"
    conda:
        ENV
    resources:
        mem_mb=3000,
        runtime=15,
    params:
        inputs_sha256=own_input_digests("divdist_text"),
        parts=corpus_parts,
        study=lambda w: settings_of("bommasani", "census_year", "k"),
    script:
        "../workflow_scripts/divdist_text.py"


rule divdist_contexts:
    """Seeded sentences of every profession and group word from the study's corpora, for the
    representation-reduction and probe sources."""
    input:
        files=lambda w: [f for c in DIVDIST["corpora"] for f in PLAN.corpus_files(c)],
        data=DIVDIST_DATA,
    output:
        "results/studies/divdist/contexts.tsv",
    log:
        "results/logs/divdist_contexts.log",
    conda:
        ENV
    resources:
        mem_mb=3000,
        runtime=15,
    params:
        inputs_sha256=own_input_digests("divdist_contexts"),
        parts=lambda w: [p for c in DIVDIST["corpora"] for p in PLAN.corpus_parts[c]],
        study=lambda w: settings_of("bommasani", "census_year", "contexts"),
        seed=config["seed"],
    script:
        "../workflow_scripts/divdist_contexts.py"


rule divdist_vectors:
    """One contextual model's final-layer vector of the word in each study context (a decoder
    reads each context only up to the word: its vector depends on nothing after it)."""
    input:
        model="results/models/{model}/biasbench_model.json",
        contexts="results/studies/divdist/contexts.tsv",
    output:
        "results/studies/divdist/vectors/{model}.npz",
    log:
        "results/logs/divdist_vectors/{model}.log",
    benchmark:
        "results/benchmarks/divdist_vectors/{model}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=20,
    params:
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["extraction"],
        spec=model_settings,
        extraction=config["extraction"],
    script:
        "../workflow_scripts/divdist_vectors.py"


rule divdist_generate:
    """Seeded unconditional samples of a causal LM (the amplification experiment, adapted)."""
    input:
        model="results/models/{model}/biasbench_model.json",
    output:
        "results/studies/divdist/generated/{model}.tsv",
    log:
        "results/logs/divdist_generate/{model}.log",
    benchmark:
        "results/benchmarks/divdist_generate/{model}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        gpu=int(config["compute"]["device"] == "cuda"),
        mem_mb=4000,
        runtime=30,
    params:
        device=config["compute"]["device"],
        dtype=config["compute"]["dtype"]["logprobs"],
        spec=model_settings,
        generation=lambda w: settings_of(
            "bommasani.generation", "samples", "tokens", "temperature", "batch"
        ),
        seed=config["seed"],
    script:
        "../workflow_scripts/divdist_generate.py"


rule divdist_study:
    """DivDist per profession from every source, and the validity protocol: face, predictive
    (census 2010, beside the prior measures), mitigation (hard debiasing), amplification.
    """
    input:
        data=DIVDIST_DATA,
        definitional="results/external/debiaswe_definitional_pairs",
        equality="results/external/debiaswe_equalize_pairs",
        text=lambda w: [
            f"results/studies/divdist/text/{c}.tsv" for c in DIVDIST["corpora"]
        ],
        contexts="results/studies/divdist/contexts.tsv",
        vectors=lambda w: [
            f"results/studies/divdist/vectors/{m}.npz"
            for m in DIVDIST["contextual_models"]
        ],
        generated=lambda w: [
            f"results/studies/divdist/generated/{m}.tsv"
            for m in (
                [DIVDIST["generation"]["model"]] if DIVDIST["generation"] else []
            )
        ],
        static=lambda w: [
            f"results/models/{m}/biasbench_model.json"
            for m in DIVDIST["static_models"]
        ],
    output:
        strengths="results/studies/divdist/strengths.tsv",
        bias="results/studies/divdist/bias.tsv",
        validity="results/studies/divdist/validity.json",
        scores="results/studies/divdist/scores.tsv",
    log:
        "results/logs/divdist_study.log",
    benchmark:
        "results/benchmarks/divdist_study.tsv"
    conda:
        ENV
    resources:
        mem_mb=4000,
        runtime=20,
    params:
        study=lambda w: settings_of("bommasani", "census_year", "k", "negative"),
        specs=lambda w: {m: model_params(m) for m in DIVDIST["static_models"]},
        seed=config["seed"],
    script:
        "../workflow_scripts/divdist_study.py"
