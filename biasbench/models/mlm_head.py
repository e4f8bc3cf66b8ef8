"""An offline masked LM: a pretrained encoder without its masked-LM head (all-MiniLM-L6-v2 ships
none) given a BERT-style head trained here, the encoder frozen or its top layers trained too.

The head is BERT's: a dense layer with GELU and LayerNorm (the "transform"), then a decoder to
the vocabulary with a bias. The encoder's last hidden states at masked positions are computed
once; only the head learns. The decoder starts from the word embeddings and learns as well (a
decoder tied to the frozen embeddings left too little capacity on this encoder, whose top layer
was tuned for sentence similarity; see docs/schroeder2021.md for the accuracies). The result is
saved as a ``BertForMaskedLM`` directory, labelled ``<encoder>+mlm-head`` everywhere: it is not
BERT.
"""

from __future__ import annotations

import copy
import json
import math
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from biasbench.io import write_text
from biasbench.models.device import adam_kernel, model_device


@dataclass(frozen=True)
class HeadSettings:
    train_sentences: int = 8000
    heldout_sentences: int = 1500
    mask_share: float = 0.15  # of the held-out sentences' word pieces (BERT's share)
    epochs: int = 3
    learning_rate: float = 1e-3
    batch: int = 256  # masked tokens per step of the head alone
    max_length: int = 64
    tied_decoder: bool = False  # the decoder is the frozen word embeddings (only the rest learns)
    trainable_layers: int = 0  # top encoder layers trained with the head (0: encoder frozen)
    encoder_learning_rate: float = 1e-4
    #: with trained layers: the training sentences' share masked, sentences per step, dropout
    train_mask_share: float = 0.15
    step_sentences: int = 64
    dropout: float = 0.1
    seed: int = 0


def masked_positions(
    tokenizer,
    texts: list[str],
    settings: HeadSettings,
    seed: int,
    share=None,
    size: int = 64,
    device=None,
):
    """Batches of ``size`` sentences: (input ids with [MASK] at a seeded ``share`` of the word
    pieces (default ``settings.mask_share``), attention mask, the masked positions, their
    original ids), drawn on the CPU (the same masks on any device), then moved to ``device``
    (the model's; None: the CPU)."""
    import torch

    share = settings.mask_share if share is None else share
    generator = torch.Generator().manual_seed(seed)
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id}
    for start in range(0, len(texts), size):
        enc = tokenizer(
            texts[start : start + size],
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=settings.max_length,
        )
        ids = enc["input_ids"]
        maskable = ~torch.isin(ids, torch.tensor(sorted(special)))
        chosen = (torch.rand(ids.shape, generator=generator) < share) & maskable
        masked = ids.masked_fill(chosen, tokenizer.mask_token_id)
        yield tuple(t.to(device) for t in (masked, enc["attention_mask"], chosen, ids))


def cached_states(encoder, tokenizer, texts, settings: HeadSettings, seed: int):
    """(last hidden states at the masked positions, the original token ids) of ``texts``."""
    import torch

    states, labels = [], []
    with torch.inference_mode():
        for ids, attention, chosen, original in masked_positions(
            tokenizer, texts, settings, seed, device=model_device(encoder)
        ):
            hidden = encoder(input_ids=ids, attention_mask=attention).last_hidden_state
            states.append(hidden[chosen].clone())
            labels.append(original[chosen].clone())
    return torch.cat(states), torch.cat(labels)


def masked_labels(tokenizer, texts, settings: HeadSettings, seed: int, device=None):
    """The original ids of the tokens :func:`masked_positions` masks, in order."""
    import torch

    batches = masked_positions(tokenizer, texts, settings, seed, device=device)
    return torch.cat([original[chosen] for _ids, _attention, chosen, original in batches])


def heldout_accuracy(model, tokenizer, held, settings: HeadSettings) -> float:
    """The masked LM's accuracy at the masked tokens of ``held`` (seed ``settings.seed + 2``):
    the whole model in evaluation mode, as it is saved and as every measure reads it. The
    head runs at the masked positions only (what ``model(...).logits[chosen]`` is, without
    the vocabulary's logits at every other position; tested)."""
    import torch

    model.eval()
    right = masked = 0
    with torch.inference_mode():
        for ids, attention, chosen, original in masked_positions(
            tokenizer, held, settings, settings.seed + 2, device=model_device(model)
        ):
            hidden = model.bert(input_ids=ids, attention_mask=attention).last_hidden_state
            logits = model.cls(hidden[chosen])
            right += int((logits.argmax(-1) == original[chosen]).sum())
            masked += int(chosen.sum())
    return right / masked


def padded_layout(tokens, real):
    """(tokens, hidden) rows of the real positions back in their batch's padded layout
    ``real.shape + (hidden,)``, zeros at the padding: what attention reads, the padding masked."""
    return tokens.new_zeros(*real.shape, tokens.shape[-1]).index_put((real,), tokens)


def packed_states(bert, ids, attention):
    """The encoder's last hidden states at the real tokens of a padded batch, (tokens, hidden)
    in row-major order (those of ``hidden[attention.bool()]``): every dense layer runs on the
    real tokens alone, attention on the padded layout with the padding masked. The sentences
    a head trains on fill ~half of their batch's padded width, so the layers do half the
    arithmetic of ``bert(...)``, whose states at the real tokens these equal up to float
    rounding (tested). Dropout where BERT has it (other draws than ``bert(...)``'s)."""
    import torch

    real = attention.bool()
    n, width = ids.shape
    x = bert.embeddings(input_ids=ids)[real]
    keep = real[:, None, None, :]  # (n, 1, 1, width): every query sees its sentence's tokens
    heads = bert.config.num_attention_heads

    def padded(t):  # (tokens, hidden) -> (n, heads, width, head size), zeros at the padding
        return padded_layout(t, real).view(n, width, heads, -1).transpose(1, 2)

    for layer in bert.encoder.layer:
        attn = layer.attention.self
        context = torch.nn.functional.scaled_dot_product_attention(
            padded(attn.query(x)),
            padded(attn.key(x)),
            padded(attn.value(x)),
            attn_mask=keep,
            dropout_p=attn.dropout.p if attn.training else 0.0,
        )
        x = layer.attention.output(context.transpose(1, 2).reshape(n, width, -1)[real], x)
        x = layer.output(layer.intermediate(x), x)
    return x


def train_top_layers(model, tokenizer, train, settings: HeadSettings) -> list[float]:
    """Train the top ``settings.trainable_layers`` encoder layers and the head on masked
    sentences (new masks each epoch): the loss at the masked positions only (the decoder's
    product with the vocabulary nowhere else), the learning rates warmed up over the first
    tenth of the steps, then decayed linearly to zero. The loss per epoch."""
    import torch
    from tqdm.auto import tqdm

    layers = model.bert.encoder.layer[len(model.bert.encoder.layer) - settings.trainable_layers :]
    for p in layers.parameters():
        p.requires_grad_(True)
    optimiser = torch.optim.Adam(
        [
            {"params": list(layers.parameters()), "lr": settings.encoder_learning_rate},
            {"params": [p for p in model.cls.parameters() if p.requires_grad]},
        ],
        lr=settings.learning_rate,
        **adam_kernel(model_device(model)),
    )
    steps = settings.epochs * math.ceil(len(train) / settings.step_sentences)
    warm = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min(1.0, (step + 1) / warm) * max(0.0, 1 - step / steps)
    )
    losses = []
    model.train()
    bar = tqdm(total=steps, desc=f"MLM head and top {len(layers)} layers", unit="step")
    for epoch in range(settings.epochs):
        total = count = 0
        for ids, attention, chosen, original in masked_positions(
            tokenizer,
            train,
            settings,
            settings.seed + 10 + epoch,
            share=settings.train_mask_share,
            size=settings.step_sentences,
            device=model_device(model),
        ):
            hidden = packed_states(model.bert, ids, attention)
            at = chosen[attention.bool()]  # the masked tokens among the real ones
            loss = torch.nn.functional.cross_entropy(model.cls(hidden[at]), original[chosen])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total, count = total + float(loss.detach()) * len(ids), count + len(ids)
            bar.update()
        losses.append(total / count)
    bar.close()
    return losses


def train_head(head, x_train, y_train, settings: HeadSettings) -> list[float]:
    """The head alone on the frozen encoder's cached states at the masked tokens; the loss
    per epoch."""
    import torch
    from tqdm.auto import tqdm

    optimiser = torch.optim.Adam(
        [p for p in head.parameters() if p.requires_grad],
        lr=settings.learning_rate,
        **adam_kernel(x_train.device),
    )
    generator = torch.Generator().manual_seed(settings.seed)
    losses = []
    for _ in tqdm(range(settings.epochs), desc="MLM head"):
        order = torch.randperm(len(x_train), generator=generator)
        total = 0.0
        for start in range(0, len(order), settings.batch):
            batch = order[start : start + settings.batch].to(x_train.device)
            loss = torch.nn.functional.cross_entropy(head(x_train[batch]), y_train[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        losses.append(total / len(order))
    return losses


def train_mlm_head(
    base: str,
    sentences: list[str],
    out: str | Path,
    settings: HeadSettings,
    *,
    device: str = "cpu",
    dtype: str = "float32",
    base_source: str | None = None,
) -> dict[str, Any]:
    """Train the head on ``sentences`` (a seeded split into training and held-out sentences),
    save the masked LM to ``out`` and return its report: held-out masked-token accuracy, and
    the accuracy of always predicting the most frequent training token (the unigram baseline).
    The model trains on ``device`` (a ``compute.device`` setting, resolved) in ``dtype``. The
    report names the base by ``base_source`` (its configured source) where given: the
    resolved path differs between checkouts, and the report enters every score's signature."""
    import torch
    from transformers import AutoModel, AutoTokenizer, BertForMaskedLM

    from biasbench.models.device import place, resolve_device

    torch.manual_seed(settings.seed)
    texts = list(dict.fromkeys(sentences))
    random.Random(settings.seed).shuffle(texts)
    n_train, n_held = settings.train_sentences, settings.heldout_sentences
    if len(texts) < n_train + n_held:
        raise ValueError(f"{len(texts)} distinct sentences; the head needs {n_train + n_held}")
    train, held = texts[:n_train], texts[n_train : n_train + n_held]
    tokenizer = AutoTokenizer.from_pretrained(base)
    encoder = AutoModel.from_pretrained(base, dtype="float32").eval()
    config = copy.deepcopy(encoder.config)
    config.tie_word_embeddings = settings.tied_decoder
    dropout = (config.hidden_dropout_prob, config.attention_probs_dropout_prob)
    config.hidden_dropout_prob = config.attention_probs_dropout_prob = settings.dropout
    model = BertForMaskedLM(config)
    model.bert.load_state_dict(encoder.state_dict(), strict=False)
    head = model.cls.predictions
    with torch.no_grad():
        if not settings.tied_decoder:  # the decoder learns from the embeddings, which stay
            head.decoder.weight = torch.nn.Parameter(
                model.bert.embeddings.word_embeddings.weight.detach().clone()
            )
        head.bias.zero_()
    for p in model.bert.parameters():
        p.requires_grad_(False)
    model = place(model, resolve_device(device), dtype)
    dev = model_device(model)
    model.eval()  # no dropout in the frozen encoder's states (a new module starts in training)
    if settings.trainable_layers:
        y_train = masked_labels(tokenizer, train, settings, settings.seed + 1, device=dev)
        losses = train_top_layers(model, tokenizer, train, settings)
    else:
        x_train, y_train = cached_states(model.bert, tokenizer, train, settings, settings.seed + 1)
        losses = train_head(head, x_train, y_train, settings)
    held_accuracy = heldout_accuracy(model, tokenizer, held, settings)
    y_held = masked_labels(tokenizer, held, settings, settings.seed + 2, device=dev)
    counts = torch.bincount(y_train, minlength=tokenizer.vocab_size)
    report = {
        "base": base_source or str(base),
        "settings": asdict(settings),
        "masked_tokens": {"train": int(len(y_train)), "heldout": int(len(y_held))},
        "train_loss_per_epoch": [round(v, 4) for v in losses],
        "heldout_accuracy": round(held_accuracy, 4),
        "unigram_baseline_accuracy": round(float((y_held == counts.argmax()).float().mean()), 4),
        "most_frequent_token": tokenizer.convert_ids_to_tokens(int(counts.argmax())),
    }
    model.eval()
    # the saved model's dropout is the encoder's own (what a study fine-tuning it trains with)
    model.config.hidden_dropout_prob, model.config.attention_probs_dropout_prob = dropout
    model.to("cpu").save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    write_text(Path(out) / "mlm_head_report.json", json.dumps(report, indent=1) + "\n")
    return report
