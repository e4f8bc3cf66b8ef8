"""The digests of a model's files: recorded in its provenance file when the model is prepared,
checked whenever a job loads it. The provenance file is an input of every job that loads the
model and enters every score's signature, so replaced weights rerun what depends on them and
damaged weights are an error, never a silently different score."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from biasbench.errors import InputError
from biasbench.io import read_json, sha256_of

#: what loading reads from a model directory: configuration, tokenizer and weight files
MODEL_FILES = ("*.json", "*.txt", "*.model", "*.safetensors", "*.bin", "*.npy", "*.tiktoken")


def model_files(directory: str | os.PathLike, skip: str = "") -> list[Path]:
    """The files of ``directory`` that loading may read (not ``skip``, the provenance file)."""
    found = {p for pattern in MODEL_FILES for p in Path(directory).glob(pattern) if p.is_file()}
    return sorted(p for p in found if p.name != skip and not p.name.startswith("."))


def weights_record(directory: str | os.PathLike, skip: str = "") -> dict:
    """``files`` (name -> sha256) and ``weights_sha256`` (over them): what the provenance
    records of the files a model is loaded from."""
    files = {p.name: sha256_of(p) for p in model_files(directory, skip)}
    if not files:
        raise InputError(f"{directory}: no model files ({', '.join(MODEL_FILES)})")
    combined = hashlib.sha256("".join(f"{n}:{d}\n" for n, d in files.items()).encode())
    return {"files": files, "weights_sha256": combined.hexdigest()}


def check_weights(provenance: str | os.PathLike, directory: str | os.PathLike) -> None:
    """The files of ``directory`` are those whose digests ``provenance`` recorded. Every
    workflow job that loads a model has its provenance file as an input; a model loaded
    without one (a directory handed to the library) or without a record (ELMo) is not checked."""
    if not Path(provenance).is_file():
        return
    recorded = read_json(provenance).get("files")
    if recorded is None:
        return
    fix = (
        f"delete {Path(provenance).parent} and rerun: the workflow prepares the model again "
        "and reruns every score computed from it"
    )
    skip = Path(provenance).name
    present = {p.name for p in model_files(directory, skip)}
    if present != set(recorded):
        changed = sorted(present ^ set(recorded))
        raise InputError(
            f"{directory}: files {changed} were added or removed after the model was "
            f"prepared; {fix}"
        )
    for name, expected in recorded.items():
        found = sha256_of(Path(directory) / name)
        if found != expected:
            raise InputError(
                f"{Path(directory) / name}: sha256 {found}, but {expected} when the model was "
                f"prepared: the weights were replaced or damaged; {fix}"
            )
