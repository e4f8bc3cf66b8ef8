"""The offline masked LM's head (and optionally its top encoder layers) trained here: seeded,
the frozen parts left as they were, and the reported accuracy that of the saved model."""

import itertools
import random

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoTokenizer, BertForMaskedLM

from biasbench.models.mlm_head import (
    HeadSettings,
    heldout_accuracy,
    masked_labels,
    masked_positions,
    packed_states,
    train_mlm_head,
)

from .tiny_models import WORDS, tiny_bert

SENTENCES = [
    f"{a} {b} {c} {d}."
    for a, b, c, d in itertools.islice(itertools.permutations(WORDS, 4), 0, 400, 5)
]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("base"))


def train(base, out, **options):
    settings = HeadSettings(train_sentences=60, heldout_sentences=20, epochs=2, **options)
    return train_mlm_head(str(base), SENTENCES, out, settings), settings


@pytest.mark.parametrize("layers", [0, 1])
def test_the_head_is_seeded_and_only_the_chosen_layers_learn(base, tmp_path, layers):
    report, _ = train(base, tmp_path / "a", trainable_layers=layers)
    again, _ = train(base, tmp_path / "b", trainable_layers=layers)
    assert report == again
    weights = (tmp_path / "a" / "model.safetensors").read_bytes()
    assert weights == (tmp_path / "b" / "model.safetensors").read_bytes()
    trained, encoder = (
        load_file(tmp_path / "a" / "model.safetensors"),
        load_file(base / "model.safetensors"),
    )
    changed = {
        name
        for name, value in encoder.items()
        if f"bert.{name}" in trained and not torch.equal(trained[f"bert.{name}"], value)
    }
    top = "encoder.layer.1."  # the tiny BERT's second and last layer
    assert all(name.startswith(top) for name in changed)
    assert bool(changed) == bool(layers)
    assert report["train_loss_per_epoch"][-1] < report["train_loss_per_epoch"][0]


@pytest.mark.parametrize("layers", [0, 1])
def test_the_reported_accuracy_is_the_saved_models(base, tmp_path, layers):
    """Recomputed from the saved directory on the held-out sentences with the same masks."""
    report, settings = train(base, tmp_path, trainable_layers=layers)
    model = BertForMaskedLM.from_pretrained(tmp_path)
    tokenizer = AutoTokenizer.from_pretrained(tmp_path)
    texts = list(dict.fromkeys(SENTENCES))
    random.Random(settings.seed).shuffle(texts)
    held = texts[60:80]
    total = len(masked_labels(tokenizer, held, settings, settings.seed + 2))
    assert report["masked_tokens"]["heldout"] == total
    assert report["heldout_accuracy"] == round(
        heldout_accuracy(model, tokenizer, held, settings), 4
    )


@pytest.mark.parametrize("layers", [0, 1])
def test_the_heldout_accuracy_reads_the_full_logits_at_the_masked_tokens(base, tmp_path, layers):
    """The head run at the masked positions alone predicts what the whole model's logits
    there predict: the same tokens right, the same accuracy."""
    _, settings = train(base, tmp_path, trainable_layers=layers)
    model = BertForMaskedLM.from_pretrained(tmp_path).eval()
    tokenizer = AutoTokenizer.from_pretrained(tmp_path)
    right = masked = 0
    with torch.inference_mode():
        for ids, attention, chosen, original in masked_positions(
            tokenizer, SENTENCES, settings, settings.seed + 2
        ):
            full = model(input_ids=ids, attention_mask=attention).logits[chosen]
            hidden = model.bert(input_ids=ids, attention_mask=attention).last_hidden_state
            assert torch.equal(model.cls(hidden[chosen]).argmax(-1), full.argmax(-1))
            right += int((full.argmax(-1) == original[chosen]).sum())
            masked += int(chosen.sum())
    assert heldout_accuracy(model, tokenizer, SENTENCES, settings) == right / masked


def test_the_packed_pass_equals_the_padded_one_at_the_real_tokens(base):
    """Sentences of 1 to 12 words in one batch (most positions padding): the states and the
    gradients of every weight equal those of the model's own padded forward pass."""
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = BertForMaskedLM.from_pretrained(
        base, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0
    ).train()
    texts = [" ".join(random.Random(k).choices(WORDS, k=k)) for k in range(1, 13)]
    enc = tokenizer(texts, return_tensors="pt", padding=True)
    real = enc["attention_mask"].bool()
    assert real.float().mean() < 0.7  # the case the packing is for

    def grads(states):
        model.zero_grad()
        (states * torch.linspace(-1, 1, states.shape[-1])).sum().backward()
        return {n: p.grad.clone() for n, p in model.bert.named_parameters() if p.grad is not None}

    padded = model.bert(**enc).last_hidden_state[real]
    expected = grads(padded)
    packed = packed_states(model.bert, enc["input_ids"], enc["attention_mask"])
    torch.testing.assert_close(packed, padded.detach(), atol=1e-6, rtol=1e-5)
    got = grads(packed)
    assert got.keys() == expected.keys() and any("layer.0." in n for n in got)
    for name, grad in expected.items():
        torch.testing.assert_close(got[name], grad, atol=1e-5, rtol=1e-4, msg=name)


def test_the_report_is_the_same_from_any_checkout(base, tmp_path):
    """The base read from two places (two checkouts' environments) gives the same report and
    files when the report names it by its configured source: the report enters every score's
    signature, so a resolved path there would tell two identical runs apart."""
    import shutil

    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(base, elsewhere)
    settings = HeadSettings(train_sentences=60, heldout_sentences=20, epochs=1)
    source = "pkg:tiny/model"
    one = train_mlm_head(str(base), SENTENCES, tmp_path / "a", settings, base_source=source)
    two = train_mlm_head(str(elsewhere), SENTENCES, tmp_path / "b", settings, base_source=source)
    assert one == two and one["base"] == source
    for name in ("mlm_head_report.json", "model.safetensors"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    # named by its path, the two reports differ: what the configured source avoids
    assert train_mlm_head(str(elsewhere), SENTENCES, tmp_path / "c", settings)["base"] != source
