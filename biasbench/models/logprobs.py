"""The log-probability engine: what a masked or a causal language model says about
sentences, for every probability-based method (LPBS today; CrowS-Pairs, StereoSet, AUL,
DisCo and BEC-Pro need the same pieces).

Masked LMs fill a slot: the log-probability of a target's subword tokens at masked positions,
with the rest of the sentence as context (multi-token targets: all their positions masked,
their log-probabilities summed). Causal LMs cannot fill a slot from the right-hand context;
they give the likelihood of a continuation after a prefix, or of a whole sentence. The LPBS
adaptation for causal LMs compares sentence likelihoods with and without the attribute:

    log p_t(x, w) = log P(template(x, w))      (the whole sentence)
    log p_p(x)    = log P(template(x, -))      (the sentence cut before the attribute slot)

so p_t / p_p = P(attribute and the rest | prefix with x): how strongly the target leads the
model to the attribute. It enters eq. 10 in place of the masked-LM probabilities.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from biasbench.errors import InputError


def mlm_log_probs(
    model: Any,
    tokenizer: Any,
    template: tuple[str, str, str],
    targets: list[str],
    attributes: list[str],
) -> tuple[np.ndarray, np.ndarray]:
    """(log p_t, log p_p), each (attributes, targets), from a masked LM."""
    import torch

    head, middle, tail = template
    if tokenizer.mask_token is None:
        raise InputError("LPBS with a masked LM needs a tokenizer with a mask token")

    def n_tokens(word: str) -> int:
        return len(tokenizer(word, add_special_tokens=False)["input_ids"])

    def masks(k: int) -> str:
        return " ".join([tokenizer.mask_token] * k)

    def score(sentences: list[str], target_tokens: list[int]) -> np.ndarray:
        """Summed log-probability of the target's tokens at the first masks of each sentence."""
        enc = tokenizer(sentences, return_tensors="pt", padding=True)
        with torch.inference_mode():
            logp = torch.log_softmax(model(**enc).logits.float(), dim=-1)
        out = np.zeros(len(sentences))
        for i in range(len(sentences)):
            where = (enc["input_ids"][i] == tokenizer.mask_token_id).nonzero().flatten()
            positions = where[: len(target_tokens)].tolist()
            out[i] = sum(
                float(logp[i, p, t]) for p, t in zip(positions, target_tokens, strict=True)
            )
        return out

    rows_t, rows_p = [], []
    for target in targets:
        toks = tokenizer(target, add_special_tokens=False)["input_ids"]
        slot = masks(len(toks))
        rows_t.append(score([head + slot + middle + a + tail for a in attributes], toks))
        rows_p.append(
            score([head + slot + middle + masks(n_tokens(a)) + tail for a in attributes], toks)
        )
    return np.array(rows_t).T, np.array(rows_p).T


def _pad_id(tokenizer: Any) -> int:
    """The pad id; GPT-2 style tokenizers have none, and any id will do under the mask."""
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer.pad_token_id


def _padded(rows: list[list[int]], pad: int, left: bool):
    """(ids, attention mask) tensors of token-id rows padded to one width."""
    import torch

    width = max(map(len, rows))
    fill = [width - len(r) for r in rows]
    if left:
        return (
            torch.tensor([[pad] * f + r for f, r in zip(fill, rows, strict=True)]),
            torch.tensor([[0] * f + [1] * len(r) for f, r in zip(fill, rows, strict=True)]),
        )
    return (
        torch.tensor([r + [pad] * f for f, r in zip(fill, rows, strict=True)]),
        torch.tensor([[1] * len(r) + [0] * f for f, r in zip(fill, rows, strict=True)]),
    )


def _output_logits(model: Any, hidden: Any) -> Any:
    """The causal LM's logits from final hidden states: its output head, then the logit
    soft-capping of the architectures that have one (Gemma 2)."""
    import torch

    logits = model.get_output_embeddings()(hidden).float()
    cap = getattr(model.config.get_text_config(), "final_logit_softcapping", None)
    return torch.tanh(logits / cap) * cap if cap else logits


def _next_token_log_probs(model: Any, hidden: Any, next_ids: Any, rows: int = 128) -> Any:
    """log P(next_ids[i] | hidden[i]) for packed hidden states (n, hidden): the output head runs
    only on positions that are scored, a chunk of rows at a time, so padding costs no head
    work and the (rows, vocabulary) logits stay small. Over Gemma 3's 262k vocabulary the
    head costs as much as the whole transformer per token."""
    import torch

    out = torch.empty(len(next_ids), dtype=torch.float64)
    for start in range(0, len(next_ids), rows):
        logits = _output_logits(model, hidden[start : start + rows])
        picked = logits.gather(1, next_ids[start : start + rows, None])[:, 0]
        out[start : start + rows] = (picked - torch.logsumexp(logits, dim=1)).double()
    return out


def _scored_sums(model: Any, hidden: Any, next_ids: Any, scored: Any) -> Any:
    """Per row, the summed log P(next_ids[r, j] | hidden[r, j]) over positions with scored[r, j]."""
    import torch

    rows, cols = scored.nonzero(as_tuple=True)
    log_probs = _next_token_log_probs(model, hidden[rows, cols], next_ids[rows, cols])
    return torch.zeros(len(hidden), dtype=torch.float64).index_add_(0, rows, log_probs)


def check_output_head(model: Any, tokenizer: Any) -> None:
    """Fail unless the transformer body plus :func:`_output_logits` reproduce the model's own
    logits: the scoring below needs the head apart from the body, and an architecture that
    scales its logits some other way would otherwise give wrong log-probabilities silently."""
    import torch

    ids = torch.tensor([tokenizer("The check is short.")["input_ids"]])
    with torch.inference_mode():
        own = torch.log_softmax(model(input_ids=ids).logits.float(), dim=-1)
        ours = torch.log_softmax(
            _output_logits(model, model.base_model(input_ids=ids).last_hidden_state), dim=-1
        )
    gap = float((own - ours).abs().max())
    if not gap < 1e-3:
        raise InputError(
            f"{type(model).__name__}: the output head applied to the body's hidden states "
            f"differs from the model's logits by {gap:.3g}; this architecture is not supported "
            "by the causal LPBS scoring"
        )


def _continuation_ids(
    model: Any, tokenizer: Any, head: list[list[int]], tail: list[list[int]], batch: int
) -> np.ndarray:
    """Summed log-probabilities of the ``tail`` token ids after the ``head`` ids, per row.

    Rows are sorted by length and left-padded (position ids from the mask), so every tail
    ends at the last position; the head scores only the tail's tokens.
    """
    import torch

    pad = _pad_id(tokenizer)
    order = np.argsort([len(h) + len(t) for h, t in zip(head, tail, strict=True)], kind="stable")
    out = np.zeros(len(head))
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        ids, mask = _padded([head[i] + tail[i] for i in rows], pad, left=True)
        if ids.shape[1] < 2:
            continue  # one-token rows: nothing to score
        with torch.inference_mode():
            hidden = model.base_model(  # position j predicts token j + 1: the last predicts
                input_ids=ids[:, :-1],  # nothing, so it is never run
                attention_mask=mask[:, :-1],
                position_ids=(mask[:, :-1].cumsum(1) - 1).clamp(min=0),
            ).last_hidden_state
            lengths = torch.tensor([len(tail[i]) for i in rows])
            width = hidden.shape[1]
            scored = torch.arange(width)[None, :] >= width - lengths[:, None]
            out[rows] = _scored_sums(model, hidden, ids[:, 1:], scored).numpy()
    return out


def continuation_log_probs(
    model: Any, tokenizer: Any, prefixes: list[str], continuations: list[str], batch: int = 64
) -> np.ndarray:
    """log P(continuation | prefix) under a causal LM, for each pair. Prefix and continuation
    are tokenised apart and concatenated, so the split is exact."""
    head = tokenizer(prefixes)["input_ids"]
    tail = tokenizer(continuations, add_special_tokens=False)["input_ids"]
    return _continuation_ids(model, tokenizer, head, tail, batch)


def sentence_log_probs(
    model: Any, tokenizer: Any, sentences: list[str], batch: int = 64
) -> np.ndarray:
    """log P(sentence) under a causal LM: every token after the first (the first is BOS when
    the tokenizer adds one, otherwise the sentence's first token is not scored)."""
    ids = tokenizer(sentences)["input_ids"]
    return _continuation_ids(model, tokenizer, [i[:1] for i in ids], [i[1:] for i in ids], batch)


def shared_prefix_log_probs(
    model: Any,
    tokenizer: Any,
    prefixes: list[str],
    continuations: list[str],
    rows_per_batch: int = 512,
) -> np.ndarray:
    """log P(continuation | prefix) for every (prefix, continuation), as (prefixes, continuations).

    Each batch runs a few prefixes once (left-padded) and scores every continuation's first
    token from their last position. The prefixes' key/value caches are then repeated over
    the continuations of one token length at a time, so the transformer runs on no padding,
    and the output head only on the continuations' own tokens. A template's prefix is longer
    than its attribute and tail (2-4 tokens), so this costs a fraction of scoring every
    sentence whole; equal to :func:`continuation_log_probs` (tested).
    """
    import copy

    import torch

    pad = _pad_id(tokenizer)
    heads = tokenizer(prefixes)["input_ids"]
    tails = tokenizer(continuations, add_special_tokens=False)["input_ids"]
    if any(not h for h in heads) or any(not t for t in tails):
        raise InputError("LPBS: an empty prefix or continuation")
    first_ids = torch.tensor([t[0] for t in tails])
    by_length: dict[int, list[int]] = {}
    for col, tail in enumerate(tails):
        if len(tail) > 1:
            by_length.setdefault(len(tail), []).append(col)
    per_batch = max(1, rows_per_batch // len(tails))
    scores = np.zeros((len(heads), len(tails)))
    for start in range(0, len(heads), per_batch):
        group = heads[start : start + per_batch]
        k = len(group)
        head_ids, head_mask = _padded(group, pad, left=True)
        head_lengths = head_mask.sum(1)
        per_chunk = max(1, rows_per_batch // k)
        with torch.inference_mode():
            out = model.base_model(
                input_ids=head_ids,
                attention_mask=head_mask,
                position_ids=(head_mask.cumsum(1) - 1).clamp(min=0),
                use_cache=True,
            )
            last = _output_logits(model, out.last_hidden_state[:, -1])
            total = torch.log_softmax(last, dim=-1)[:, first_ids].double()  # (k, continuations)
            for width, columns in sorted(by_length.items()):
                for c in range(0, len(columns), per_chunk):
                    cols = columns[c : c + per_chunk]
                    ids = torch.tensor([tails[i] for i in cols]).repeat(k, 1)
                    cache = copy.deepcopy(out.past_key_values)
                    cache.batch_repeat_interleave(len(cols))
                    hidden = model.base_model(  # the last token predicts nothing: not run
                        input_ids=ids[:, :-1],
                        attention_mask=torch.cat(
                            [
                                head_mask.repeat_interleave(len(cols), 0),
                                torch.ones_like(ids[:, :-1]),
                            ],
                            1,
                        ),
                        position_ids=head_lengths.repeat_interleave(len(cols))[:, None]
                        + torch.arange(width - 1)[None, :],
                        past_key_values=cache,
                    ).last_hidden_state
                    scored = torch.ones(ids.shape[0], width - 1, dtype=torch.bool)
                    rest = _scored_sums(model, hidden, ids[:, 1:], scored)
                    total[:, cols] += rest.reshape(k, len(cols))
        scores[start : start + k] = total.numpy()
    return scores


def causal_log_probs(
    model: Any,
    tokenizer: Any,
    template: tuple[str, str, str],
    targets: list[str],
    attributes: list[str],
    batch: int = 64,
) -> tuple[np.ndarray, np.ndarray]:
    """(log p_t, log p_p), each (attributes, targets), for a causal LM (see module doc)."""
    from tqdm.auto import tqdm

    head, middle, tail = template
    prefix = [(head + t + middle).rstrip() for t in targets]
    gap = middle[len(middle.rstrip()) :]
    log_pp = sentence_log_probs(model, tokenizer, prefix, batch)
    continuations = [gap + a + tail for a in attributes]
    step = max(1, 8 * batch // len(attributes))  # a few targets per progress step
    cont = np.concatenate(
        [
            shared_prefix_log_probs(
                model, tokenizer, prefix[i : i + step], continuations, 8 * batch
            )
            for i in tqdm(range(0, len(prefix), step), desc=f"LPBS {head}TTT{middle}AAA{tail}")
        ]
    ).T
    return log_pp[None, :] + cont, np.broadcast_to(log_pp, cont.shape).copy()


def mlm_context_log_probs(
    model: Any,
    tokenizer: Any,
    texts: list[str],
    target_spans: list[tuple[int, int]],
    attribute_spans: list[tuple[int, int]],
    batch: int = 32,
) -> tuple[np.ndarray, np.ndarray]:
    """(log p_t, log p_p) per natural context for a masked LM: the target's tokens masked,
    and for the prior the attribute's tokens masked as well (eqs. 8-9 on corpus text)."""
    import torch

    out_t, out_p = np.zeros(len(texts)), np.zeros(len(texts))
    for start in range(0, len(texts), batch):
        rows = range(start, min(start + batch, len(texts)))
        enc = tokenizer(
            [texts[i] for i in rows],
            return_tensors="pt",
            padding=True,
            truncation=True,
            return_offsets_mapping=True,
        )
        offsets = enc.pop("offset_mapping")
        ids = enc["input_ids"]
        target_mask = torch.zeros_like(ids, dtype=torch.bool)
        prior_mask = torch.zeros_like(ids, dtype=torch.bool)
        for r, i in enumerate(rows):
            a, b = offsets[r, :, 0], offsets[r, :, 1]
            real = b > a
            in_t = real & (a < target_spans[i][1]) & (b > target_spans[i][0])
            in_a = real & (a < attribute_spans[i][1]) & (b > attribute_spans[i][0])
            if not in_t.any() or not in_a.any():
                raise InputError(f"LPBS context {texts[i]!r}: a stimulus lost to truncation")
            target_mask[r], prior_mask[r] = in_t, in_t | in_a
        for mask, out in ((target_mask, out_t), (prior_mask, out_p)):
            masked = ids.masked_fill(mask, tokenizer.mask_token_id)
            with torch.inference_mode():
                logits = model(**{**enc, "input_ids": masked}).logits.float()
            token_lp = torch.log_softmax(logits, dim=-1).gather(2, ids[:, :, None])[:, :, 0]
            out[list(rows)] = (token_lp * target_mask).sum(dim=1).numpy()
    return out_t, out_p


def causal_context_log_probs(
    model: Any,
    tokenizer: Any,
    texts: list[str],
    target_spans: list[tuple[int, int]],
    attribute_spans: list[tuple[int, int]],
    batch: int = 64,
) -> tuple[np.ndarray, np.ndarray]:
    """(log p_t, log p_p) per natural context for a causal LM: the likelihood of the text,
    and of the text with the attribute deleted (the adaptation of the module doc; the
    attribute may stand before or after the target in a corpus sentence)."""
    del target_spans  # the target stays in both texts
    without = [
        (t[:a].rstrip() + " " + t[b:].lstrip()).strip()
        for t, (a, b) in zip(texts, attribute_spans, strict=True)
    ]
    return (
        sentence_log_probs(model, tokenizer, texts, batch),
        sentence_log_probs(model, tokenizer, without, batch),
    )
