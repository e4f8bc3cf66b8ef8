"""Model surgery for the ground-truth study: the trainable top layers on frozen states, the top
one only at the positions read; the masked-LM head restricted to the four pronouns; and a study
model's trained top put back into the masked LM, whole or on a cache of the frozen layers that
the models of a job share. Torch is imported where used."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

from biasbench.models.mlm_head import padded_layout
from biasbench.studies.groundtruth.data import PRONOUNS


def forward(layers, states, attention, queries):
    """The trainable layers on frozen states: every position through the lower ones (the top
    one reads their keys and values), the top one only at ``queries``."""
    import torch

    n, width = attention.shape
    for layer in layers[:-1]:
        every = torch.arange(width, device=states.device).expand(n, width)
        states = top_layer(layer, states, attention, every)
    return top_layer(layers[-1], states, attention, queries)


def top_layer(layer, states, attention, queries):
    """A BERT layer's output at ``queries`` (n, q) positions only: keys and values from every
    position of ``states`` (n, width, hidden), queries and the feed-forward part only where
    asked (equal to the full layer there; tested). The keys and values are projected only at
    the real tokens (the study's sentences fill half of their padded width): a padded
    position's key is masked and its value weighted by an exact zero, so they are zeros."""
    import torch

    attn = layer.attention.self
    n, width, hidden = states.shape
    heads, size = attn.num_attention_heads, attn.attention_head_size
    rows = torch.arange(n, device=states.device)[:, None]
    here = states[rows, queries]  # (n, q, hidden)
    q = attn.query(here).view(n, -1, heads, size)
    real = attention.bool()
    tokens = states[real]
    k = padded_layout(attn.key(tokens), real).view(n, width, heads, size)
    v = padded_layout(attn.value(tokens), real).view(n, width, heads, size)
    scores = torch.einsum("nqhd,nthd->nhqt", q, k) / math.sqrt(size)
    scores = scores.masked_fill(attention[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
    context = torch.einsum("nhqt,nthd->nqhd", scores.softmax(-1), v).reshape(n, -1, hidden)
    out = layer.attention.output
    mid = out.LayerNorm(out.dense(context) + here)
    final = layer.output
    return final.LayerNorm(final.dense(layer.intermediate(mid)) + mid)


@dataclass
class PronounHead:
    """The masked-LM head restricted to he, she, his, her (male, female per kind)."""

    transform: Any
    weight: Any  # (4, hidden): the decoder rows of he, she, his, her
    bias: Any  # (4,)

    @classmethod
    def of(cls, model, tokenizer) -> PronounHead:
        head = model.cls.predictions
        ids = tokenizer.convert_tokens_to_ids([w for pair in PRONOUNS.values() for w in pair])
        return cls(
            copy.deepcopy(head.transform),
            head.decoder.weight[ids].detach().clone(),
            head.bias[ids].detach().clone(),
        )

    def logits(self, hidden):
        return self.transform(hidden) @ self.weight.T + self.bias


def injected_model(base, weights: dict, name: str):
    """A copy of the masked LM with one study model's trained top layers and head transform:
    the whole model, for measures that read more than the pronoun slot. The frozen parameters
    (embeddings, lower layers, the decoder) are the base model's own, not copies."""
    layers = sorted(
        {k.split("/")[1].split(".")[0] for k in weights if k.startswith(f"{name}/layer")}
    )
    if not layers:
        raise KeyError(f"no weights of {name}")
    trained = [*base.bert.encoder.layer[-len(layers) :], base.cls.predictions.transform]
    copied = {id(t) for module in trained for t in module.parameters()}
    model = copy.deepcopy(base, memo={id(t): t for t in base.parameters() if id(t) not in copied})
    top = model.bert.encoder.layer[-len(layers) :]
    for k, layer in enumerate(top):
        prefix = f"{name}/layer{k}."
        layer.load_state_dict(
            {p[len(prefix) :]: t for p, t in weights.items() if p.startswith(prefix)}
        )
    prefix = f"{name}/transform."
    model.cls.predictions.transform.load_state_dict(
        {p[len(prefix) :]: t for p, t in weights.items() if p.startswith(prefix)}
    )
    return model.eval()


class SharedBodyMLM:
    """A study model for the log-probability engine: the frozen lower layers run once per batch
    of inputs and are kept (``cache``, shared by every model of a job), then this model's
    trained top layers, the last of them only at the positions read, and its head there. Equal
    to :func:`injected_model` (tested) at a fraction of the encoder's cost per model. Gives
    logits, not attention weights."""

    def __init__(self, base, top: int, model: Any, cache: dict):
        self.base, self.top, self.cache, self.config = base, top, cache, base.config
        self.layers = list(model.bert.encoder.layer[-top:])
        self.cls = model.cls

    @property
    def device(self):
        """Where the base model's weights are (the inputs go there)."""
        return self.base.device

    def logits_at(self, inputs: dict, rows, cols, attention: bool = False):
        """The logits at (rows, cols) only, as ``biasbench.models.logprobs`` asks a masked LM."""
        import torch

        if attention:
            raise NotImplementedError("a study model gives no attention weights")
        ids, mask = inputs["input_ids"], inputs["attention_mask"]
        slot, count = [], [0] * len(ids)  # each position's place among its row's queries
        for r in rows.tolist():
            slot.append(count[r])
            count[r] += 1
        slot = torch.tensor(slot, dtype=torch.long, device=ids.device)
        queries = torch.zeros(len(ids), max(count), dtype=torch.long, device=ids.device)
        queries[rows, slot] = cols
        return self.cls(
            forward(self.layers, self.lower_states(ids, mask), mask, queries)[rows, slot]
        )

    def lower_states(self, ids, mask):
        """The input of the trained top layers for this batch: computed by the first model of
        the job that asks, then read from the shared cache."""
        import torch

        key = (tuple(ids.shape), ids.cpu().numpy().tobytes(), mask.cpu().numpy().tobytes())
        if key not in self.cache:
            with torch.inference_mode():
                self.cache[key] = self.base.bert(
                    input_ids=ids, attention_mask=mask, output_hidden_states=True
                ).hidden_states[-1 - self.top]
        return self.cache[key]

    def set_attn_implementation(self, _name):
        raise NotImplementedError("a study model gives no attention weights")


def study_models(base, weights: dict, names: list[str], cache: dict | None = None):
    """(name, model) of each study model, all on one shared cache of the frozen layers (a
    new one, or ``cache``: one that models of an earlier call filled)."""
    cache = {} if cache is None else cache
    for name in names:
        model = injected_model(base, weights, name)
        top = len({k.split("/")[1].split(".")[0] for k in weights if k.startswith(f"{name}/layer")})
        yield name, SharedBodyMLM(base, top, model, cache)
