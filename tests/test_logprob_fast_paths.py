"""The log-probability engine's shortcuts equal the plain computation they replace: the
masked LM's head on the read tokens only, a shared prefix run once for its continuations, a
partial sort of the vocabulary for the fills."""

import numpy as np
import torch
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

from biasbench.models.logprobs import Engine
from biasbench.models.logprobs.causal import causal_ids, tail_log_probs
from biasbench.models.logprobs.engine import _likeliest
from biasbench.models.logprobs.masked import mlm_unmasked_log_probs

from .tiny_models import tiny_bert, tiny_gpt2


def test_unmasked_log_probs_and_attention_equal_the_whole_models_outputs(tmp_path):
    """AUL reads every non-special token: the head on those tokens only gives the model's own
    log-probabilities, and the one eager pass AULA's received attention as well."""
    where = tiny_bert(tmp_path, mlm_head=True)
    model = AutoModelForMaskedLM.from_pretrained(where).eval()
    tok = AutoTokenizer.from_pretrained(where)
    sentences = ["this is a person .", "it is kind .", "that is the thing there ."]
    loaded = model.config._attn_implementation
    got = mlm_unmasked_log_probs(model, tok, sentences, attention=True, batch=2)
    assert model.config._attn_implementation == loaded  # as loaded again after the call
    eager = AutoModelForMaskedLM.from_pretrained(where, attn_implementation="eager").eval()
    for sentence, (lp, weights) in zip(sentences, got, strict=True):
        enc = tok(sentence, return_tensors="pt")
        with torch.inference_mode():
            result = eager(**enc, output_attentions=True)
        ids = enc["input_ids"][0]
        full = torch.log_softmax(result.logits[0].double(), -1)[torch.arange(len(ids)), ids]
        received = torch.stack(result.attentions)[:, 0].mean((0, 1, 2)).double()  # AULA's alpha
        np.testing.assert_allclose(lp, full[1:-1].numpy(), atol=1e-5)  # [CLS] and [SEP] out
        np.testing.assert_allclose(weights, received[1:-1].numpy(), atol=1e-6)
    plain = mlm_unmasked_log_probs(model, tok, sentences, batch=2)
    for (lp, _), (lp_plain, weights) in zip(got, plain, strict=True):
        np.testing.assert_allclose(lp, lp_plain, atol=1e-5)
        assert weights is None


def test_continuations_on_a_shared_prefix_equal_whole_rows(tmp_path):
    """Repeated prefixes run once per batch, their keys and values reused: the same token
    log-probabilities as each row run whole (batches smaller than a prefix's rows)."""
    path = tiny_gpt2(tmp_path, lm_head=True)
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    tok = AutoTokenizer.from_pretrained(path)
    prefixes = ["This is", "This is", "That is a", "This is", "It", "There is the thing"]
    continuations = [" John.", " a kind person.", " thing", " Amy is here.", " is", " ."]
    got = Engine(model, tok, False, batch=3).continuation_tokens(prefixes, continuations)
    whole = tail_log_probs(
        model,
        tok,
        causal_ids(tok, prefixes),
        tok(continuations, add_special_tokens=False)["input_ids"],
        batch=64,
    )
    for a, b in zip(got, whole, strict=True):
        assert len(a) == len(b)
        np.testing.assert_allclose(a, b, atol=1e-5)


def test_the_likeliest_entries_are_the_start_of_a_stable_sort():
    rng = np.random.default_rng(0)
    for _ in range(500):
        row = -0.5 * rng.integers(0, 8, size=int(rng.integers(3, 40))).astype(float)  # ties
        row[rng.random(len(row)) < 0.2] = -np.inf
        n = int(rng.integers(1, len(row) + 1))
        np.testing.assert_array_equal(_likeliest(row, n), np.argsort(-row, kind="stable")[:n])
