"""The ground-truth study's frozen states: every model sees the same masked inputs, so the
masked LM's layers below the trainable top ones run once on them (per job, or once for the
whole grid and saved, sealed). Torch is imported where used."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from biasbench.studies.groundtruth.data import StudyData, fill

STATE_PARTS = ("train", "test", "words")


@dataclass
class FrozenStates:
    """Hidden states entering the top layer for every input, computed once per study job."""

    states: Any  # (n, width, hidden)
    attention: Any  # (n, width)
    slot: Any  # position of the [MASK] per input (-1 for words alone)

    def to(self, device) -> FrozenStates:
        """The same states on ``device`` (the model's)."""
        return FrozenStates(*(t.to(device) for t in (self.states, self.attention, self.slot)))


def frozen_states(
    model, tokenizer, texts: list[str], trainable: int, batch: int = 256
) -> FrozenStates:
    """Run the embeddings and every layer below the ``trainable`` top ones, once."""
    import torch

    from biasbench.models.device import model_device

    enc = tokenizer(texts, return_tensors="pt", padding=True).to(model_device(model))
    ids, attention = enc["input_ids"], enc["attention_mask"]
    positions = torch.arange(ids.shape[1], device=ids.device)
    slot = torch.where(ids == tokenizer.mask_token_id, positions, -1).max(1).values
    bert = model.bert
    outs = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch):
            rows = slice(start, start + batch)
            hidden = bert(
                input_ids=ids[rows], attention_mask=attention[rows], output_hidden_states=True
            ).hidden_states[-1 - trainable]  # the input of the first trainable layer
            outs.append(hidden.clone())
    return FrozenStates(torch.cat(outs), attention, slot)


def load_study_lm(model_dir: str, *, device: str = "cpu", dtype: str = "float32"):
    """(masked LM, tokenizer) of the study, in evaluation mode on ``device`` (a
    ``compute.device`` setting, resolved) with its weights in ``dtype``; a prepared model's
    files are checked against its provenance first."""
    from pathlib import Path

    from transformers import AutoTokenizer, BertForMaskedLM

    from biasbench.models.device import place, resolve_device
    from biasbench.models.prepare import PROVENANCE
    from biasbench.models.weights import check_weights

    check_weights(Path(model_dir) / PROVENANCE, model_dir)

    model = BertForMaskedLM.from_pretrained(model_dir, dtype="float32")
    model = place(model, resolve_device(device), dtype)
    return model, AutoTokenizer.from_pretrained(model_dir)


def study_states(model, tokenizer, data: StudyData, trainable: int) -> dict[str, FrozenStates]:
    """The frozen states of the study's inputs (training and test sentences, the words alone):
    the same for every model of the grid, so the workflow computes them once for all jobs."""
    mask = tokenizer.mask_token
    texts = {
        "train": fill(data.occupations, data.train, data.slot, data.mask, mask).texts,
        "test": fill(data.occupations, data.test, data.slot, data.mask, mask).texts,
        "words": data.occupations + data.male + data.female,
    }
    return {part: frozen_states(model, tokenizer, texts[part], trainable) for part in STATE_PARTS}


def save_states(path, states: dict[str, FrozenStates]) -> None:
    """Frozen states to safetensors, sealed (checked on reading)."""
    from biasbench.io import save_tensors

    save_tensors(
        path,
        {
            f"{part}.{name}": getattr(frozen, name)
            for part, frozen in states.items()
            for name in ("states", "attention", "slot")
        },
    )


def load_states(path) -> dict[str, FrozenStates]:
    """What :func:`save_states` wrote; a file that no longer matches its seal (or an
    unreadable one) is an error naming the file, never a study on corrupted states."""
    from biasbench.io import load_tensors

    tensors = load_tensors(path)
    return {
        part: FrozenStates(*(tensors[f"{part}.{n}"] for n in ("states", "attention", "slot")))
        for part in STATE_PARTS
    }
