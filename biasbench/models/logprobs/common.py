"""What the masked and the causal engines share: padding, and the output head run only on
the positions that are read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from biasbench.errors import InputError, TooLong
from biasbench.models.device import model_device


def pad_id(tokenizer: Any) -> int:
    """The pad id; GPT-2 style tokenizers have none, and any id will do under the mask."""
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer.pad_token_id


def padded(rows: list[list[int]], pad: int, left: bool, device: Any = None):
    """(ids, attention mask) tensors of token-id rows padded to one width, on ``device``
    (the model's; None: the CPU)."""
    import torch

    width = max(map(len, rows))
    fill = [width - len(r) for r in rows]
    if left:
        return (
            torch.tensor([[pad] * f + r for f, r in zip(fill, rows, strict=True)], device=device),
            torch.tensor(
                [[0] * f + [1] * len(r) for f, r in zip(fill, rows, strict=True)], device=device
            ),
        )
    return (
        torch.tensor([r + [pad] * f for f, r in zip(fill, rows, strict=True)], device=device),
        torch.tensor(
            [[1] * len(r) + [0] * f for f, r in zip(fill, rows, strict=True)], device=device
        ),
    )


def output_logits(model: Any, hidden: Any) -> Any:
    """The causal LM's logits from final hidden states: its output head, then the logit
    soft-capping of the architectures that have one (Gemma 2)."""
    import torch

    logits = model.get_output_embeddings()(hidden).float()
    cap = getattr(model.config.get_text_config(), "final_logit_softcapping", None)
    return torch.tanh(logits / cap) * cap if cap else logits


def next_token_log_probs(model: Any, hidden: Any, next_ids: Any, rows: int = 128) -> Any:
    """log P(next_ids[i] | hidden[i]) for packed hidden states (n, hidden): the output head runs
    only on positions that are scored, a chunk of rows at a time, so padding costs no head
    work and the (rows, vocabulary) logits stay small. Over Gemma 3's 262k vocabulary the
    head costs as much as the whole transformer per token."""
    import torch

    dev = model_device(model)

    out = torch.empty(len(next_ids), dtype=torch.float64, device=dev)
    for start in range(0, len(next_ids), rows):
        logits = output_logits(model, hidden[start : start + rows])
        picked = logits.gather(1, next_ids[start : start + rows, None])[:, 0]
        out[start : start + rows] = (picked - torch.logsumexp(logits, dim=1)).double()
    return out


def scored_sums(model: Any, hidden: Any, next_ids: Any, scored: Any) -> Any:
    """Per row, the summed log P(next_ids[r, j] | hidden[r, j]) over positions with scored[r, j]."""
    import torch

    dev = model_device(model)

    rows, cols = scored.nonzero(as_tuple=True)
    log_probs = next_token_log_probs(model, hidden[rows, cols], next_ids[rows, cols])
    return torch.zeros(len(hidden), dtype=torch.float64, device=dev).index_add_(0, rows, log_probs)


def check_output_head(model: Any, tokenizer: Any) -> None:
    """Fail unless the transformer body plus :func:`output_logits` reproduce the model's own
    logits: the scoring below needs the head apart from the body, and an architecture that
    scales its logits some other way would otherwise give wrong log-probabilities silently."""
    import torch

    dev = model_device(model)

    ids = torch.tensor([tokenizer("The check is short.")["input_ids"]], device=dev)
    with torch.inference_mode():
        own = torch.log_softmax(model(input_ids=ids).logits.float(), dim=-1)
        ours = torch.log_softmax(
            output_logits(model, model.base_model(input_ids=ids).last_hidden_state), dim=-1
        )
    gap = float((own - ours).abs().max())
    if not gap < 1e-3:
        raise InputError(
            f"{type(model).__name__}: the output head applied to the body's hidden states "
            f"differs from the model's logits by {gap:.3g}; this architecture is not supported "
            "by the causal LPBS scoring"
        )


def context_length(model: Any) -> int | None:
    """The most positions the model reads (its configuration's ``n_positions`` or
    ``max_position_embeddings``); None where it declares none."""
    config = getattr(model, "config", None)
    for key in ("n_positions", "max_position_embeddings", "n_ctx"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def guard_context(model: Any, tokenizer: Any) -> int | None:
    """Make every forward pass of ``model`` refuse a sequence longer than its context before
    the model reads it (one hook on the base model, which every engine call goes through,
    counting a cached prefix's positions too); returns the context length. A study model of
    the library's own (``SharedBodyMLM``: no module to hook) has its items checked only."""
    limit = context_length(model)
    body = getattr(model, "base_model", model)
    if (
        limit is None
        or getattr(body, "_biasbench_context_guard", False)
        or not hasattr(body, "register_forward_pre_hook")
    ):
        return limit

    def check(module, args, kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        width = ids.shape[-1] if ids is not None else kwargs["inputs_embeds"].shape[1]
        positions, past = kwargs.get("position_ids"), kwargs.get("past_key_values")
        past = kwargs.get("cache") if past is None else past
        if positions is not None:
            ends = positions.reshape(-1, positions.shape[-1]).max(-1).values + 1
        else:
            mask = kwargs.get("attention_mask")
            cached = past.get_seq_length() if hasattr(past, "get_seq_length") else 0
            if mask is not None and mask.dim() == 2 and cached == 0:
                ends = mask.sum(-1)
            else:
                ends = [width + cached]
        end = int(max(ends))
        if end <= limit:
            return
        text = ""
        if ids is not None and ids.dim() == 2:
            row = ids[int(max(range(len(ends)), key=lambda i: int(ends[i])))]
            text = f": {tokenizer.decode(row, skip_special_tokens=True)[:80]!r}"
        raise TooLong(f"a text of {end} tokens, longer than the model's context of {limit}{text}")

    body.register_forward_pre_hook(check, with_kwargs=True)
    body._biasbench_context_guard = True
    return limit


@contextmanager
def naming_too_long(where: str, fix: str) -> Iterator[None]:
    """A text past the context (:class:`TooLong`, from :func:`guard_context`) re-raised naming
    what was read (``where``: the job's input and model) and what to change (``fix``)."""
    try:
        yield
    except TooLong as exc:
        raise InputError(f"{where}: {exc}; the model cannot read it. {fix}") from exc
