for (MODEL, SOURCE), GROUP_TESTS in PLAN.source_groups.items():

    rule:
        """Every registered method on context vectors (WEAT, s-SEAT, w-SEAT, CEAT, MAC, ...)
        for every descriptor of every test a model runs on a source, in one job (scoring a
        test takes a second, a job's start about as long); each test's files through the
        cache of per-test results."""
        name:
            group_rule("score", MODEL, SOURCE)
        input:
            [
                f
                for t in GROUP_TESTS
                for files in PLAN.score_test_inputs(MODEL, SOURCE, t).values()
                for f in files
            ],
        output:
            scores=expand(paths.SCORES, test=GROUP_TESTS, allow_missing=True),
            samples=expand(paths.SAMPLES, test=GROUP_TESTS, allow_missing=True),
        log:
            "results/logs/score/{model}/{source}.log",
        benchmark:
            "results/benchmarks/score/{model}/{source}.tsv"
        wildcard_constraints:
            model=re.escape(MODEL),
            source=re.escape(SOURCE),
        conda:
            ENV
        resources:
            mem_mb=2000,
            runtime=5 + 5 * len(GROUP_TESTS),
        params:
            tests={t: PLAN.score_test_inputs(MODEL, SOURCE, t) for t in GROUP_TESTS},
            descriptors={t: PLAN.descriptors_of(MODEL, SOURCE, t) for t in GROUP_TESTS},
            cache=PLAN.test_cache(MODEL, "score"),
            scoring=config["scoring"],
            seed=config["seed"],
            spec=model_settings,
        script:
            "../workflow_scripts/score.py"


rule collect_scores:
    """All score rows (WEAT family, CEAT, LPBS, the data sets, DivDist) in one tidy table."""
    input:
        PLAN.score_files()
        + PLAN.lpbs_files()
        + PLAN.dataset_score_files()
        + PLAN.study_score_files(),
    output:
        SCORES_TABLE,
    log:
        "results/logs/collect_scores.log",
    conda:
        ENV
    params:
        # a row whose permutation test cannot reach alpha gets a note saying so
        alpha=config["alpha"],
    script:
        "../workflow_scripts/collect_scores.py"


rule unplanned_test:
    """A test's embeddings or scores that the configuration does not plan for the model on
    the source (a target typed by hand): the planner's error naming the field, before any
    job."""
    input:
        refuse(PLAN.planned_test, "model", "source", "test"),
    output:
        paths.EMBEDDINGS,
        paths.SCORES,
        paths.SAMPLES,
    wildcard_constraints:
        model=names_except_files([f"{j.model}/{j.source}/{j.test}" for j in PLAN.jobs]),
