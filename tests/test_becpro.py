"""BEC-Pro: the mean paired difference and its Wilcoxon test by hand."""

import numpy as np
import pytest
from scipy.stats import wilcoxon

from biasbench.methods.contract import Associations, Settings
from biasbench.methods.probability.becpro import BEC_PRO


def test_hand_computed():
    male, female = np.array([0.5, 1.0, -0.2, 0.9]), np.array([0.1, 0.2, -0.4, 1.0])
    res = BEC_PRO(Associations(male, female), Settings(), 0)
    assert res.effect_size == pytest.approx(np.mean([0.4, 0.8, 0.2, -0.1]))
    assert res.p_value == pytest.approx(wilcoxon([0.4, 0.8, 0.2, -0.1]).pvalue)
    swapped = BEC_PRO(Associations(male, female).swapped(), Settings(), 0)
    assert swapped.effect_size == pytest.approx(-res.effect_size)


def test_a_hidden_profession_takes_one_mask_per_word_span_or_piece(tmp_path):
    """BEC-Pro's prior hides the profession one [MASK] per word (Bartl et al.'s corpus),
    LPBS he/she's by one [MASK] (Kurita et al.); one per word piece is the named variant."""
    from transformers import AutoTokenizer

    from biasbench.models.logprobs.masked import masked_slot_text

    from .tiny_models import tiny_bert

    tok = AutoTokenizer.from_pretrained(tiny_bert(tmp_path, extra_words=("he",)))
    text = "he is a persons thing."
    piece, hidden = ("", "he", text[2:]), [(8, 21)]
    n_pieces = len(tok("persons thing", add_special_tokens=False)["input_ids"])
    assert n_pieces == 3  # person ##s thing
    for per, masks in (("word", 2), ("span", 1), ("piece", n_pieces)):
        built, offset = masked_slot_text(tok, piece, hidden, per)
        assert built == "[MASK] is a " + " ".join(["[MASK]"] * masks) + "."
        assert offset == 0  # the person's own mask comes first
    built, offset = masked_slot_text(tok, ("a persons thing and ", "he", "."), [(2, 15)], "word")
    assert built == "a [MASK] [MASK] and [MASK]." and offset == 2


def test_p_word_flips_whole_person_word_pairs_hand_computed():
    # differences 0.4, 0.8 (he/she), 0.2 (man/woman), -0.1 (brother/sister); signed ranks of
    # |d|: 3, 4 | 2 | -1, so per word pair 7, 2, -1 and the observed sum 8. The 8 sign vectors
    # give +-7 +-2 +-1 = 10, 8, 6, 4, -4, -6, -8, -10: |T| >= 8 for 4 of 8
    male, female = np.array([0.5, 1.0, -0.2, 0.9]), np.array([0.1, 0.2, -0.4, 1.0])
    words = np.array(["He", "He", "man", "brother"])
    res = BEC_PRO(Associations(male, female, words), Settings(), 0)
    assert res.p_word == pytest.approx(4 / 8)
    assert res.p_value == pytest.approx(wilcoxon([0.4, 0.8, 0.2, -0.1]).pvalue)
    swapped = BEC_PRO(Associations(male, female, words).swapped(), Settings(), 0)
    assert swapped.p_word == res.p_word


def test_without_word_pairs_p_word_is_the_wilcoxon_p():
    male, female = np.array([0.5, 1.0, -0.2, 0.9]), np.array([0.1, 0.2, -0.4, 1.0])
    res = BEC_PRO(Associations(male, female), Settings(), 0)
    assert res.p_word == res.p_value


def test_p_word_with_one_pair_per_word_is_the_exact_signed_rank_test():
    diff = np.array([0.3, -1.2, 0.7, 2.0, 0.1, -0.4])
    res = BEC_PRO(Associations(diff, np.zeros(6), np.arange(6)), Settings(), 0)
    assert res.p_word == pytest.approx(wilcoxon(diff, method="exact").pvalue)
