"""Null models: a configured model's architecture and tokenizer with seeded random weights
(``random:<model>``), the control of the cross-method comparison.

:class:`Architecture` builds such a model in memory (the null-model calibration scores many
seeded copies in one job without writing any); :func:`random_copy` saves one as a prepared
model (a ``random:`` entry of the configuration)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasbench.models.load import is_decoder_type, transformer_location
from biasbench.models.specs import ModelSpec
from biasbench.paths import NULL_SCORES


@dataclass
class Architecture:
    """A transformer's configuration, tokenizer and LM class, read once: :meth:`random`
    builds a copy with seeded random weights as ``from_config`` initialises them. A decoder
    keeps its causal-LM head, an encoder gets a masked-LM head, so every measure that runs on
    the base model runs on its null copy."""

    config: Any
    tokenizer: Any
    auto: Any  # AutoModelForCausalLM or AutoModelForMaskedLM

    @classmethod
    def of(cls, base: ModelSpec, base_dir: Path) -> Architecture:
        from transformers import (
            AutoConfig,
            AutoModelForCausalLM,
            AutoModelForMaskedLM,
            AutoTokenizer,
        )

        where = transformer_location(base, base_dir)
        config = AutoConfig.from_pretrained(where)
        auto = AutoModelForCausalLM if is_decoder_type(config.model_type) else AutoModelForMaskedLM
        return cls(config, AutoTokenizer.from_pretrained(where), auto)

    @property
    def masked(self) -> bool:
        return not is_decoder_type(self.config.model_type)

    def random(self, seed: int, *, device: str = "cpu", dtype: str = "float32"):
        """A copy with the weights ``from_config`` draws after ``torch.manual_seed(seed)``
        (the same seed, the same weights: drawn on the CPU, then moved to ``device``, a
        ``compute.device`` setting, and cast to ``dtype``), in eval mode."""
        import torch

        from biasbench.models.device import place, resolve_device

        torch.manual_seed(seed)
        return place(self.auto.from_config(self.config), resolve_device(device), dtype)

    def weights(self, seed: int) -> str:
        return f"random ({self.auto.__name__}.from_config, seed {seed})"


def random_copy(base: ModelSpec, base_dir: Path, out: Path, seed: int) -> dict[str, Any]:
    """Save a null model of ``base`` (:meth:`Architecture.random`) with its tokenizer."""
    architecture = Architecture.of(base, base_dir)
    architecture.random(seed).save_pretrained(out, safe_serialization=True)
    architecture.tokenizer.save_pretrained(out)
    return {"weights": architecture.weights(seed), "base": base.name}


def copy_names(base: str, seeds: int) -> list[str]:
    """The model names of a base model's null copies, in order."""
    return [f"{base}-null-s{i}" for i in range(seeds)]


def design_copy_name(base: str, index: int) -> str:
    """The model name of the copy a base model's generated null design ``index`` is scored
    on, one copy per design (:mod:`biasbench.studies.generated`)."""
    return f"{base}-null-g{index}"


def design_copy_names(base: str, designs: int) -> list[str]:
    """The model names of the copies of a base model's first ``designs`` designs, in order."""
    return [design_copy_name(base, i) for i in range(designs)]


def item_copy_names(base: str, designs: int) -> list[str]:
    """The model names of the copies a base model's data-set item designs are scored on, one
    copy per design (a disjoint sample of a data set's items), numbered across its data sets
    in the configuration's order."""
    return [f"{base}-null-i{i}" for i in range(designs)]


#: the copy of a generated design (:func:`design_copy_name`)
GENERATED_COPY = r".+-null-g\d+"
#: a copy that holds one design of its own (a generated design, a data set's item design):
#: its rows are one cluster of the null control, whatever other copy scores that test
ONE_DESIGN_COPY = r".+-null-[gi]\d+"


def null_file(base: str) -> str:
    """The score rows of a base model's null copies."""
    return NULL_SCORES.format(model=base)
