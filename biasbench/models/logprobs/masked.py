"""A masked LM's log-probabilities: a word's pieces at masked slots (other spans hidden per
piece, word or span for a prior), pieces unmasked one by one, the pseudo-log-likelihood of
chosen tokens, every token of an unmasked sentence and the attention it receives.
Multi-piece targets: all their positions masked, their log-probabilities summed.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import numpy as np

from biasbench.errors import InputError
from biasbench.models.device import model_device
from biasbench.models.logprobs.common import context_length, guard_context, pad_id, padded


def mlm_log_probs(
    model: Any,
    tokenizer: Any,
    template: tuple[str, str, str],
    targets: list[str],
    attributes: list[str],
) -> tuple[np.ndarray, np.ndarray]:
    """(log p_t, log p_p), each (attributes, targets), from a masked LM."""
    import torch

    dev = model_device(model)

    head, middle, tail = template
    if tokenizer.mask_token is None:
        raise InputError("LPBS with a masked LM needs a tokenizer with a mask token")
    guard_context(model, tokenizer)  # a template past the context: refused, not an IndexError

    def n_tokens(word: str) -> int:
        return len(tokenizer(word, add_special_tokens=False)["input_ids"])

    def masks(k: int) -> str:
        return " ".join([tokenizer.mask_token] * k)

    def score(sentences: list[str], targets: list[list[int]]) -> list[np.ndarray]:
        """Per target (each of the same number of pieces), the summed log-probability of its
        pieces at the first masks of each sentence (the head's logits only there, once for
        all the targets)."""
        enc = tokenizer(sentences, return_tensors="pt", padding=True).to(dev)
        k = len(targets[0])
        rows, cols = [], []
        for i in range(len(sentences)):
            where = (enc["input_ids"][i] == tokenizer.mask_token_id).nonzero().flatten()
            if len(where) < k:
                raise InputError(f"LPBS: {sentences[i]!r} holds fewer masks than the target")
            rows += [i] * k
            cols += where[:k].tolist()
        with torch.inference_mode():
            logits = masked_logits(
                model, enc, torch.tensor(rows, device=dev), torch.tensor(cols, device=dev)
            )
            logp = torch.log_softmax(logits.float(), dim=-1).double().view(len(sentences), k, -1)
        at = torch.arange(k, device=dev)
        return [logp[:, at, torch.tensor(ids, device=dev)].sum(1).cpu().numpy() for ids in targets]

    pieces = {t: tokenizer(t, add_special_tokens=False)["input_ids"] for t in targets}
    rows_t, rows_p = {}, {}
    for k in sorted({len(p) for p in pieces.values()}):  # the same masked sentences
        slot = masks(k)
        same = [t for t in targets if len(pieces[t]) == k]
        with_attribute = [head + slot + middle + a + tail for a in attributes]
        prior = [head + slot + middle + masks(n_tokens(a)) + tail for a in attributes]
        for table, sentences in ((rows_t, with_attribute), (rows_p, prior)):
            table.update(zip(same, score(sentences, [pieces[t] for t in same]), strict=True))
    return (np.array([rows_t[t] for t in targets]).T, np.array([rows_p[t] for t in targets]).T)


def mlm_context_log_probs(
    model: Any,
    tokenizer: Any,
    texts: list[str],
    target_spans: list[tuple[int, int]],
    attribute_spans: list[tuple[int, int]],
    batch: int = 32,
) -> tuple[np.ndarray, np.ndarray]:
    """(log p_t, log p_p) per natural context for a masked LM: the target's tokens masked,
    and for the prior the attribute's tokens masked as well (eqs. 8-9 on corpus text). The
    contexts run shortest first, so a batch pads little (they range from a few tokens to
    dozens)."""
    import torch

    dev = model_device(model)

    out_t, out_p = np.zeros(len(texts)), np.zeros(len(texts))
    guard_context(model, tokenizer)
    # texts are cut to what the model reads, where that is shorter than its tokenizer's length
    # (a tokenizer without one declares a huge number: no cut, as the tokenizer would do)
    declared = (tokenizer.model_max_length, context_length(model))
    cut = min((n for n in declared if n and n < 10**9), default=None)
    lengths = [len(i) for i in tokenizer(texts, truncation=True, max_length=cut)["input_ids"]]
    order = np.argsort(lengths, kind="stable")
    for start in range(0, len(texts), batch):
        rows = order[start : start + batch].tolist()
        enc = tokenizer(
            [texts[i] for i in rows],
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=cut,
            return_offsets_mapping=True,
        ).to(dev)
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
                raise InputError(
                    f"LPBS context {texts[i]!r}: a stimulus lost to truncation (the text "
                    f"is cut to {cut} tokens, the model's context)"
                )
            target_mask[r], prior_mask[r] = in_t, in_t | in_a
        at, cols = target_mask.nonzero(as_tuple=True)  # the head runs at the target only
        for mask, out in ((target_mask, out_t), (prior_mask, out_p)):
            masked = ids.masked_fill(mask, tokenizer.mask_token_id)
            with torch.inference_mode():
                logits = masked_logits(model, {**enc, "input_ids": masked}, at, cols).float()
            token_lp = torch.log_softmax(logits, dim=-1).gather(1, ids[at, cols][:, None])[:, 0]
            per_row = torch.zeros(len(rows), dtype=token_lp.dtype, device=token_lp.device)
            out[rows] = per_row.index_add_(0, at, token_lp).cpu().numpy()
    return out_t, out_p


def shared_token_positions(a: list[int], b: list[int]) -> tuple[list[int], list[int]]:
    """Positions of the tokens two sentences share (CrowS-Pairs' unmodified tokens), as the
    authors' ``metric.py``: the matching blocks of difflib over the whole token ids, special
    tokens included, then the first and the last of those positions left out (the
    [CLS]/[SEP], or a causal LM's start token and a sentinel)."""
    import difflib

    pa, pb = [], []
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        pa += [block.a + k for k in range(block.size)]
        pb += [block.b + k for k in range(block.size)]
    return pa[1:-1], pb[1:-1]


def mlm_pseudo_log_likelihood(
    model: Any, tokenizer: Any, ids: list[list[int]], positions: list[list[int]], batch: int = 128
) -> np.ndarray:
    """Per sentence, the sum over ``positions`` of log P(the token there | the sentence with
    that token masked): the pseudo-log-likelihood of Salazar et al., over the given tokens.
    The masked copies run shortest first, so a batch pads little (a copy per shared token:
    the body's work is most of a CrowS-Pairs run); each sentence sums in position order."""
    import torch

    dev = model_device(model)

    copies = [(i, j) for i, pos in enumerate(positions) for j in pos]
    order = sorted(range(len(copies)), key=lambda c: len(ids[copies[c][0]]))
    lp = np.zeros(len(copies))
    pad = pad_id(tokenizer)
    for start in range(0, len(order), batch):
        chunk = order[start : start + batch]
        rows = [list(ids[copies[c][0]]) for c in chunk]
        for row, c in zip(rows, chunk, strict=True):
            row[copies[c][1]] = tokenizer.mask_token_id
        tensor, mask = padded(rows, pad, left=False, device=dev)
        at = torch.arange(len(chunk), device=dev)
        cols = torch.tensor([copies[c][1] for c in chunk], device=dev)
        with torch.inference_mode():
            logits = masked_logits(model, {"input_ids": tensor, "attention_mask": mask}, at, cols)
        truth = torch.tensor([ids[i][j] for i, j in (copies[c] for c in chunk)], device=dev)
        lp[chunk] = torch.log_softmax(logits.double(), dim=-1)[at, truth].cpu().numpy()
    out = np.zeros(len(ids))
    np.add.at(out, [i for i, _ in copies], lp)
    return out


def mlm_unmasked_log_probs(
    model: Any, tokenizer: Any, sentences: list[str], attention: bool = False, batch: int = 64
) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Per sentence, log P(w_i | the whole sentence, nothing masked) of every non-special
    token (AUL) and, with ``attention``, the mean attention each of them receives over all
    layers and heads (AULA's weights). The output head runs on those tokens only: over a
    small model's vocabulary it costs more than the body. The sentences run shortest
    first, so a batch pads little."""
    import torch

    dev = model_device(model)
    with attention_weights_returned(model, attention):
        out: list[tuple[np.ndarray, np.ndarray | None]] = [(np.zeros(0), None)] * len(sentences)
        lengths = [len(i) for i in tokenizer(sentences)["input_ids"]]
        order = np.argsort(lengths, kind="stable").tolist()
        for start in range(0, len(sentences), batch):
            chunk = order[start : start + batch]
            enc = tokenizer(
                [sentences[i] for i in chunk],
                return_tensors="pt",
                padding=True,
                return_special_tokens_mask=True,
            ).to(dev)
            keep = enc["attention_mask"].bool() & ~enc.pop("special_tokens_mask").bool()
            rows, cols = keep.nonzero(as_tuple=True)  # row-major: each sentence's tokens in order
            with torch.inference_mode():
                found = masked_logits(model, enc, rows, cols, attention)
                logits, attentions = found if attention else (found, None)
                lp = torch.log_softmax(logits.double(), -1)[
                    torch.arange(len(rows), device=dev), enc["input_ids"][rows, cols]
                ]
                received = None
                # (layers, batch, heads, query, key) -> mean over layers, heads, queries
                if attention:
                    stacked = torch.stack(attentions)
                    queries = enc["attention_mask"][None, :, None, :, None]
                    received = (stacked * queries).sum(3).mean((0, 2))
                    received = received / enc["attention_mask"].sum(1, keepdim=True)
            counts = keep.sum(1).tolist()
            for r, piece in enumerate(np.split(lp.cpu().numpy(), np.cumsum(counts)[:-1])):
                weights = received[r][keep[r]].double().cpu().numpy() if attention else None
                out[chunk[r]] = (piece, weights)
        return out


@contextmanager
def attention_weights_returned(model: Any, attention: bool):
    """Eager attention while a call asks for the weights (fused attention returns none), the
    model's own implementation again after it: the numbers of whatever the job computes next
    (another data set) are those of a job of their own."""
    loaded = model.config._attn_implementation
    if attention and loaded != "eager":
        model.set_attn_implementation("eager")
    try:
        yield
    finally:
        if model.config._attn_implementation != loaded:
            model.set_attn_implementation(loaded)


#: how many [MASK]s stand for another masked span of a text (a prior's hidden word)
MASK_UNITS = ("piece", "word", "span")


def _mask_count(tokenizer: Any, text: str, per: str) -> int:
    """[MASK]s for a hidden span: one per word piece, per whitespace word (BEC-Pro's corpus),
    or one for the whole span (Kurita et al.'s "[MASK] is a [MASK]")."""
    if per == "piece":
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])
    if per == "word":
        return len(text.split())
    if per == "span":
        return 1
    raise ValueError(f"mask unit must be one of {MASK_UNITS}, not {per!r}")


def masked_slot_text(
    tokenizer: Any, piece: tuple[str, str, str], extra: list[tuple[int, int]], per: str
) -> tuple[str, int]:
    """(the text of ``piece`` = (before, word, after) with the word's pieces masked, one [MASK]
    each, and the ``extra`` character ranges masked ``per`` piece, word or span; how many
    [MASK]s stand before the word's own)."""
    before, word, after = piece
    text = before + word + after
    spans = sorted(
        [(len(before), len(before) + len(word), True)] + [(a, b, False) for a, b in extra]
    )
    built, cursor, offset = "", 0, 0
    for a, b, is_word in spans:
        if is_word:
            n = len(tokenizer(word, add_special_tokens=False)["input_ids"])
        else:
            n = _mask_count(tokenizer, text[a:b], per)
            offset += n if b <= len(before) else 0
        built += text[cursor:a] + " ".join([tokenizer.mask_token] * n)
        cursor = b
    return built + text[cursor:], offset


def mask_log_probs(
    model: Any, tokenizer: Any, texts: list[str], reads: list[list[tuple[int, int]]], batch: int
) -> list[np.ndarray]:
    """Per text, log P(target) at each (n-th [MASK] of the text, target id) it reads, in
    batches of similar length; the output head runs at those masks only."""
    import torch

    dev = model_device(model)

    out = [np.zeros(len(r)) for r in reads]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # batches pad little
    for start in range(0, len(texts), batch):
        rows = order[start : start + batch]
        enc = tokenizer([texts[i] for i in rows], return_tensors="pt", padding=True).to(dev)
        at_rows, at_cols, wanted = [], [], []
        for r, i in enumerate(rows):
            masks = (enc["input_ids"][r] == tokenizer.mask_token_id).nonzero().flatten().tolist()
            for j, (n, target) in enumerate(reads[i]):
                if n < len(masks):
                    at_rows.append(r)
                    at_cols.append(masks[n])
                    wanted.append((i, j, target))
        if not wanted:
            continue
        with torch.inference_mode():
            logits = masked_logits(
                model, enc, torch.tensor(at_rows, device=dev), torch.tensor(at_cols, device=dev)
            )
        logp = torch.log_softmax(logits.double(), dim=-1)
        picked = (
            logp[
                torch.arange(len(wanted), device=dev),
                torch.tensor([t for *_, t in wanted], device=dev),
            ]
            .cpu()
            .numpy()
        )
        for (i, j, _), value in zip(wanted, picked, strict=True):
            out[i][j] = value
    return out


def mlm_masked_slot_log_probs(
    model: Any,
    tokenizer: Any,
    pieces: list[tuple[str, str, str]],
    masked_too: list[list[tuple[int, int]]] | None = None,
    batch: int = 64,
    per: str = "piece",
) -> np.ndarray:
    """log P(the word's word pieces at its slot) for (before, word, after) texts: the word's
    pieces masked, one [MASK] per piece, and with ``masked_too`` other character ranges of
    before + word + after masked as well (a prior: BEC-Pro's profession masked too), one
    [MASK] per word piece, per word or for the whole range (``per``, :func:`masked_slot_text`)."""
    built = [
        masked_slot_text(tokenizer, piece, masked_too[k] if masked_too else [], per)
        for k, piece in enumerate(pieces)
    ]
    reads = [
        [
            (first + j, t)
            for j, t in enumerate(tokenizer(word, add_special_tokens=False)["input_ids"])
        ]
        for (_, word, _), (_, first) in zip(pieces, built, strict=True)
    ]
    per_text = mask_log_probs(model, tokenizer, [text for text, _ in built], reads, batch)
    return np.array([v.sum() for v in per_text])


def mlm_stepwise_log_probs(
    model: Any, tokenizer: Any, pieces: list[tuple[str, str, str]], batch: int = 64
) -> list[np.ndarray]:
    """Per (before, word, after), log P of each of the word's pieces predicted at one [MASK]
    with the pieces before it written out and those after it absent: before + decode(pieces
    < k) + [MASK] + after (StereoSet's evaluator unmasks a filler this way)."""
    texts, reads, owner = [], [], []
    for i, (before, word, after) in enumerate(pieces):
        ids = tokenizer(word, add_special_tokens=False)["input_ids"]
        for k, target in enumerate(ids):
            texts.append(before + tokenizer.decode(ids[:k]) + tokenizer.mask_token + after)
            reads.append([(0, target)])
            owner.append(i)
    values = mask_log_probs(model, tokenizer, texts, reads, batch)
    out: list[list[float]] = [[] for _ in pieces]
    for i, value in zip(owner, values, strict=True):
        out[i].append(value[0])
    return [np.array(v) for v in out]


def masked_logits(model: Any, inputs: dict, rows: Any, cols: Any, attention: bool = False):
    """A masked LM's logits at (rows, cols) only, and with ``attention`` (logits, the attention
    weights of every layer): the body runs on every position, the head (BERT's ``cls``,
    RoBERTa's ``lm_head``) only where a token is read, a fraction of the positions; other
    architectures compute every position's logits and pick. A model with its own
    ``logits_at`` (a ground-truth study model) is asked for exactly that."""
    if hasattr(model, "logits_at"):
        return model.logits_at(inputs, rows, cols, attention)
    head = getattr(model, "cls", None) or getattr(model, "lm_head", None)
    if head is None:
        result = model(**inputs, output_attentions=attention)
        logits = result.logits[rows, cols]
    else:
        result = model.base_model(**inputs, output_attentions=attention)
        logits = head(result.last_hidden_state[rows, cols])
    return (logits, result.attentions) if attention else logits


def first_mask(ids: Any, mask_id: int) -> Any:
    """Position of the first [MASK] of each row."""
    import torch

    is_mask = ids == mask_id
    if not bool(is_mask.any(1).all()):
        raise InputError("a text to fill has no mask token")
    return torch.argmax(is_mask.int(), dim=1)
