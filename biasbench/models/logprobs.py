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


def causal_ids(tokenizer: Any, texts: list[str]) -> list[list[int]]:
    """Each text's token ids for a causal LM after the model's start token: its BOS, or where
    it has none its end-of-text token (as GPT-2 is scored in the reference code). Every token
    of the text is then scored; a tokenizer that adds no BOS itself (SmolLM2) would otherwise
    leave the first token unscored and every other token conditioned on a different prefix."""
    start = tokenizer.bos_token_id
    if start is None:
        start = tokenizer.eos_token_id
    if start is None:
        raise InputError(
            f"{getattr(tokenizer, 'name_or_path', 'the tokenizer')}: a causal LM needs a BOS or "
            "end-of-text token to condition a sentence's first token on; its tokenizer has "
            "neither (set bos_token in its tokenizer_config.json)"
        )
    return [[start, *ids] for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]


def _continuation_tokens(
    model: Any, tokenizer: Any, head: list[list[int]], tail: list[list[int]], batch: int
) -> list[np.ndarray]:
    """Per row, log P of each ``tail`` token given the ``head`` ids and the tail before it.

    Rows are sorted by length and left-padded (position ids from the mask), so every tail
    ends at the last position; the output head scores only the tail's tokens.
    """
    import torch

    pad = _pad_id(tokenizer)
    order = np.argsort([len(h) + len(t) for h, t in zip(head, tail, strict=True)], kind="stable")
    out: list[np.ndarray] = [np.zeros(0)] * len(head)
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
            r, c = scored.nonzero(as_tuple=True)  # row-major: each row's tail in order
            flat = _next_token_log_probs(model, hidden[r, c], ids[:, 1:][r, c]).numpy()
        for row, piece in zip(rows, np.split(flat, np.cumsum(lengths.numpy())[:-1]), strict=True):
            out[row] = piece
    return out


def _continuation_ids(
    model: Any, tokenizer: Any, head: list[list[int]], tail: list[list[int]], batch: int
) -> np.ndarray:
    """Summed log-probabilities of the ``tail`` token ids after the ``head`` ids, per row."""
    return np.array([t.sum() for t in _continuation_tokens(model, tokenizer, head, tail, batch)])


def continuation_log_probs(
    model: Any, tokenizer: Any, prefixes: list[str], continuations: list[str], batch: int = 64
) -> np.ndarray:
    """log P(continuation | prefix) under a causal LM, for each pair. Prefix and continuation
    are tokenised apart and concatenated, so the split is exact."""
    head = causal_ids(tokenizer, prefixes)
    tail = tokenizer(continuations, add_special_tokens=False)["input_ids"]
    return _continuation_ids(model, tokenizer, head, tail, batch)


def sentence_log_probs(
    model: Any, tokenizer: Any, sentences: list[str], batch: int = 64
) -> np.ndarray:
    """log P(sentence) under a causal LM: every token, the first given the start token
    (:func:`causal_ids`)."""
    ids = causal_ids(tokenizer, sentences)
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
    heads = causal_ids(tokenizer, prefixes)
    tails = tokenizer(continuations, add_special_tokens=False)["input_ids"]
    if any(not t for t in tails):
        raise InputError("LPBS: an empty continuation")
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
            out = _cached_body(model, head_ids, head_mask)
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
    return sentence_pair_log_probs(model, tokenizer, texts, without, batch)


def _cached_body(model: Any, ids: Any, mask: Any) -> Any:
    """The body on left-padded rows (positions counted from each row's first token), keeping
    the keys and values for the tokens that follow."""
    return model.base_model(
        input_ids=ids,
        attention_mask=mask,
        position_ids=(mask.cumsum(1) - 1).clamp(min=0),
        use_cache=True,
    )


def _common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading token ids two sequences share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _cache_rows(cache: Any, rows: Any) -> Any:
    """A new key/value cache of some batch rows of ``cache`` (which stays as it is), each
    layer of the same kind (full or sliding-window attention)."""
    from transformers import DynamicCache

    return DynamicCache([(k[rows], v[rows], *kind) for k, v, *kind in cache])


def sentence_pair_log_probs(
    model: Any,
    tokenizer: Any,
    first: list[str],
    second: list[str],
    batch: int = 64,
    rows_per_call: int = 16,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sentence_log_probs` of ``first`` and of ``second``, whose sentences begin like
    their ``first`` (a corpus context without its attribute): the tokens before the
    attribute, a fifth to a quarter of a context's, run once, not twice.

    The first sentences run as in :func:`sentence_log_probs`, keeping their key/value cache.
    Every sentence is tokenised whole, and a second sentence takes the log-probabilities of
    the ids it shares with its first (their common prefix) from that run; only its other
    tokens run, on the first's cache masked to the shared prefix, ``rows_per_call`` rows of
    similar length at a time so that padding stays small. Equal to scoring both lists apart
    up to float rounding (tested).
    """
    import torch

    pad = _pad_id(tokenizer)
    whole, cut = causal_ids(tokenizer, first), causal_ids(tokenizer, second)
    if any(len(w) < 2 for w in whole):
        raise InputError("an empty sentence: nothing to score")
    out_first, out_second = np.zeros(len(whole)), np.zeros(len(cut))
    order = np.argsort([len(w) for w in whole], kind="stable")
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        ids, mask = _padded([whole[i] for i in rows], pad, left=True)
        run = mask[:, :-1]  # position j predicts token j + 1: the last token is not run
        fill = (1 - mask).sum(1)  # left padding
        # shared ids (at most the run ones), and the second's tokens after them
        k = [min(_common_prefix(whole[i], cut[i]), len(whole[i]) - 1) for i in rows]
        rests = [cut[i][n:] for i, n in zip(rows, k, strict=True)]
        shared = torch.tensor(k)
        cols = torch.arange(run.shape[1])[None, :]
        with torch.inference_mode():
            out = _cached_body(model, ids[:, :-1], run)
            hidden, scored = out.last_hidden_state, run.bool()
            token_lp = torch.zeros(scored.shape, dtype=torch.float64)
            token_lp[scored] = _next_token_log_probs(model, hidden[scored], ids[:, 1:][scored])
            out_first[rows] = token_lp.sum(1).numpy()
            # the second's tokens 1 .. k - 1 as the first's, its token k from the state
            # before it, the tokens after that from states of its own
            within = (cols >= fill[:, None]) & (cols < (fill + shared - 1)[:, None])
            second_lp = torch.where(within, token_lp, 0.0).sum(1)
            on = [r for r, (n, rest) in enumerate(zip(k, rests, strict=True)) if n and rest]
            second_lp[on] += _next_token_log_probs(
                model,
                hidden[on, (fill + shared - 1)[on]],
                torch.tensor([rests[r][0] for r in on], dtype=torch.long),
            )
            longer = sorted(
                (r for r in range(len(rows)) if len(rests[r]) > 1), key=lambda r: len(rests[r])
            )
            for c in range(0, len(longer), rows_per_call):
                part = longer[c : c + rows_per_call]
                rest, rest_mask = _padded([rests[r] for r in part], pad, left=False)
                seen = (cols >= fill[part, None]) & (cols < (fill + shared)[part, None])
                rest_hidden = model.base_model(
                    input_ids=rest[:, :-1],
                    attention_mask=torch.cat([seen.long(), rest_mask[:, :-1]], 1),
                    position_ids=shared[part, None] + torch.arange(rest.shape[1] - 1)[None, :],
                    past_key_values=_cache_rows(out.past_key_values, part),
                ).last_hidden_state
                second_lp[part] += _scored_sums(
                    model, rest_hidden, rest[:, 1:], rest_mask[:, 1:].bool()
                )
        out_second[rows] = second_lp.numpy()
    return out_first, out_second


def shared_token_positions(a: list[int], b: list[int]) -> tuple[list[int], list[int]]:
    """Positions of the tokens two sentences share (CrowS-Pairs' unmodified tokens: the
    matching blocks of difflib over the token ids, the first and last token left out as the
    [CLS]/[SEP] or BOS they are)."""
    import difflib

    inner_a, inner_b = a[1:-1], b[1:-1]
    pa, pb = [], []
    for block in difflib.SequenceMatcher(
        None, inner_a, inner_b, autojunk=False
    ).get_matching_blocks():
        pa += [1 + block.a + k for k in range(block.size)]
        pb += [1 + block.b + k for k in range(block.size)]
    return pa, pb


def mlm_pseudo_log_likelihood(
    model: Any, tokenizer: Any, ids: list[list[int]], positions: list[list[int]], batch: int = 128
) -> np.ndarray:
    """Per sentence, the sum over ``positions`` of log P(the token there | the sentence with
    that token masked): the pseudo-log-likelihood of Salazar et al., over the given tokens.
    The masked copies run shortest first, so a batch pads little (a copy per shared token:
    the body's work is most of a CrowS-Pairs run); each sentence sums in position order."""
    import torch

    copies = [(i, j) for i, pos in enumerate(positions) for j in pos]
    order = sorted(range(len(copies)), key=lambda c: len(ids[copies[c][0]]))
    lp = np.zeros(len(copies))
    pad = _pad_id(tokenizer)
    for start in range(0, len(order), batch):
        chunk = order[start : start + batch]
        rows = [list(ids[copies[c][0]]) for c in chunk]
        for row, c in zip(rows, chunk, strict=True):
            row[copies[c][1]] = tokenizer.mask_token_id
        tensor, mask = _padded(rows, pad, left=False)
        at = torch.arange(len(chunk))
        cols = torch.tensor([copies[c][1] for c in chunk])
        with torch.inference_mode():
            logits = _masked_logits(model, {"input_ids": tensor, "attention_mask": mask}, at, cols)
        truth = torch.tensor([ids[i][j] for i, j in (copies[c] for c in chunk)])
        lp[chunk] = torch.log_softmax(logits.double(), dim=-1)[at, truth].numpy()
    out = np.zeros(len(ids))
    np.add.at(out, [i for i, _ in copies], lp)
    return out


def mlm_unmasked_log_probs(
    model: Any, tokenizer: Any, sentences: list[str], attention: bool = False, batch: int = 64
) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Per sentence, log P(w_i | the whole sentence, nothing masked) of every non-special
    token (AUL) and, with ``attention``, the mean attention each of them receives over all
    layers and heads (AULA's weights). The output head runs on those tokens only: over a
    small model's vocabulary it costs more than the body."""
    import torch

    if attention and model.config._attn_implementation != "eager":
        model.set_attn_implementation("eager")  # fused attention returns no weights
    out = []
    for start in range(0, len(sentences), batch):
        enc = tokenizer(
            sentences[start : start + batch],
            return_tensors="pt",
            padding=True,
            return_special_tokens_mask=True,
        )
        keep = enc["attention_mask"].bool() & ~enc.pop("special_tokens_mask").bool()
        rows, cols = keep.nonzero(as_tuple=True)  # row-major: each sentence's tokens in order
        with torch.inference_mode():
            found = _masked_logits(model, enc, rows, cols, attention)
            logits, attentions = found if attention else (found, None)
            lp = torch.log_softmax(logits.double(), -1)[
                torch.arange(len(rows)), enc["input_ids"][rows, cols]
            ]
            received = None
            if attention:  # (layers, batch, heads, query, key) -> mean over layers, heads, queries
                stacked = torch.stack(attentions)
                queries = enc["attention_mask"][None, :, None, :, None]
                received = (stacked * queries).sum(3).mean((0, 2))
                received = received / enc["attention_mask"].sum(1, keepdim=True)
        counts = keep.sum(1).tolist()
        for r, piece in enumerate(np.split(lp.numpy(), np.cumsum(counts)[:-1])):
            out.append((piece, received[r][keep[r]].double().numpy() if attention else None))
    return out


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
    import torch

    built = [
        masked_slot_text(tokenizer, piece, masked_too[k] if masked_too else [], per)
        for k, piece in enumerate(pieces)
    ]
    texts = [text for text, _ in built]
    targets = [tokenizer(word, add_special_tokens=False)["input_ids"] for _, word, _ in pieces]
    out = np.zeros(len(texts))
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # batches pad little
    for start in range(0, len(texts), batch):
        rows = order[start : start + batch]
        enc = tokenizer([texts[i] for i in rows], return_tensors="pt", padding=True)
        at_rows, at_cols, wanted = [], [], []
        for r, i in enumerate(rows):
            masks = (enc["input_ids"][r] == tokenizer.mask_token_id).nonzero().flatten().tolist()
            first = built[i][1]
            slots = masks[first : first + len(targets[i])]
            at_rows += [r] * len(slots)
            at_cols += slots
            wanted += list(zip([i] * len(slots), targets[i], strict=False))
        with torch.inference_mode():
            logits = _masked_logits(model, enc, torch.tensor(at_rows), torch.tensor(at_cols))
        logp = torch.log_softmax(logits.double(), dim=-1)
        truth = torch.tensor([t for _, t in wanted])
        picked = logp[torch.arange(len(wanted)), truth].numpy()
        np.add.at(out, [i for i, _ in wanted], picked)
    return out


def mlm_stepwise_log_probs(
    model: Any, tokenizer: Any, pieces: list[tuple[str, str, str]], batch: int = 64
) -> list[np.ndarray]:
    """Per (before, word, after), log P of each of the word's pieces predicted at one [MASK]
    with the pieces before it written out and those after it absent: before + decode(pieces
    < k) + [MASK] + after (StereoSet's evaluator unmasks a filler this way)."""
    import torch

    texts, rows_of, targets = [], [], []
    for i, (before, word, after) in enumerate(pieces):
        ids = tokenizer(word, add_special_tokens=False)["input_ids"]
        for k, target in enumerate(ids):
            texts.append(before + tokenizer.decode(ids[:k]) + tokenizer.mask_token + after)
            rows_of.append(i)
            targets.append(target)
    values = np.zeros(len(texts))
    order = sorted(range(len(texts)), key=lambda j: len(texts[j]))  # batches pad little
    for start in range(0, len(texts), batch):
        rows = order[start : start + batch]
        enc = tokenizer([texts[j] for j in rows], return_tensors="pt", padding=True)
        first = _first_mask(enc["input_ids"], tokenizer.mask_token_id)
        with torch.inference_mode():
            logits = _masked_logits(model, enc, torch.arange(len(rows)), first)
        logp = torch.log_softmax(logits.double(), dim=-1)
        values[rows] = logp[torch.arange(len(rows)), torch.tensor([targets[j] for j in rows])]
    out: list[list[float]] = [[] for _ in pieces]
    for j, i in enumerate(rows_of):
        out[i].append(values[j])
    return [np.array(v) for v in out]


def _masked_logits(model: Any, inputs: dict, rows: Any, cols: Any, attention: bool = False):
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


def _prefix_shared_tokens(
    model: Any,
    tokenizer: Any,
    head: list[list[int]],
    tail: list[list[int]],
    batch: int,
) -> list[np.ndarray]:
    """Per row, log P of each ``tail`` token given the ``head`` ids and the tail before it.
    Each batch runs its distinct heads once (left-padded), their keys and values then serve
    every tail (right-padded): a repeated head costs its tokens once. Equal to
    :func:`_continuation_tokens` up to float rounding. The matrix of every prefix with every
    continuation keeps its own :func:`shared_prefix_log_probs` (no padding: the tails run by
    width): through this function it took 2-2.5x as long on LPBS Dis (4 x 446 pairs)."""
    import torch

    if not all(tail):
        raise InputError("an empty continuation")
    pad, out = _pad_id(tokenizer), [np.zeros(0)] * len(head)
    groups: dict[tuple, list[int]] = {}
    for i, h in enumerate(head):
        groups.setdefault(tuple(h), []).append(i)
    # a head's rows together, by their longest tail, then by head: the tails pad little
    by_size = sorted(groups.values(), key=lambda g: (max(len(tail[i]) for i in g), len(head[g[0]])))
    order = [i for rows in by_size for i in rows]
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        distinct = {h: k for k, h in enumerate(dict.fromkeys(tuple(head[i]) for i in rows))}
        which = torch.tensor([distinct[tuple(head[i])] for i in rows])
        head_ids, head_mask = _padded([list(h) for h in distinct], pad, left=True)
        tail_ids, tail_mask = _padded([tail[i] for i in rows], pad, left=False)
        rest = [np.zeros(0)] * len(rows)
        with torch.inference_mode():
            first = _cached_body(model, head_ids, head_mask)
            lead = _next_token_log_probs(  # each tail's first token, after its head's last
                model, first.last_hidden_state[which, -1], tail_ids[:, 0]
            ).numpy()
            width = tail_ids.shape[1]
            if width > 1:  # the rest of each tail, on its head's keys and values
                cache = first.past_key_values
                cache.batch_select_indices(which)
                hidden = model.base_model(  # the last token predicts nothing: not run
                    input_ids=tail_ids[:, :-1],
                    attention_mask=torch.cat([head_mask[which], tail_mask[:, :-1]], 1),
                    position_ids=head_mask.sum(1)[which, None] + torch.arange(width - 1),
                    past_key_values=cache,
                ).last_hidden_state
                r, c = tail_mask[:, 1:].nonzero(as_tuple=True)  # row-major
                flat = _next_token_log_probs(model, hidden[r, c], tail_ids[:, 1:][r, c])
                rest = np.split(flat.numpy(), np.cumsum(tail_mask[:, 1:].sum(1).numpy())[:-1])
        for k, i in enumerate(rows):
            out[i] = np.concatenate([lead[k : k + 1], rest[k]])
    return out


class Engine:
    """One model's log-probabilities for the probability-based measures: what a masked LM
    says of masked slots and of whole sentences, what a causal LM says of sentences and
    continuations. The scoring layer asks it for numbers and never touches the model."""

    def __init__(self, model: Any, tokenizer: Any, masked: bool, batch: int = 64):
        self.model, self.tokenizer, self.masked, self.batch = model, tokenizer, masked, batch

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
        return ids, _continuation_tokens(self.model, self.tokenizer, heads, tails, self.batch)

    def continuation_tokens(
        self, prefixes: list[str], continuations: list[str]
    ) -> list[np.ndarray]:
        """Per pair, log P of each continuation token given the prefix and the tokens before
        it (WinoBias' two candidates, StereoSet's three, BEC-Pro's professions after one person
        share their prefix: it runs once); the prefix starts with the start token."""
        head = causal_ids(self.tokenizer, prefixes)
        tail = self.tokenizer(continuations, add_special_tokens=False)["input_ids"]
        return _prefix_shared_tokens(self.model, self.tokenizer, head, tail, self.batch)

    def slot_log_probs(self, texts: list[str]) -> np.ndarray:
        """A masked LM's log-distribution over the vocabulary at the first [MASK] of each
        text, (texts, vocabulary)."""
        import torch

        out = []
        for start in range(0, len(texts), self.batch):
            enc = self.tokenizer(
                texts[start : start + self.batch], return_tensors="pt", padding=True
            )
            first = _first_mask(enc["input_ids"], self.tokenizer.mask_token_id)
            with torch.inference_mode():
                logits = _masked_logits(self.model, enc, torch.arange(len(first)), first)
            out.append(torch.log_softmax(logits.double(), -1).numpy())
        return np.concatenate(out)

    def next_token_log_probs(self, prefixes: list[str]) -> np.ndarray:
        """A causal LM's log-distribution of the token after each prefix, (prefixes,
        vocabulary)."""
        import torch

        pad, out = _pad_id(self.tokenizer), []
        ids = causal_ids(self.tokenizer, prefixes)
        for start in range(0, len(ids), self.batch):
            tensor, mask = _padded(ids[start : start + self.batch], pad, left=True)
            with torch.inference_mode():
                hidden = self.model.base_model(
                    input_ids=tensor,
                    attention_mask=mask,
                    position_ids=(mask.cumsum(1) - 1).clamp(min=0),
                ).last_hidden_state[:, -1]
                out.append(torch.log_softmax(_output_logits(self.model, hidden), -1).double())
        return torch.cat(out).numpy()

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
        alphabetic word (the word's first token stands for it)."""
        top, over = [], []
        for start in range(0, len(texts), self.batch):
            chunk = texts[start : start + self.batch]
            if self.masked:
                log_p = self.slot_log_probs(chunk)
            else:
                log_p = np.where(self.word_starts(), self.next_token_log_probs(chunk), -np.inf)
            for row in log_p:
                order = _likeliest(row, max(k, int((row > np.log(threshold)).sum())))
                chosen = (order[:k], order[row[order] > np.log(threshold)])
                words = [self.tokenizer.convert_ids_to_tokens(c.tolist()) for c in chosen]
                if not self.masked:
                    words = [
                        [self.tokenizer.convert_tokens_to_string([w]).strip() for w in ws]
                        for ws in words
                    ]
                top.append(words[0])
                over.append(words[1])
        return top, over


def _likeliest(row: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` entries of ``np.argsort(-row, kind="stable")`` (ties in index order),
    without sorting the whole vocabulary: only the entries at least the n-th largest."""
    cut = np.partition(row, len(row) - n)[len(row) - n]
    candidates = np.flatnonzero(row >= cut)
    return candidates[np.argsort(-row[candidates], kind="stable")][:n]


def _first_mask(ids: Any, mask_id: int) -> Any:
    """Position of the first [MASK] of each row."""
    import torch

    is_mask = ids == mask_id
    if not bool(is_mask.any(1).all()):
        raise InputError("a text to fill has no mask token")
    return torch.argmax(is_mask.int(), dim=1)
