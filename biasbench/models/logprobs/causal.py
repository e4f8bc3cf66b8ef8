"""A causal LM's log-probabilities: of every token of a sentence after the model's start
token, of continuations after a prefix (a shared prefix run once), of sentence pairs that
begin alike. Causal LMs cannot fill a slot from the right-hand context, so LPBS and
probability-based CEAT compare sentence likelihoods with and without the attribute:

    log p_t(x, w) = log P(template(x, w))      (the whole sentence)
    log p_p(x)    = log P(template(x, -))      (the sentence cut before the attribute slot)

so p_t / p_p = P(attribute and the rest | prefix with x): how strongly the target leads the
model to the attribute. It enters eq. 10 in place of the masked-LM probabilities.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from biasbench.errors import InputError
from biasbench.models.device import model_device
from biasbench.models.logprobs.common import (
    guard_context,
    next_token_log_probs,
    output_logits,
    pad_id,
    padded,
    scored_sums,
)


def causal_ids(tokenizer: Any, texts: list[str]) -> list[list[int]]:
    """Each text's token ids for a causal LM after the model's start token: its BOS, or where
    it has none its end-of-text token (GPT-2's, as the reference code conditions the first
    token on). Every token of the text is then scored in one pass, each given the start token
    and the tokens before it: the sentence's likelihood. A tokenizer that adds no BOS itself
    (SmolLM2) would otherwise leave the first token unscored and every other token
    conditioned on a different prefix. bias-bench's causal CrowS-Pairs and StereoSet's
    generative evaluator condition only the first token on the start token and score the
    rest from a pass without it, a departure of theirs (tests/test_dataset_references.py
    shows the difference)."""
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


def tail_log_probs(
    model: Any, tokenizer: Any, head: list[list[int]], tail: list[list[int]], batch: int
) -> list[np.ndarray]:
    """Per row, log P of each ``tail`` token given the ``head`` ids and the tail before it.

    Rows are sorted by length and left-padded (position ids from the mask), so every tail
    ends at the last position; the output head scores only the tail's tokens.
    """
    import torch

    dev = model_device(model)

    pad = pad_id(tokenizer)
    order = np.argsort([len(h) + len(t) for h, t in zip(head, tail, strict=True)], kind="stable")
    out: list[np.ndarray] = [np.zeros(0)] * len(head)
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        ids, mask = padded([head[i] + tail[i] for i in rows], pad, left=True, device=dev)
        if ids.shape[1] < 2:
            continue  # one-token rows: nothing to score
        with torch.inference_mode():
            hidden = model.base_model(  # position j predicts token j + 1: the last predicts
                input_ids=ids[:, :-1],  # nothing, so it is never run
                attention_mask=mask[:, :-1],
                position_ids=(mask[:, :-1].cumsum(1) - 1).clamp(min=0),
            ).last_hidden_state
            lengths = torch.tensor([len(tail[i]) for i in rows], device=dev)
            width = hidden.shape[1]
            scored = torch.arange(width, device=dev)[None, :] >= width - lengths[:, None]
            r, c = scored.nonzero(as_tuple=True)  # row-major: each row's tail in order
            flat = next_token_log_probs(model, hidden[r, c], ids[:, 1:][r, c]).cpu().numpy()
        for row, piece in zip(
            rows, np.split(flat, np.cumsum(lengths.cpu().numpy())[:-1]), strict=True
        ):
            out[row] = piece
    return out


def _continuation_ids(
    model: Any, tokenizer: Any, head: list[list[int]], tail: list[list[int]], batch: int
) -> np.ndarray:
    """Summed log-probabilities of the ``tail`` token ids after the ``head`` ids, per row."""
    return np.array([t.sum() for t in tail_log_probs(model, tokenizer, head, tail, batch)])


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

    dev = model_device(model)

    pad = pad_id(tokenizer)
    heads = causal_ids(tokenizer, prefixes)
    tails = tokenizer(continuations, add_special_tokens=False)["input_ids"]
    if any(not t for t in tails):
        raise InputError("LPBS: an empty continuation")
    first_ids = torch.tensor([t[0] for t in tails], device=dev)
    by_length: dict[int, list[int]] = {}
    for col, tail in enumerate(tails):
        if len(tail) > 1:
            by_length.setdefault(len(tail), []).append(col)
    per_batch = max(1, rows_per_batch // len(tails))
    scores = np.zeros((len(heads), len(tails)))
    for start in range(0, len(heads), per_batch):
        group = heads[start : start + per_batch]
        k = len(group)
        head_ids, head_mask = padded(group, pad, left=True, device=dev)
        head_lengths = head_mask.sum(1)
        per_chunk = max(1, rows_per_batch // k)
        with torch.inference_mode():
            out = _cached_body(model, head_ids, head_mask)
            last = output_logits(model, out.last_hidden_state[:, -1])
            total = torch.log_softmax(last, dim=-1)[:, first_ids].double()  # (k, continuations)
            for width, columns in sorted(by_length.items()):
                for c in range(0, len(columns), per_chunk):
                    cols = columns[c : c + per_chunk]
                    ids = torch.tensor([tails[i] for i in cols], device=dev).repeat(k, 1)
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
                        + torch.arange(width - 1, device=dev)[None, :],
                        past_key_values=cache,
                    ).last_hidden_state
                    scored = torch.ones(ids.shape[0], width - 1, dtype=torch.bool, device=dev)
                    rest = scored_sums(model, hidden, ids[:, 1:], scored)
                    total[:, cols] += rest.reshape(k, len(cols))
        scores[start : start + k] = total.cpu().numpy()
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

    guard_context(model, tokenizer)  # a template past the context: refused, not an IndexError
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
    guard_context(model, tokenizer)  # a text past the context: refused, not an IndexError
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

    dev = model_device(model)

    pad = pad_id(tokenizer)
    whole, cut = causal_ids(tokenizer, first), causal_ids(tokenizer, second)
    if any(len(w) < 2 for w in whole):
        raise InputError("an empty sentence: nothing to score")
    out_first, out_second = np.zeros(len(whole)), np.zeros(len(cut))
    order = np.argsort([len(w) for w in whole], kind="stable")
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        ids, mask = padded([whole[i] for i in rows], pad, left=True, device=dev)
        run = mask[:, :-1]  # position j predicts token j + 1: the last token is not run
        fill = (1 - mask).sum(1)  # left padding
        # shared ids (at most the run ones), and the second's tokens after them
        k = [min(_common_prefix(whole[i], cut[i]), len(whole[i]) - 1) for i in rows]
        rests = [cut[i][n:] for i, n in zip(rows, k, strict=True)]
        shared = torch.tensor(k, device=dev)
        cols = torch.arange(run.shape[1], device=dev)[None, :]
        with torch.inference_mode():
            out = _cached_body(model, ids[:, :-1], run)
            hidden, scored = out.last_hidden_state, run.bool()
            token_lp = torch.zeros(scored.shape, dtype=torch.float64, device=dev)
            token_lp[scored] = next_token_log_probs(model, hidden[scored], ids[:, 1:][scored])
            out_first[rows] = token_lp.sum(1).cpu().numpy()
            # the second's tokens 1 .. k - 1 as the first's, its token k from the state
            # before it, the tokens after that from states of its own
            within = (cols >= fill[:, None]) & (cols < (fill + shared - 1)[:, None])
            second_lp = torch.where(within, token_lp, 0.0).sum(1)
            on = [r for r, (n, rest) in enumerate(zip(k, rests, strict=True)) if n and rest]
            second_lp[on] += next_token_log_probs(
                model,
                hidden[on, (fill + shared - 1)[on]],
                torch.tensor([rests[r][0] for r in on], dtype=torch.long, device=dev),
            )
            longer = sorted(
                (r for r in range(len(rows)) if len(rests[r]) > 1), key=lambda r: len(rests[r])
            )
            for c in range(0, len(longer), rows_per_call):
                part = longer[c : c + rows_per_call]
                rest, rest_mask = padded([rests[r] for r in part], pad, left=False, device=dev)
                seen = (cols >= fill[part, None]) & (cols < (fill + shared)[part, None])
                rest_hidden = model.base_model(
                    input_ids=rest[:, :-1],
                    attention_mask=torch.cat([seen.long(), rest_mask[:, :-1]], 1),
                    position_ids=shared[part, None]
                    + torch.arange(rest.shape[1] - 1, device=dev)[None, :],
                    past_key_values=_cache_rows(out.past_key_values, part),
                ).last_hidden_state
                second_lp[part] += scored_sums(
                    model, rest_hidden, rest[:, 1:], rest_mask[:, 1:].bool()
                )
        out_second[rows] = second_lp.cpu().numpy()
    return out_first, out_second


def shared_head_tail_log_probs(
    model: Any,
    tokenizer: Any,
    head: list[list[int]],
    tail: list[list[int]],
    batch: int,
) -> list[np.ndarray]:
    """Per row, log P of each ``tail`` token given the ``head`` ids and the tail before it.
    Each batch runs its distinct heads once (left-padded), their keys and values then serve
    every tail (right-padded): a repeated head costs its tokens once. Equal to
    :func:`tail_log_probs` up to float rounding. The matrix of every prefix with every
    continuation keeps its own :func:`shared_prefix_log_probs` (no padding: the tails run by
    width): through this function it took 2-2.5x as long on LPBS Dis (4 x 446 pairs)."""
    import torch

    dev = model_device(model)

    if not all(tail):
        raise InputError("an empty continuation")
    pad, out = pad_id(tokenizer), [np.zeros(0)] * len(head)
    groups: dict[tuple, list[int]] = {}
    for i, h in enumerate(head):
        groups.setdefault(tuple(h), []).append(i)
    # a head's rows together, by their longest tail, then by head: the tails pad little
    by_size = sorted(groups.values(), key=lambda g: (max(len(tail[i]) for i in g), len(head[g[0]])))
    order = [i for rows in by_size for i in rows]
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        distinct = {h: k for k, h in enumerate(dict.fromkeys(tuple(head[i]) for i in rows))}
        which = torch.tensor([distinct[tuple(head[i])] for i in rows], device=dev)
        head_ids, head_mask = padded([list(h) for h in distinct], pad, left=True, device=dev)
        tail_ids, tail_mask = padded([tail[i] for i in rows], pad, left=False, device=dev)
        rest = [np.zeros(0)] * len(rows)
        with torch.inference_mode():
            first = _cached_body(model, head_ids, head_mask)
            lead = (
                next_token_log_probs(  # each tail's first token, after its head's last
                    model, first.last_hidden_state[which, -1], tail_ids[:, 0]
                )
                .cpu()
                .numpy()
            )
            width = tail_ids.shape[1]
            if width > 1:  # the rest of each tail, on its head's keys and values
                cache = first.past_key_values
                cache.batch_select_indices(which)
                hidden = model.base_model(  # the last token predicts nothing: not run
                    input_ids=tail_ids[:, :-1],
                    attention_mask=torch.cat([head_mask[which], tail_mask[:, :-1]], 1),
                    position_ids=head_mask.sum(1)[which, None]
                    + torch.arange(width - 1, device=dev),
                    past_key_values=cache,
                ).last_hidden_state
                r, c = tail_mask[:, 1:].nonzero(as_tuple=True)  # row-major
                flat = next_token_log_probs(model, hidden[r, c], tail_ids[:, 1:][r, c])
                rest = np.split(
                    flat.cpu().numpy(), np.cumsum(tail_mask[:, 1:].sum(1).cpu().numpy())[:-1]
                )
        for k, i in enumerate(rows):
            out[i] = np.concatenate([lead[k : k + 1], rest[k]])
    return out
