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
