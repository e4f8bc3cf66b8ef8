"""Unconditional text samples from a causal LM (the amplification experiment of Bommasani &
Liang, adapted): ancestral sampling at a temperature, seeded, in batches."""

from __future__ import annotations

from typing import Any

from biasbench.models.device import model_device


def sample_texts(
    model: Any,
    tokenizer: Any,
    n: int,
    max_new_tokens: int,
    temperature: float = 1.0,
    seed: int = 0,
    batch: int = 16,
    progress: bool = True,
) -> list[str]:
    """``n`` texts, each started from the beginning-of-sequence token alone (or the
    end-of-text token where a tokenizer has no BOS). The same seed gives the same texts on the
    same machine and library versions (sampling draws from torch's seeded generator)."""
    import torch
    from tqdm.auto import tqdm

    dev = model_device(model)

    start = tokenizer.bos_token_id
    if start is None:
        start = tokenizer.eos_token_id
    if start is None:
        raise ValueError("the tokenizer has neither a BOS nor an EOS token to start from")
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    texts: list[str] = []
    bar = tqdm(total=n, desc="sampling", unit="text", disable=not progress)
    with torch.inference_mode():
        for first in range(0, n, batch):
            size = min(batch, n - first)
            torch.manual_seed(seed + first)
            ids = torch.full((size, 1), start, dtype=torch.long, device=dev)
            out = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                do_sample=True,
                temperature=temperature,
                top_k=0,
                top_p=1.0,
                max_new_tokens=max_new_tokens,
                pad_token_id=pad,
            )
            texts += tokenizer.batch_decode(out[:, 1:], skip_special_tokens=True)
            bar.update(size)
    bar.close()
    return [t.strip() for t in texts]
