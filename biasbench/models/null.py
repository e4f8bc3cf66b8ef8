"""Null models: a configured model's architecture and tokenizer with seeded random weights
(``random:<model>``), the control of the cross-method comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from biasbench.models.load import is_decoder_type, transformer_location
from biasbench.models.specs import ModelSpec


def random_copy(base: ModelSpec, base_dir: Path, out: Path, seed: int) -> dict[str, Any]:
    """A null model: ``base``'s architecture and tokenizer with seeded random weights, as
    ``from_config`` initialises them. A decoder keeps its causal-LM head, an encoder gets a
    masked-LM head, so every measure that runs on the base model runs on its null copy."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    where = transformer_location(base, base_dir)
    config = AutoConfig.from_pretrained(where)
    auto = AutoModelForCausalLM if is_decoder_type(config.model_type) else AutoModelForMaskedLM
    torch.manual_seed(seed)
    model = auto.from_config(config)
    model.save_pretrained(out, safe_serialization=True)
    AutoTokenizer.from_pretrained(where).save_pretrained(out)
    return {"weights": f"random ({auto.__name__}.from_config, seed {seed})", "base": base.name}
