for MODEL, MODEL_DATASETS in PLAN.logprob_models.items():
    KL = PLAN.study_outputs(MODEL, "kl")
    GENERATED = PLAN.study_outputs(MODEL, "generated")

    rule:
        """Every log-probability a model owes outside LPBS, the model loaded once: the
        probability-based measures of each of its data sets (CrowS-Pairs, StereoSet, BEC-Pro,
        WinoBias, DisCo, LPBS on salary titles) with how many items each scored; then what
        the studies read: the KL divergence of each template's slot distribution from T1's
        (the template study) and seeded unconditional samples of a causal LM (DivDist's
        amplification experiment, adapted). Each through the cache of per-test results.
        """
        name:
            group_rule("dataset_scores", MODEL)
        input:
            files=[
                f
                for d in MODEL_DATASETS
                for files in PLAN.dataset_test_inputs(MODEL, d).values()
                for f in files
            ],
            templates=[TEMPLATE_STUDY_INPUTS["templates"]] if KL else [],
            lists=[TEMPLATE_STUDY_INPUTS["lists"]] if KL else [],
            model=paths.MODEL,
        output:
            scores=expand(paths.DATASET, dataset=MODEL_DATASETS, allow_missing=True),
            coverage=expand(
                paths.DATASET_COVERAGE, dataset=MODEL_DATASETS, allow_missing=True
            ),
            outcomes=expand(
                paths.DATASET_OUTCOMES, dataset=MODEL_DATASETS, allow_missing=True
            ),
            kl=KL,
            generated=GENERATED,
        log:
            "results/logs/datasets/{model}.log",
        benchmark:
            "results/benchmarks/datasets/{model}.tsv"
        wildcard_constraints:
            model=re.escape(MODEL),
        # the longest single jobs go first (longest-first packing: no lone long job at the end)
        priority: 5
        conda:
            ENV
        threads: 1
        resources:
            gpu=int(config["compute"]["device"] == "cuda"),
            mem_mb=6000,
            runtime=60 * len(MODEL_DATASETS) + 20 * len(KL) + 30 * len(GENERATED),
        params:
            inputs_sha256=own_input_digests(group_rule("dataset_scores", MODEL)),
            tests={d: PLAN.dataset_test_inputs(MODEL, d) for d in MODEL_DATASETS},
            limits={d: PLAN.dataset_limit(d) for d in MODEL_DATASETS},
            cache=PLAN.test_cache(MODEL, "dataset_scores"),
            device=config["compute"]["device"],
            dtype=config["compute"]["dtype"]["logprobs"],
            spec=model_settings,
            batch=setting("datasets", "batch") if MODEL_DATASETS else 0,
            too_long=setting("datasets", "too_long") if MODEL_DATASETS else "",
            scoring=config["scoring"],
            seed=config["seed"],
            kl=settings("delobelle", "kl_candidates") if KL else {},
            generation=(
                settings(
                    "bommasani.generation", "samples", "tokens", "temperature", "batch"
                )
                if GENERATED
                else {}
            ),
            study_cache={
                stage: PLAN.test_cache(MODEL, stage)
                for stage in ["template_kl", "divdist_generate"]
            },
        script:
            "../workflow_scripts/dataset_scores.py"


rule unplanned_dataset:
    """A data set's files that the configuration does not plan for the model (a target typed
    by hand): the planner's error naming the field, before any job."""
    input:
        refuse(PLAN.planned_dataset, "model", "dataset"),
    output:
        paths.DATASET,
        paths.DATASET_COVERAGE,
        paths.DATASET_OUTCOMES,
    wildcard_constraints:
        model=names_except_files([f"{m}/{d}" for m, d in PLAN.dataset_jobs]),
