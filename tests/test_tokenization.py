"""Word pieces of a stimulus as the model reads it: counted by hand on the tiny tokenizers, in
context (a byte-level BPE cuts " word" otherwise than "word"), the count most of a stimulus'
contexts give it, and one tokenization file per base transformer of the null models."""

import pandas as pd
import pytest
from transformers import AutoTokenizer

from biasbench.config import validate_config
from biasbench.errors import InputError
from biasbench.models.word_pieces import (
    stimulus_pieces,
    tokenization_file,
    word_pieces,
)
from biasbench.plan import make_plan

from .test_plan_isolation import ROOT, default_config
from .tiny_models import tiny_bert, tiny_gpt2


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    return AutoTokenizer.from_pretrained(tiny_bert(tmp_path_factory.mktemp("bert")))


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    return AutoTokenizer.from_pretrained(tiny_gpt2(tmp_path_factory.mktemp("gpt2")))


def _pieces(tokenizer, sentence, word):
    start = sentence.index(word, len("This"))  # the stimulus, not a word it begins
    return word_pieces(tokenizer, sentence, start, start + len(word))


def test_word_pieces_by_hand_on_a_wordpiece_vocabulary(bert):
    # the vocabulary holds "john" and "ana ##sta ##sia"; [CLS], [SEP] and "." are not counted
    assert _pieces(bert, "This is John.", "John") == 1
    assert _pieces(bert, "This is Anastasia.", "Anastasia") == 3
    assert word_pieces(bert, "Anastasia is a person.", 0, 9) == 3


def test_a_bpe_counts_the_word_in_its_context(gpt2):
    # trained on "... a person." only after a space: " person" is one piece, "person" two
    assert gpt2.tokenize("person") == ["per", "son"]
    assert _pieces(gpt2, "There is a person.", "person") == 1
    # " Paul" gives a lone space token the span does not cover: 2 pieces pooled, not 3
    assert len(gpt2.tokenize(" Paul")) == 3
    assert _pieces(gpt2, "This is Paul.", "Paul") == 2


def test_a_stimulus_gets_the_count_most_of_its_contexts_give(bert):
    contexts = pd.DataFrame(
        [
            ("X", "John", "This is John.", 8, 12),
            ("X", "John", "This is Anastasia.", 8, 17),  # a span on another word: 3
            ("X", "John", "That is John.", 8, 12),
            ("Y", "Anastasia", "This is Anastasia.", 8, 17),
            ("A", "kind", "It is kind.", 6, 10),
        ],
        columns=["role", "stimulus", "sentence", "start", "end"],
    )
    table = stimulus_pieces(bert, contexts)
    assert table.values.tolist() == [["X", "John", 1], ["Y", "Anastasia", 3], ["A", "kind", 1]]


def test_one_tokenization_file_per_base_transformer_of_the_null_models():
    config = validate_config(default_config())
    plan = make_plan(config, ROOT)
    random = {n: m["source"].split(":", 1)[1] for n, m in config["models"].items()}
    random = {
        n: b for n, b in random.items() if config["models"][n]["source"].startswith("random:")
    }
    calibrated = [m for m in config["null_calibration"]["models"] if plan.specs[m].kind != "static"]
    bases = set(random.values()) | set(calibrated)
    assert len(plan.tokenization_files()) == len(bases)
    assert set(plan.tokenization_files()) == {f"results/tokenization/{b}.tsv" for b in bases}
    assert "results/tokenization/glove-6b-50d.tsv" not in plan.tokenization_files()
    assert tokenization_file("minilm-l6") == "results/tokenization/minilm-l6.tsv"
    # a copy and a random: model map to the model whose tokenizer they have
    assert plan.null_bases()["minilm-l6-null-s3"] == "minilm-l6"
    assert plan.null_bases()["minilm-l6-null"] == "minilm-l6"
    assert plan.null_bases()["glove-6b-50d-null-s0"] == "glove-6b-50d"
    # gemma's only null model is its random: model: the template contexts of its jobs
    gemma = plan.tokenization_tests("gemma3-270m")
    tests = config["models"]["gemma3-270m-null"]["tests"]["templates"]
    assert list(gemma) == tests
    assert gemma["C1"]["names"] == "results/contexts/templates/C1/names.tsv"
    # MiniLM's copies encode every configured test (null_calibration.tests: all)
    assert list(plan.tokenization_tests("minilm-l6")) == config["tests"]
    with pytest.raises(InputError, match="no null model has the tokenizer of 'glove-6b-50d'"):
        plan.tokenization_tests("glove-6b-50d")
