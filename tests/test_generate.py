"""Seeded unconditional samples of a causal LM (the amplification experiment's outputs)."""

import pytest
from transformers import AutoTokenizer, GPT2LMHeadModel

from biasbench.models.generate import sample_texts

from .tiny_models import tiny_gpt2


@pytest.fixture(scope="module")
def causal_lm(tmp_path_factory):
    path = tiny_gpt2(tmp_path_factory.mktemp("gpt2"), lm_head=True)
    return GPT2LMHeadModel.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def test_samples_are_seeded_and_counted(causal_lm):
    model, tok = causal_lm
    first = sample_texts(model, tok, 5, 8, seed=3, batch=2, progress=False)
    again = sample_texts(model, tok, 5, 8, seed=3, batch=2, progress=False)
    other = sample_texts(model, tok, 5, 8, seed=4, batch=2, progress=False)
    assert len(first) == 5 and first == again and first != other
