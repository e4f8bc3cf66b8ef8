"""StereoSet's SS, LMS and ICAT by hand and at their landmarks."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

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


def _triples(preferred: np.ndarray, terms=None) -> TripleScores:
    """Items whose stereotype scores above (True) or below (False) its anti-stereotype."""
    stereo = np.where(preferred, 1.0, -1.0)
    return TripleScores(stereo, np.zeros(len(stereo)), np.full(len(stereo), -5.0), terms)


def _hand_items() -> TripleScores:
    """Term a: 18 of 20 items stereotyped (d = 0.4); b: 3 of 4 (0.25); c: 1 of 4 (-0.25)."""
    preferred = np.r_[np.arange(20) < 18, np.arange(4) < 3, np.arange(4) < 1]
    return _triples(preferred, np.repeat(np.array(["a", "b", "c"]), [20, 4, 4]))


def test_ss_without_terms_keeps_the_item_level_binomial():
    from scipy.stats import binomtest

    from biasbench.stats import binomial_floor

    items = replace(_hand_items(), terms=None)  # the -items encodings
    res = STEREOSET_SS(items, Settings(), 0)
    assert res.p_value == pytest.approx(binomtest(22, 28, 0.5).pvalue)
    assert res.p_word == res.p_value and res.p_floor == res.p_word_floor == binomial_floor(28)
    assert res.sizes == {"X": 28}


def test_ss_tests_the_terms_by_hand_not_the_items():
    """|0.4 s_a + 0.25 s_b - 0.25 s_c| over the 8 sign vectors (s_a, s_b, s_c), the observed
    one +++ at 0.4:
        +++ 0.4   ++- 0.9   +-+ 0.1   +-- 0.4   -++ 0.4   -+- 0.1   --+ 0.9   --- 0.4
    6 of 8 at least 0.4: p = 0.75, where the binomial of the 22 of 28 items says 0.004."""
    res = STEREOSET_SS(_hand_items(), Settings(), 0)
    assert res.effect_size == pytest.approx(100 * (0.9 + 0.75 + 0.25) / 3)
    assert res.p_value == pytest.approx(0.75) and res.p_word == res.p_value
    assert res.exact and res.n_partitions == 8
    no_terms = STEREOSET_SS(replace(_hand_items(), terms=None), Settings(), 0)
    assert no_terms.p_value < 0.005
    assert res.sizes == {"X": 28} and "3 target terms of 28 items" in res.note


def test_ss_term_floor_is_two_of_the_sign_vectors():
    """Three terms each wholly stereotyped: only +++ and --- are as extreme, p = 2 / 8."""
    items = _triples(np.ones(7, bool), np.array(list("aaabbcc")))
    res = STEREOSET_SS(items, Settings(), 0)
    assert res.p_floor == res.p_word_floor == pytest.approx(2 / 8)
    assert res.p_value == res.p_floor
    sampled = STEREOSET_SS(items, Settings(exact_max=1, n_samples=4), 0)
    assert not sampled.exact and sampled.p_floor == pytest.approx(1 / 5)


def _random_terms(rng, n_terms, per_term, spread):
    """A null model of term-level random effects: each term's preference drawn symmetric about
    1/2, its items Bernoulli of it."""
    share = np.clip(0.5 + rng.normal(0, spread, n_terms), 0, 1)
    preferred = rng.random((n_terms, per_term)) < share[:, None]
    return _triples(preferred.ravel(), np.repeat(np.arange(n_terms), per_term))


def test_ss_sampled_sign_vectors_are_seeded_and_agree_with_the_exact_test():
    """12 terms: all 4,096 sign vectors, or 4,000 sampled ones (fewer than the vectors, so
    sampled): the same seed gives the same p, and it is the exact p within 4 Monte Carlo SEs."""
    items = _random_terms(np.random.default_rng(3), 12, 6, 0.25)
    exact = STEREOSET_SS(items, Settings(), 0)
    forced = Settings(exact_max=1, n_samples=4000)
    sampled = STEREOSET_SS(items, forced, 7)
    assert exact.exact and exact.n_partitions == 4096
    assert not sampled.exact and sampled.n_partitions == 4000
    assert sampled.p_value == STEREOSET_SS(items, forced, 7).p_value
    assert 0.05 < exact.p_value < 0.95  # a p the sampled test resolves
    mc_se = np.sqrt(exact.p_value * (1 - exact.p_value) / 4000)
    assert sampled.p_value == pytest.approx(exact.p_value, abs=4 * mc_se)


@hyp_settings(max_examples=60)
@given(
    sizes=st.lists(st.integers(1, 5), min_size=1, max_size=9),
    exact_max=st.sampled_from([1, 10**6]),
    data=st.data(),
)
def test_ss_term_p_is_above_its_floor_and_even_in_the_swap(sizes, exact_max, data):
    """Swapping stereotype and anti-stereotype negates every d_t: the two-sided p stays."""
    preferred = np.array(
        data.draw(st.lists(st.booleans(), min_size=sum(sizes), max_size=sum(sizes)))
    )
    items = _triples(preferred, np.repeat(np.arange(len(sizes)), sizes))
    settings = Settings(exact_max=exact_max, n_samples=100)
    res = STEREOSET_SS(items, settings, 5)
    assert 0 < res.p_floor <= res.p_value <= 1
    assert STEREOSET_SS(items.swapped(), settings, 5).p_value == res.p_value


def test_ss_term_test_holds_its_level_where_the_item_binomial_does_not():
    """300 seeded null models, 12 terms of 15 items, each term's preference 1/2 +- N(0, 0.2):
    the term-level test rejects at 0.05 about 5% of the time (<= 0.09, above the binomial
    interval's 0.075), the item-level binomial about 28% (> 0.15)."""
    rng = np.random.default_rng(11)
    term_rejects = item_rejects = 0
    runs = 300
    for _ in range(runs):
        items = _random_terms(rng, 12, 15, 0.2)
        term_rejects += STEREOSET_SS(items, Settings(), 0).p_value <= 0.05
        item_rejects += STEREOSET_SS(replace(items, terms=None), Settings(), 0).p_value <= 0.05
    assert term_rejects / runs <= 0.09
    assert item_rejects / runs > 0.15
