for MODEL, MODEL_DATASETS in PLAN.logprob_models.items():
    LPBS_TEMPLATES = PLAN.lpbs_template_tests(MODEL)
    PCEAT = PLAN.pceat_tests(MODEL)
    KL = PLAN.study_outputs(MODEL, "kl")
    GENERATED = PLAN.study_outputs(MODEL, "generated")

    rule:
        """Every log-probability a model owes, the model loaded once: the probability-based
        measures of each of its data sets (CrowS-Pairs, StereoSet, BEC-Pro, WinoBias, DisCo,
        LPBS on salary titles) with how many items each scored; LPBS on double-slot templates
        and p-CEAT on the corpora's contexts, test by test; then what the studies read: the
        KL divergence of each template's slot distribution from T1's (the template study) and
        seeded unconditional samples of a causal LM (DivDist's amplification experiment,
        adapted). Each through the cache of per-test results.
        """
        name:
            group_rule("logprobs", MODEL)
        input:
            files=PLAN.logprob_inputs(MODEL),
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
            lpbs_scores=PLAN.lpbs_outputs(paths.LPBS, LPBS_TEMPLATES),
            lpbs_logprobs=PLAN.lpbs_outputs(paths.LPBS_LOGPROBS, LPBS_TEMPLATES),
            pceat_scores=PLAN.lpbs_outputs(paths.LPBS, PCEAT),
            pceat_sweep=PLAN.lpbs_outputs(paths.LPBS_SWEEP, PCEAT),
            pceat_samples=PLAN.lpbs_outputs(paths.LPBS_SAMPLES, PCEAT),
            pceat_logprobs=PLAN.lpbs_outputs(paths.LPBS_LOGPROBS, PCEAT),
            kl=KL,
            generated=GENERATED,
        log:
            "results/logs/logprobs/{model}.log",
        benchmark:
            "results/benchmarks/logprobs/{model}.tsv"
        wildcard_constraints:
            model=re.escape(MODEL),
        # the longest single jobs go first (longest-first packing: no lone long job at the end)
        priority: 10
        conda:
            ENV
        threads: 1
        resources:
            gpu=int(config["compute"]["device"] == "cuda"),
            mem_mb=6000,
            runtime=60 * len(MODEL_DATASETS)
            + 30 * len(LPBS_TEMPLATES)
            + 60 * len(PCEAT)
            + 20 * len(KL)
            + 30 * len(GENERATED),
        params:
            inputs_sha256=own_input_digests(group_rule("logprobs", MODEL)),
            tests={d: PLAN.dataset_test_inputs(MODEL, d) for d in MODEL_DATASETS},
            lpbs_tests=LPBS_TEMPLATES,
            pceat_tests=PCEAT,
            limits={d: PLAN.dataset_limit(d) for d in MODEL_DATASETS},
            caches={
                part: PLAN.test_cache(MODEL, part)
                for part in [
                    "datasets",
                    "lpbs_templates",
                    "pceat",
                    "template_kl",
                    "divdist_generate",
                ]
            },
            device=config["compute"]["device"],
            dtype=config["compute"]["dtype"]["logprobs"],
            spec=model_settings,
            batch=setting("datasets", "batch") if MODEL_DATASETS else 0,
            too_long=setting("datasets", "too_long") if MODEL_DATASETS else "",
            scoring=config["scoring"],
            seed=config["seed"],
            lpbs=settings("lpbs", "max_gap", "window_sweep") if PCEAT else {},
            lpbs_batch=LPBS.get("batch"),
            kl=settings("delobelle", "kl_candidates") if KL else {},
            generation=(
                settings(
                    "bommasani.generation", "samples", "tokens", "temperature", "batch"
                )
                if GENERATED
                else {}
            ),
        script:
            "../workflow_scripts/logprob_scores.py"


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
