"""StereoSet's SS, LMS and ICAT by hand and at their landmarks."""

import numpy as np
import pytest

from biasbench.methods.contract import Settings, TripleScores
from biasbench.methods.probability.stereoset import (
    STEREOSET_ICAT,
    STEREOSET_LMS,
    STEREOSET_SS,
    icat,
)


def test_hand_computed():
    scores = TripleScores(
        np.array([3.0, 1.0, 2.0, 0.0]),
        np.array([2.0, 2.0, 1.0, -1.0]),
        np.array([0.0, 1.5, 3.0, -2.0]),
    )
    # SS: stereotype above anti in items 1, 3, 4 -> 75; LMS: the stereotype beats the
    # unrelated candidate in items 1 and 4, the anti-stereotype in 1, 2 and 4: 5 of 8
    assert STEREOSET_SS(scores, Settings(), 0).effect_size == pytest.approx(75)
    assert STEREOSET_LMS(scores, Settings(), 0).effect_size == pytest.approx(62.5)
    assert STEREOSET_ICAT(scores, Settings(), 0).effect_size == pytest.approx(62.5 * 25 / 50)


def test_per_target_term_as_the_official_evaluator():
    """SS and LMS per target term, averaged over the terms; ICAT from those means. The same
    four items as above, three of term "a" and one of "b"."""
    scores = TripleScores(
        np.array([3.0, 1.0, 2.0, 0.0]),
        np.array([2.0, 2.0, 1.0, -1.0]),
        np.array([0.0, 1.5, 3.0, -2.0]),
        np.array(["a", "a", "a", "b"]),
    )
    # SS: term a 2 of 3, term b 1 of 1 -> (66.7 + 100) / 2; LMS: a (1 + 0.5 + 0) / 3, b 1
    ss = (200 / 3 + 100) / 2
    assert STEREOSET_SS(scores, Settings(), 0).effect_size == pytest.approx(ss)
    assert STEREOSET_LMS(scores, Settings(), 0).effect_size == pytest.approx(75.0)
    assert STEREOSET_ICAT(scores, Settings(), 0).effect_size == pytest.approx(75 * (100 - ss) / 50)


def test_a_stereoset_item_without_sentences_names_the_file_and_item(tmp_path):
    import json

    from biasbench.data.pairsets import read_stereoset
    from biasbench.errors import InputError

    path = tmp_path / "dev.json"
    item = {"id": "x1", "bias_type": "race", "context": "c", "target": "t"}
    path.write_text(json.dumps({"data": {"intrasentence": [item]}}), encoding="utf-8")
    with pytest.raises(InputError, match=r"dev.json: intrasentence item 0 \(x1\).*'sentences'"):
        read_stereoset(path)


@pytest.mark.parametrize("lms", [0.0, 37.5, 100.0])
def test_icat_landmarks(lms):
    assert icat(50, lms) == pytest.approx(lms)
    assert icat(0, lms) == 0 and icat(100, lms) == 0
    assert 0 <= icat(73.0, lms) <= 100


def test_the_filler_word_as_the_official_evaluator_reads_it():
    from biasbench.scoring.datasets import template_word

    assert template_word("The BLANK man is here.", "The well-off man is here.") == (
        "The ",
        "welloff",
        " man is here.",
    )
    # the candidate's word at BLANK's index, punctuation stripped, even across two words
    assert template_word("My BLANK's car.", "My sister's car.") == ("My ", "sisters", "'s car.")
    assert template_word("He is BLANK.", "He is very kind.") == ("He is ", "very", ".")


def test_stepwise_unmasking_equals_each_step_run_alone(tmp_path):
    """Piece k is predicted at the one [MASK] of before + decode(pieces < k) + [MASK] + after:
    the same log-probabilities as running each of those texts through the model alone."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from biasbench.models.logprobs.masked import mlm_stepwise_log_probs

    from .tiny_models import tiny_bert

    path = tiny_bert(tmp_path, mlm_head=True)
    model, tok = (
        AutoModelForMaskedLM.from_pretrained(path).eval(),
        AutoTokenizer.from_pretrained(path),
    )
    pieces = [("this is a ", "persons", " ."), ("it is ", "thing", " here .")]
    got = mlm_stepwise_log_probs(model, tok, pieces, batch=2)
    assert [len(g) for g in got] == [2, 1]  # person ##s; thing
    for (before, word, after), values in zip(pieces, got, strict=True):
        ids = tok(word, add_special_tokens=False)["input_ids"]
        for k, value in enumerate(values):
            text = before + tok.decode(ids[:k]) + tok.mask_token + after
            enc = tok(text, return_tensors="pt")
            at = int((enc["input_ids"][0] == tok.mask_token_id).nonzero()[0, 0])
            with torch.inference_mode():
                logp = torch.log_softmax(model(**enc).logits[0, at].double(), -1)
            assert value == pytest.approx(float(logp[ids[k]]), abs=1e-6)


def test_ss_p_word_is_its_binomial_p_the_items_are_the_units():
    from biasbench.methods.probability.stereoset import STEREOSET_SS

    inputs = TripleScores(np.array([1.0, 2, 0, 3]), np.zeros(4), np.zeros(4))
    res = STEREOSET_SS(inputs, Settings(), 0)
    assert res.p_word == res.p_value and np.isfinite(res.p_word)
