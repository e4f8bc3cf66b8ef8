"""The paired comparisons a configuration asks for: the data sets both models score with
per-item outcomes, the tests both encoded and the LPBS and p-CEAT jobs both ran on the same
inputs, and an error naming the field for each wrong entry."""

import pytest

from biasbench.errors import InputError
from biasbench.plan.comparisons import PairedComparison, comparisons

MODELS = ["mine", "mine-debiased", "other", "third", "vectors"]
JOBS = [
    ("mine", "crows_pairs"),
    ("mine", "stereoset"),
    ("mine-debiased", "crows_pairs"),
    ("mine-debiased", "winobias"),
    ("other", "stereoset"),
    ("third", "becpro"),
]


def test_each_model_against_its_base_on_the_data_sets_with_outcomes():
    found = comparisons({"base": "mine", "against": ["mine-debiased"]}, MODELS, JOBS)
    assert found == [PairedComparison("mine", "mine-debiased", ("crows_pairs",))]
    found = comparisons({"base": "mine", "against": ["other", "mine-debiased"]}, MODELS, JOBS)
    assert [c.datasets for c in found] == [("stereoset",), ("crows_pairs",)]
    assert comparisons(None, MODELS, JOBS) == []


@pytest.mark.parametrize(
    ("compare", "message"),
    [
        ({"base": "nope", "against": ["mine"]}, r"compare.base 'nope' is not a configured"),
        ({"base": "mine", "against": ["mine-debiased", "x"]}, r"compare.against\[1\] 'x'"),
        ({"base": "mine", "against": ["mine"]}, r"compare.against\[0\] is the base model"),
        ({"base": "mine", "against": ["third"]}, r"share no data set with per-item outcomes"),
        ({"base": "mine", "against": ["third"]}, r"no test and no LPBS job: list one"),
        ({"base": "mine", "against": ["vectors"]}, r"compare.against\[0\] 'vectors' and"),
    ],
)
def test_a_wrong_entry_names_its_field(compare, message):
    with pytest.raises(InputError, match=message):
        comparisons(compare, MODELS, JOBS)


TEST_JOBS = [
    ("mine", "templates", "C6", "names", "contexts/templates/C6/names.tsv"),
    ("mine", "templates", "C6", "terms", "contexts/templates/C6/terms.tsv"),
    ("mine", "reddit", "C6", "names", "corpus/reddit/cased/C6/names.tsv"),
    ("third", "templates", "C6", "names", "contexts/templates/C6/names.tsv"),
    ("third", "reddit", "C6", "names", "corpus/reddit/uncased/C6/names.tsv"),
    ("vectors", "words", "C6", "names", "contexts/words/C6/names.tsv"),
]


def test_the_tests_both_models_encoded_from_the_same_contexts_are_compared():
    # the same templates: compared; a corpus under two case policies: other contexts, not
    found = comparisons({"base": "mine", "against": ["third"]}, MODELS, JOBS, TEST_JOBS)
    assert found == [PairedComparison("mine", "third", (), (("templates", "C6", ("names",)),))]
    with pytest.raises(InputError, match=r"'vectors' and compare.base 'mine' share no data"):
        comparisons({"base": "mine", "against": ["vectors"]}, MODELS, JOBS, TEST_JOBS)


LPBS_JOBS = [
    ("mine", "templates", "C6", "templates/husse2022_double.yaml"),
    ("mine", "natural", "C6", "pairs/natural/cased.tsv"),
    ("mine", "templates", "C9", "templates/husse2022_double.yaml"),
    ("third", "templates", "C6", "templates/husse2022_double.yaml"),
    ("third", "natural", "C6", "pairs/natural/cased.tsv"),
    ("vectors", "templates", "C6", "templates/husse2022_double.yaml"),
    ("vectors", "natural", "C6", "pairs/natural/uncased.tsv"),
]


def test_lpbs_and_pceat_both_models_ran_on_the_same_inputs_are_compared():
    # LPBS on the same templates and p-CEAT on the same pair contexts: compared; a test one
    # model did not run, or contexts under another case policy, are not
    found = comparisons(
        {"base": "mine", "against": ["third", "vectors"]}, MODELS, [], [], LPBS_JOBS
    )
    assert [c.lpbs for c in found] == [
        (("templates", "C6"), ("natural", "C6")),
        (("templates", "C6"),),
    ]
