"""The engine the data-set scorers ask for numbers (``biasbench.scoring.datasets``): one
model, masked or causal, behind one interface."""

from __future__ import annotations

from typing import Any

import numpy as np

from biasbench.models.device import model_device
from biasbench.models.logprobs.causal import (
    causal_ids,
    shared_head_tail_log_probs,
    shared_prefix_log_probs,
    tail_log_probs,
)
from biasbench.models.logprobs.common import guard_context, output_logits, pad_id, padded
from biasbench.models.logprobs.masked import (
    first_mask,
    masked_logits,
    mlm_masked_slot_log_probs,
    mlm_pseudo_log_likelihood,
    mlm_stepwise_log_probs,
    mlm_unmasked_log_probs,
    shared_token_positions,
)


class Engine:
    """One model's log-probabilities for the probability-based measures: what a masked LM
    says of masked slots and of whole sentences, what a causal LM says of sentences and
    continuations. The scoring layer asks it for numbers and never touches the model."""

    def __init__(self, model: Any, tokenizer: Any, masked: bool, batch: int = 64):
        self.model, self.tokenizer, self.masked, self.batch = model, tokenizer, masked, batch
        #: the model's context in tokens (None: undeclared); a longer text is refused
        self.context = guard_context(model, tokenizer)

    def longest(self, texts: list[str]) -> int:
        """The most tokens any of ``texts`` takes, its special tokens included (a token is at
        least one byte of UTF-8, so only texts of near the context's length are tokenized)."""
        near = [t for t in texts if self.context is None or len(t.encode()) + 8 > self.context]
        return max((len(i) for i in self.ids(near)), default=0) if near else 0

    def ids(self, sentences: list[str]) -> list[list[int]]:
        return self.tokenizer(sentences)["input_ids"]

    def shared(self, a: list[int], b: list[int]) -> tuple[list[int], list[int]]:
        return shared_token_positions(a, b)

    def pll(self, ids: list[list[int]], positions: list[list[int]]) -> np.ndarray:
        return mlm_pseudo_log_likelihood(self.model, self.tokenizer, ids, positions, 2 * self.batch)

    def unmasked(self, sentences: list[str], attention: bool = False):
        return mlm_unmasked_log_probs(self.model, self.tokenizer, sentences, attention, self.batch)

    def masked_slot(self, pieces, masked_too=None, per: str = "piece") -> np.ndarray:
        return mlm_masked_slot_log_probs(
            self.model, self.tokenizer, pieces, masked_too, self.batch, per
        )

    def masked_steps(self, pieces) -> list[np.ndarray]:
        return mlm_stepwise_log_probs(self.model, self.tokenizer, pieces, self.batch)

    def sentence_tokens(self, sentences: list[str]):
        """(each sentence's token ids after the start token, log P of each token but the start
        given those before it) under a causal LM: what CrowS-Pairs and StereoSet sum or
        average (:func:`causal_ids`)."""
        ids = causal_ids(self.tokenizer, sentences)
        heads, tails = [i[:1] for i in ids], [i[1:] for i in ids]
        return ids, tail_log_probs(self.model, self.tokenizer, heads, tails, self.batch)

    def continuation_tokens(
        self, prefixes: list[str], continuations: list[str]
    ) -> list[np.ndarray]:
        """Per pair, log P of each continuation token given the prefix and the tokens before
        it (WinoBias' two candidates, StereoSet's three, BEC-Pro's professions after one person
        share their prefix: it runs once); the prefix starts with the start token."""
        head = causal_ids(self.tokenizer, prefixes)
        tail = self.tokenizer(continuations, add_special_tokens=False)["input_ids"]
        return shared_head_tail_log_probs(self.model, self.tokenizer, head, tail, self.batch)

    def slot_log_probs(self, texts: list[str]) -> np.ndarray:
        """A masked LM's log-distribution over the vocabulary at the first [MASK] of each
        text, (texts, vocabulary)."""
        import torch

        dev = model_device(self.model)

        out = []
        for start in range(0, len(texts), self.batch):
            enc = self.tokenizer(
                texts[start : start + self.batch], return_tensors="pt", padding=True
            ).to(dev)
            first = first_mask(enc["input_ids"], self.tokenizer.mask_token_id)
            with torch.inference_mode():
                logits = masked_logits(self.model, enc, torch.arange(len(first), device=dev), first)
            out.append(torch.log_softmax(logits.double(), -1).cpu().numpy())
        return np.concatenate(out)

    def next_token_log_probs(self, prefixes: list[str]) -> np.ndarray:
        """A causal LM's log-distribution of the token after each prefix, (prefixes,
        vocabulary)."""
        import torch

        dev = model_device(self.model)

        pad, out = pad_id(self.tokenizer), []
        ids = causal_ids(self.tokenizer, prefixes)
        for start in range(0, len(ids), self.batch):
            tensor, mask = padded(ids[start : start + self.batch], pad, left=True, device=dev)
            with torch.inference_mode():
                hidden = self.model.base_model(
                    input_ids=tensor,
                    attention_mask=mask,
                    position_ids=(mask.cumsum(1) - 1).clamp(min=0),
                ).last_hidden_state[:, -1]
                out.append(torch.log_softmax(output_logits(self.model, hidden), -1).double())
        return torch.cat(out).cpu().numpy()

    def continuation_matrix(self, prefixes: list[str], continuations: list[str]) -> np.ndarray:
        """log P(continuation | prefix) of every pair, (prefixes, continuations)."""
        return shared_prefix_log_probs(
            self.model, self.tokenizer, prefixes, continuations, 8 * self.batch
        )

    def word_starts(self) -> np.ndarray:
        """Which vocabulary entries begin a new alphabetic word (a causal LM's fills)."""
        if not hasattr(self, "_word_starts"):
            pieces = self.tokenizer.convert_ids_to_tokens(list(range(len(self.tokenizer))))
            starts = np.zeros(self.model.get_output_embeddings().weight.shape[0], bool)
            for i, piece in enumerate(pieces[: len(starts)]):
                text = self.tokenizer.convert_tokens_to_string([piece]) if piece else ""
                starts[i] = text[:1] == " " and text[1:].isalpha()
            self._word_starts = starts
        return self._word_starts

    def top_fills(
        self, texts: list[str], k: int = 3, threshold: float = 0.1
    ) -> tuple[list[list[str]], list[list[str]]]:
        """The fills of each text's slot, two ways: the ``k`` likeliest, and every one with
        P > ``threshold`` (Lauscher et al.). A masked LM fills the [MASK]; a causal LM the
        end of the text (the text is the prefix before the slot), with tokens that begin an
        alphabetic word (the word's first token stands for it). The texts run in batches of
        similar length (DisCo's 2,530 causal prefixes: 24% fewer padded positions, 17% less
        CPU than in their order); the fills are each text's, in its order."""
        top: list = [None] * len(texts)  # each text's fills, set by its index
        over: list = [None] * len(texts)
        by_length = np.argsort([len(i) for i in self.ids(texts)], kind="stable")
        for start in range(0, len(texts), self.batch):
            rows = by_length[start : start + self.batch]
            chunk = [texts[i] for i in rows]
            if self.masked:
                log_p = self.slot_log_probs(chunk)
            else:
                log_p = np.where(self.word_starts(), self.next_token_log_probs(chunk), -np.inf)
            for i, row in zip(rows, log_p, strict=True):
                order = _likeliest(row, max(k, int((row > np.log(threshold)).sum())))
                chosen = (order[:k], order[row[order] > np.log(threshold)])
                words = [self.tokenizer.convert_ids_to_tokens(c.tolist()) for c in chosen]
                if not self.masked:
                    words = [
                        [self.tokenizer.convert_tokens_to_string([w]).strip() for w in ws]
                        for ws in words
                    ]
                top[i], over[i] = words
        return top, over


def _likeliest(row: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` entries of ``np.argsort(-row, kind="stable")`` (ties in index order),
    without sorting the whole vocabulary: only the entries at least the n-th largest."""
    cut = np.partition(row, len(row) - n)[len(row) - n]
    candidates = np.flatnonzero(row >= cut)
    return candidates[np.argsort(-row[candidates], kind="stable")][:n]


def _frozen(value):
    """A hashable copy of an engine argument (lists of ids and positions become tuples)."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


class RememberingEngine:
    """An engine that remembers each item's numbers: asked again about items it has already
    scored (a scorer run on a random half of a data set, the league's robustness) it computes
    nothing. Every item of a first call is computed in that call, in its order, as the engine
    it wraps would (no deduplication): a full run's numbers are those of the plain engine."""

    #: per-item methods -> (their per-item arguments, how their result splits into items)
    PER_ITEM = {
        "pll": (2, "array"),
        "unmasked": (1, "list"),
        "masked_slot": (2, "array"),
        "masked_steps": (1, "list"),
        "sentence_tokens": (1, "pair"),
        "continuation_tokens": (2, "list"),
        "top_fills": (1, "pair"),
    }

    def __init__(self, engine: Engine):
        self.engine, self.memo = engine, {}

    def __getattr__(self, name: str):
        attribute = getattr(self.engine, name)
        if name not in self.PER_ITEM:
            return attribute
        n_columns, kind = self.PER_ITEM[name]

        def remembered(*args, **kwargs):
            args = list(args)
            if n_columns == 2 and len(args) == 1:  # masked_slot without masked_too
                args.append(kwargs.pop("masked_too", None))
            columns, rest = args[:n_columns], args[n_columns:]
            absent = [c is None for c in columns]  # masked_too=None: no per-item argument
            n = len(columns[0])
            columns = [[None] * n if a else c for c, a in zip(columns, absent, strict=True)]
            context = (name, _frozen(rest), tuple(sorted(kwargs.items())))
            keys = [(context, _frozen(item)) for item in zip(*columns, strict=True)]
            missing = [i for i, key in enumerate(keys) if key not in self.memo]
            if missing:
                asked = [
                    None if a else [c[i] for i in missing]
                    for c, a in zip(columns, absent, strict=True)
                ]
                got = attribute(*asked, *rest, **kwargs)
                per_item = zip(*got, strict=True) if kind == "pair" else got
                for i, value in zip(missing, per_item, strict=True):
                    self.memo.setdefault(keys[i], value)
            values = [self.memo[key] for key in keys]
            if kind == "array":
                return np.array(values)
            if kind == "pair":
                return tuple(list(part) for part in zip(*values, strict=True)) if n else ([], [])
            return values

        return remembered
