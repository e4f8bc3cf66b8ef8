"""What a job reads comes from its stage's plan (the rules only adapt the job's wildcards:
rules/common.smk's of_wildcards): each input method on the default configuration, spelled out
by hand from the config and the path templates, and an unplanned target named as such."""

import pytest

from biasbench import paths
from biasbench.errors import InputError
from biasbench.plan.core import MODEL_KEYS

from .test_plan_targets import plan_of


@pytest.fixture(scope="module")
def plan():
    return plan_of()


def test_an_embedding_group_reads_every_test_of_the_model_on_the_source(plan):
    tests = plan.group_tests("glove-6b-50d", "words")
    assert tests["C1"] == ["names", "simplified"] and tests["Dis"] == ["terms"]
    assert list(tests) == plan.tests_of("glove-6b-50d", "words")
    files = plan.group_context_files("glove-6b-50d", "words")
    assert files[:3] == [
        "results/contexts/words/C1/names.tsv",
        "results/contexts/words/C1/simplified.tsv",
        "results/contexts/words/C3/names.tsv",
    ]
    assert len(files) == sum(len(ds) for ds in tests.values())
    assert plan.test_wordsets("glove-6b-50d", "words", "C1") == [
        "results/wordsets/C1/names.json",
        "results/wordsets/C1/simplified.json",
    ]
    with pytest.raises(InputError, match="no test 'C1' on source 'nowhere'"):
        plan.test_wordsets("glove-6b-50d", "nowhere", "C1")


def test_lpbs_reads_its_descriptors_word_sets_and_the_templates_upstream_file(plan):
    assert plan.lpbs_wordsets_of("C1") == [
        "results/wordsets/C1/names.json",
        "results/wordsets/C1/simplified.json",
    ]
    assert plan.lpbs_template_externals() == ["results/external/husse_templates_double"]
    assert plan.external_files(plan.template_file) == ["results/external/husse_templates_single"]


def test_a_base_models_null_copies_read_its_model_tests_lpbs_pairs_and_pool(plan):
    inputs = plan.null_calibration_inputs("minilm-l6")
    assert inputs["model"] == "results/models/minilm-l6/biasbench_model.json"
    assert inputs["pairs"] == ["results/corpus/natural/any/pairs.tsv"]
    # each (test, descriptor): its template contexts, then its word set
    assert inputs["tests"][:2] == [
        "results/contexts/templates/C1/names.tsv",
        "results/wordsets/C1/names.json",
    ]
    lpbs_tests = plan.null_lpbs_of("minilm-l6")
    assert inputs["lpbs"][-len(lpbs_tests) :] == [
        paths.LPBS_SPEC.format(test=t) for t in lpbs_tests
    ]
    assert inputs["templates"] == plan.lpbs_template_file
    assert inputs["external"] == ["results/external/husse_templates_double"]
    assert inputs["pool"] == ["results/models/glove-6b-50d/biasbench_model.json"]  # lexicon
    with pytest.raises(InputError, match="null_calibration.models"):
        plan.null_calibration_inputs("word2vec-gnews")


def test_a_trained_null_kind_reads_the_models_own_vectors_of_every_test(plan):
    inputs = plan.trained_null_inputs("minilm-l6", "trained")
    tests = plan.tests_of("minilm-l6", "templates")
    assert inputs["embeddings"] == [f"results/embeddings/minilm-l6/templates/{t}.h5" for t in tests]
    assert inputs["tests"][:2] == [
        "results/contexts/templates/C1/names.tsv",
        "results/wordsets/C1/names.json",
    ]


def test_the_tokenization_table_reads_the_template_contexts_of_the_null_models_tests(plan):
    files = plan.tokenization_context_files("minilm-l6")
    assert files[:2] == [
        "results/contexts/templates/C1/names.tsv",
        "results/contexts/templates/C1/simplified.tsv",
    ]
    assert all(f.startswith("results/contexts/templates/") for f in files)


def test_the_ground_truth_study_reads_its_masked_lm_resources_and_data_sets(plan):
    inputs = plan.groundtruth_inputs()
    assert inputs["model"] == "results/models/minilm-l6+mlm-head/biasbench_model.json"
    assert inputs["pairs"] == "results/external/debiaswe_definitional_pairs"
    assert inputs["train"] == "resources/templates/schroeder2021_train.yaml"
    roles = plan.injected_dataset_roles()
    assert list(roles) == plan.injected_datasets
    assert plan.injected_dataset_files() == [
        f for d in roles.values() for files in d.values() for f in files
    ]


def test_a_model_card_reads_the_models_own_rows_word_sets_null_rows_and_comparison(plan):
    inputs = plan.model_card_inputs("minilm-l6", ["comparison.csv"])
    assert inputs["model"] == "results/models/minilm-l6/biasbench_model.json"
    assert inputs["null"] == ["results/scores/null/minilm-l6.tsv"]
    assert inputs["scores"][0] == "results/scores/minilm-l6/templates/C1.tsv"
    assert inputs["wordsets"][:2] == [
        "results/wordsets/C1/names.json",
        "results/wordsets/C1/simplified.json",
    ]
    assert inputs["coverage"] == []  # the encoder runs no data set
    assert inputs["comparison"] == ["comparison.csv"]
    smollm = plan.model_card_inputs("smollm2-135m", [])
    assert "results/datasets/smollm2-135m/crows_pairs.coverage.json" in smollm["coverage"]


def test_a_paired_comparison_reads_both_models_outcomes_and_the_base_models_coverage():
    def compared(config):
        config["compare"] = {"base": "smollm2-135m", "against": ["gemma3-270m"]}

    plan = plan_of(compared)
    assert plan.comparison_files() == [
        "results/comparisons/smollm2-135m/gemma3-270m.tsv",
        "results/cards/comparisons/smollm2-135m/gemma3-270m.md",
        "results/lm_eval/comparisons/smollm2-135m/gemma3-270m.json",
        "results/figures/comparisons/smollm2-135m/gemma3-270m.png",
        "results/figures/comparisons/smollm2-135m/gemma3-270m.pdf",
    ]
    # both run WinoBias too, which writes no per-item outcomes
    assert plan.comparison_datasets("smollm2-135m", "gemma3-270m") == ["crows_pairs"]
    inputs = plan.comparison_inputs("smollm2-135m", "gemma3-270m", ("zoo.csv",), ())
    assert inputs["base"] == ["results/datasets/smollm2-135m/crows_pairs.outcomes.tsv"]
    assert inputs["against"] == ["results/datasets/gemma3-270m/crows_pairs.outcomes.tsv"]
    assert inputs["coverage"] == ["results/datasets/smollm2-135m/crows_pairs.coverage.json"]
    assert (inputs["comparison"], inputs["check"]) == (["zoo.csv"], [])
    # Gemma 3 runs no LPBS (config.yaml leaves it out): no log-probabilities are paired
    assert inputs["base_logprobs"] == inputs["against_logprobs"] == inputs["lpbs_wordsets"] == []
    with pytest.raises(InputError, match="no paired comparison of 'smollm2-135m' with 'gemma3"):
        plan.comparison_inputs("gemma3-270m", "smollm2-135m", (), ())
    assert plan_of().comparison_files() == []  # compare: null


def test_a_comparison_pairs_the_lpbs_jobs_both_models_ran_on_the_same_templates():
    def compared(config):
        config["compare"] = {"base": "minilm-l6+mlm-head", "against": ["smollm2-135m"]}

    plan = plan_of(compared)
    inputs = plan.comparison_inputs("minilm-l6+mlm-head", "smollm2-135m", (), ())
    tests = plan.comparison_tests("minilm-l6+mlm-head", "smollm2-135m")
    first = tests["lpbs"][0]
    assert first == ["templates", "C1", plan.lpbs_descriptors("C1")]
    assert inputs["base_logprobs"][0] == "results/lpbs/minilm-l6+mlm-head/templates/C1.logprobs.npz"
    assert inputs["against_logprobs"][0] == "results/lpbs/smollm2-135m/templates/C1.logprobs.npz"
    # the word sets in the order the adapter reads them: each job's descriptors in turn
    assert inputs["lpbs_wordsets"] == [
        f for _corpus, test, _ds in tests["lpbs"] for f in plan.lpbs_wordsets_of(test)
    ]
    # SmolLM2 runs no p-CEAT (lpbs.corpus_models): templates only, no gap needed
    assert {corpus for corpus, _t, _d in tests["lpbs"]} == {"templates"}
    assert tests["max_gap"] is None


def test_the_studies_and_the_head_read_their_sections_corpora_and_models(plan):
    reddit = plan.corpus_files("reddit")
    assert plan.divdist_corpus_files()[: len(reddit)] == reddit
    assert [p for p, _files in plan.divdist_corpus_parts()] == [
        plan.config["corpora"][c] for c in ("reddit", "wikipedia", "wiki_sentences", "bug")
    ]
    assert plan.divdist_text_files()[0] == "results/studies/divdist/text/reddit.tsv"
    assert plan.divdist_generated_files() == [paths.DIVDIST_GENERATED.format(model="smollm2-135m")]
    assert plan.divdist_static_specs()["glove-6b-50d"] == plan.model_params("glove-6b-50d")
    assert plan.divdist_scores("gemma3-270m") and not plan.divdist_scores("minilm-l6-null")
    assert plan.head_corpus_files() == plan.divdist_corpus_files()  # the same four corpora
    assert "corpora" not in plan.head_settings() and plan.head_settings()["epochs"] == 1
    assert plan.study_datasets() == plan.study_datasets("0.30") == plan.injected_datasets
    assert plan.study_dataset_limits().keys() <= set(plan.injected_datasets)
    study = plan.groundtruth_settings("0.50")
    assert study["repeats"] == plan.config["groundtruth"]["repeats"]
    # a Latin hypercube's job reads every planned mean (they set its strata); a grid's not
    assert study["design"] == "latin-hypercube" and study["mu"] == plan.config["groundtruth"]["mu"]
    grid = plan_of(lambda config: config["groundtruth"].update(design="grid"))
    assert "mu" not in grid.groundtruth_settings("0.50")
    with pytest.raises(InputError, match="has no mean mu0.35"):
        plan.groundtruth_settings("0.35")


def test_a_models_settings_and_those_it_is_built_from(plan):
    def named(config):
        config["models"]["gemma3-270m"]["paper_model"] = "GPT-2"

    assert plan.model_params("glove-6b-50d") == {
        k: v for k, v in plan.config["models"]["glove-6b-50d"].items() if k in MODEL_KEYS
    }
    card = plan_of(named).card_settings("gemma3-270m")
    assert card == {**plan.model_params("gemma3-270m"), "paper_model": "GPT-2"}
    assert plan.base_model("minilm-l6-null") == "minilm-l6"
    assert plan.base_model_file("minilm-l6+mlm-head") == paths.MODEL.format(model="minilm-l6")
    assert plan.base_model_settings("minilm-l6-null") == plan.model_params("minilm-l6")
    assert plan.null_copy_names("smollm2-135m") == ["smollm2-135m-null-s0", "smollm2-135m-null-s1"]
    assert plan.null_copy_names("gemma3-270m") == []
    assert plan.null_seeds_of("smollm2-135m") == 2
    assert plan.null_lexicon_params("minilm-l6")["name"] == "glove-6b-50d"
    assert plan.null_lexicon_params("smollm2-135m") is None  # no generated designs
    assert plan.runs_lpbs("smollm2-135m") and not plan.runs_lpbs("glove-6b-50d")
    assert plan.datasets_of("gemma3-270m") == ["crows_pairs", "winobias"]
    with pytest.raises(InputError, match="unknown model 'nosuch'"):
        plan.model_params("nosuch")
