DIVDIST_DATA = [
    paths.EXTERNAL.format(file_id="helm_word_lists"),
    paths.EXTERNAL.format(file_id="garg_census_gender"),
    paths.EXTERNAL.format(file_id="garg_census_race"),
]


rule divdist_text:
    """Bommasani & Liang's automated-text source on one corpus: exclusive co-occurrence of each
    census profession with each group's words in contexts of k sentences (and HELM's form).
    """
    input:
        files=of_wildcards(PLAN.corpus_files, "corpus"),
        data=DIVDIST_DATA,
    output:
        paths.DIVDIST_TEXT,
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
        study=settings("bommasani", "census_year", "k"),
    script:
        "../workflow_scripts/divdist_text.py"


rule divdist_contexts:
    """Seeded sentences of every profession and group word from the study's corpora, for the
    representation-reduction and probe sources."""
    input:
        files=when_asked(PLAN.divdist_corpus_files),
        data=DIVDIST_DATA,
    output:
        paths.DIVDIST_CONTEXTS,
    log:
        "results/logs/divdist_contexts.log",
    conda:
        ENV
    resources:
        mem_mb=3000,
        runtime=15,
    params:
        inputs_sha256=own_input_digests("divdist_contexts"),
        parts=when_asked(PLAN.divdist_corpus_parts),
        study=settings("bommasani", "census_year", "contexts"),
        seed=config["seed"],
    script:
        "../workflow_scripts/divdist_contexts.py"


rule divdist_study:
    """DivDist per profession from every source, and the validity protocol: face, predictive
    (census 2010, beside the prior measures), mitigation (hard debiasing), amplification.
    """
    input:
        data=DIVDIST_DATA,
        definitional=paths.EXTERNAL.format(file_id="debiaswe_definitional_pairs"),
        equality=paths.EXTERNAL.format(file_id="debiaswe_equalize_pairs"),
        text=when_asked(PLAN.divdist_text_files),
        contexts=paths.DIVDIST_CONTEXTS,
        vectors=when_asked(PLAN.divdist_vector_files),
        generated=when_asked(PLAN.divdist_generated_files),
        static=when_asked(PLAN.divdist_static_files),
    output:
        strengths=paths.DIVDIST_STUDY.format(name="strengths.tsv"),
        bias=paths.DIVDIST_STUDY.format(name="bias.tsv"),
        validity=paths.DIVDIST_STUDY.format(name="validity.json"),
        scores=paths.DIVDIST_STUDY.format(name="scores.tsv"),
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
        study=settings("bommasani", "census_year", "k", "negative"),
        specs=when_asked(PLAN.divdist_static_specs),
        seed=config["seed"],
    script:
        "../workflow_scripts/divdist_study.py"
