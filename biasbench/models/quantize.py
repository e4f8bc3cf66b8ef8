"""Quantized copies of a model (``quantized:<model>:<format>``): its weights rounded to one of
GGUF's block formats and back, so that a comparison can ask what weight-only quantization
does to a bias measure.

The block schemes are GGUF's (llama.cpp's ``ggml-quants.c``, and the ``gguf`` package's
numpy port, which this module reproduces bit for bit; ``tests/test_quantize.py`` checks it).
A matrix is cut along its rows into blocks of :data:`BLOCK` = 32 values; each block keeps one
scale ``d``, stored as float16, and a small integer per value:

* **Q8_0**: ``d = max|x| / 127``, ``q = round(x / d)`` (half away from zero) in int8,
  ``x' = d q``.
* **Q4_0**: ``d = m / -8`` with ``m`` the block's value of largest magnitude, signed;
  ``q = clamp(round(x / d) + 8, 0, 15)`` (half up), ``x' = d (q - 8)``. ``m`` itself maps to
  ``q = 0`` exactly; a value of the other sign and nearly ``|m|`` is clamped to ``q = 15``
  (``x' = -7 d``), the one place where the error exceeds half a step.

``q`` is computed with the float32 reciprocal of the unrounded scale, and ``x'`` with the
float16 scale, as GGUF does: the error of a value is at most ``d / 2`` plus ``|q|`` times the
scale's float16 rounding (at most ``|q| d 2^-11``), and for Q4_0's clamped values at most
``d`` plus the same. Quantizing the dequantized matrix again gives it back unchanged.

:func:`quantize_model` applies a format to a loaded transformer as ``llama-quantize --pure``
would: every Linear (and GPT-2 ``Conv1D``) weight and the token embeddings, whose rows are
the vectors a token is read as (a GGUF file's ``token_embd``; a tied masked-LM decoder shares
the matrix); position and token-type embeddings stay in float, as llama.cpp keeps BERT's
(they are added to every token, and small). A matrix whose row length is not a multiple of
32 stays in float too (llama.cpp falls back to another type there); biases and norms are 1-D
and stay in float as in every GGUF file. Without ``--pure``, llama.cpp's Q4_0 file keeps the
output matrix at Q6_K; here every eligible matrix takes the one format.

The copy is saved as float32 safetensors holding the dequantized weights: it carries the
arithmetic of weight-only quantization (every weight what a GGUF runtime would multiply by),
not its speed or memory, and activations stay in float32 (no activation quantization).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from biasbench.errors import InputError
from biasbench.models.specs import QUANTIZED_FORMATS, ModelSpec

#: values per block, along a row (GGUF's QK8_0 and QK4_0)
BLOCK = 32
#: why a 2-D weight stays in float (the provenance's words)
KEPT_POSITIONS = "position or token-type embeddings: kept in float, as llama.cpp keeps BERT's"
KEPT_ROWS = "row length {n} is not a multiple of 32"


def _blocks(weights: np.ndarray) -> np.ndarray:
    """A matrix as float32 blocks of 32 along its rows: (rows, blocks, 32)."""
    matrix = np.asarray(weights, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"a matrix is quantized, not an array of shape {matrix.shape}")
    if matrix.shape[1] % BLOCK:
        raise ValueError(f"row length {matrix.shape[1]} is not a multiple of {BLOCK}")
    if not np.isfinite(matrix).all():
        raise ValueError("a weight is not finite")
    return matrix.reshape(matrix.shape[0], -1, BLOCK)


def _reciprocal(scale: np.ndarray) -> np.ndarray:
    """1 / scale in float32, 0 where the scale is 0 (an all-zero block)."""
    out = np.zeros_like(scale)
    np.divide(np.float32(1), scale, out=out, where=scale != 0)
    return out


def _round_half_away(values: np.ndarray) -> np.ndarray:
    """Round to the nearest integer, halves away from zero (C's roundf), exactly in float32."""
    magnitude = np.abs(values)
    whole = np.floor(magnitude)
    return np.sign(values) * (whole + (magnitude - whole >= np.float32(0.5)))


def quantize_blocks(weights: np.ndarray, form: str) -> tuple[np.ndarray, np.ndarray]:
    """(codes, scales) of a matrix whose row length is a multiple of 32: ``codes`` of shape
    (rows, blocks, 32) (Q8_0: int8 in -127..127; Q4_0: uint8 in 0..15), ``scales`` the
    float16 scale of each block, (rows, blocks, 1)."""
    blocks = _blocks(weights)
    # a block of values under ~1e-36 has a scale whose reciprocal overflows float32: its codes
    # are meaningless there, and its float16 scale is 0, so it dequantizes to zeros (as GGUF's)
    with np.errstate(over="ignore", invalid="ignore"):
        if form == "q8_0":
            scale = np.abs(blocks).max(axis=-1, keepdims=True) / np.float32(127)
            zero = 0
            codes = np.nan_to_num(_round_half_away(blocks * _reciprocal(scale)))
        elif form == "q4_0":
            largest = np.abs(blocks).argmax(axis=-1, keepdims=True)
            scale = np.take_along_axis(blocks, largest, axis=-1) / np.float32(-8)
            zero = 8
            shifted = np.trunc(blocks * _reciprocal(scale) + np.float32(8.5))
            codes = np.clip(np.nan_to_num(shifted), 0, 15)
        else:
            raise ValueError(f"unknown format {form!r}; one of {QUANTIZED_FORMATS}")
    stored = scale.astype(np.float16)
    codes = np.where(stored == 0, zero, codes)  # a zero scale: every value 0 (its zero level)
    return codes.astype(np.int8 if form == "q8_0" else np.uint8), stored


def dequantize_blocks(codes: np.ndarray, scales: np.ndarray, form: str) -> np.ndarray:
    """The float32 matrix of (codes, scales) (:func:`quantize_blocks`): ``d q`` for Q8_0,
    ``d (q - 8)`` for Q4_0."""
    levels = codes.astype(np.float32) - (np.float32(8) if form == "q4_0" else np.float32(0))
    values = scales.astype(np.float32) * levels
    return values.reshape(values.shape[0], -1)


def round_trip(weights: np.ndarray, form: str) -> np.ndarray:
    """A matrix quantized to ``form`` and dequantized back to float32."""
    return dequantize_blocks(*quantize_blocks(weights, form), form)


def quantize_model(model, form: str) -> dict[str, Any]:
    """Round ``model``'s eligible weights (the module's docstring) to ``form`` and back, in
    place; what was done: per matrix quantized its shape and mean squared error (and that
    error over the matrix's mean square), each 2-D weight kept in float with the reason, the
    count of the other (1-D) parameters, and the error over every quantized value (and over
    their mean square)."""
    import torch
    from transformers.pytorch_utils import Conv1D  # GPT-2's Linear, its weight (in, out)

    if form not in QUANTIZED_FORMATS:
        raise ValueError(f"unknown format {form!r}; one of {QUANTIZED_FORMATS}")
    embeddings = model.get_input_embeddings()
    aliases: dict[int, list[str]] = {}
    for name, parameter in model.named_parameters(remove_duplicate=False):
        aliases.setdefault(id(parameter), []).append(name)
    quantized: dict[str, dict[str, Any]] = {}
    kept: dict[str, dict[str, Any]] = {}
    other = 0
    squared, values, power = 0.0, 0, 0.0
    for name, parameter in model.named_parameters():  # a tied matrix once
        path, _, leaf = name.rpartition(".")
        module = model.get_submodule(path)
        matrix = parameter.ndim == 2 and leaf == "weight"
        linear = isinstance(module, torch.nn.Linear | Conv1D)
        embedding = isinstance(module, torch.nn.Embedding)
        if not matrix or not (linear or embedding):
            other += 1
            continue
        shape = list(parameter.shape)
        if embedding and module is not embeddings:
            kept[name] = {"shape": shape, "why": KEPT_POSITIONS}
            continue
        transposed = isinstance(module, Conv1D)  # its rows (GGUF's) are the weight's columns
        original = parameter.detach().to("cpu", torch.float32).numpy()
        rows = original.T if transposed else original
        if rows.shape[1] % BLOCK:
            kept[name] = {"shape": shape, "why": KEPT_ROWS.format(n=rows.shape[1])}
            continue
        try:
            restored = round_trip(rows, form)
        except ValueError as exc:
            raise InputError(f"quantizing {name} to {form}: {exc}") from exc
        if transposed:
            restored = restored.T
        error = np.square(restored.astype(np.float64) - original.astype(np.float64))
        mean_square = float(np.square(original.astype(np.float64)).mean())
        entry: dict[str, Any] = {
            "shape": shape,
            "mse": float(error.mean()),
            "relative_mse": float(error.mean() / mean_square) if mean_square else 0.0,
        }
        tied = [a for a in aliases[id(parameter)] if a != name]
        if tied:
            entry["tied"] = tied
        quantized[name] = entry
        squared += float(error.sum())
        values += error.size
        power += mean_square * error.size
        with torch.no_grad():
            parameter.copy_(torch.from_numpy(np.ascontiguousarray(restored)))
    if not quantized:
        raise InputError(f"no weight matrix to quantize to {form} (rows a multiple of {BLOCK})")
    return {
        "format": form,
        "block": BLOCK,
        "quantized": quantized,
        "kept_in_float": kept,
        "other_float_parameters": other,
        "quantized_values": values,
        "mse": squared / values,
        "relative_mse": squared / power if power else 0.0,
    }


def weights_class(where: str | Path, revision: dict):
    """The class the base's weights were saved as (its config.json's ``architectures``: a
    masked or causal LM keeps its head), else ``AutoModel``."""
    import transformers

    config = transformers.AutoConfig.from_pretrained(where, **revision)
    for name in config.architectures or ():
        found = getattr(transformers, name, None)
        if found is not None:
            return found
    return transformers.AutoModel


def quantized_copy(base: ModelSpec, base_dir: Path, out: Path, form: str) -> dict[str, Any]:
    """Save ``base`` (prepared in ``base_dir``) with its weights rounded to ``form`` and back
    (:func:`quantize_model`), in its own class (its head kept) and with its tokenizer; what to
    record in the copy's provenance."""
    from transformers import AutoTokenizer

    from biasbench.models.load import hub_options, transformer_location

    where = transformer_location(base, base_dir)
    revision = {"revision": base.revision} if base.revision else {}
    model_class = weights_class(where, revision)
    model, info = model_class.from_pretrained(
        where, dtype="float32", output_loading_info=True, **hub_options(base)
    )
    if info["missing_keys"]:  # a freshly initialised part would be quantized noise
        missing = sorted(info["missing_keys"])[:3]
        raise InputError(
            f"model {base.name}: its weights do not fill {model_class.__name__} ({missing} ...)"
        )
    record = quantize_model(model.eval(), form)
    model.save_pretrained(out, safe_serialization=True)
    AutoTokenizer.from_pretrained(where, **revision).save_pretrained(out)
    return {
        "weights": (
            f"{base.name}'s weights rounded to GGUF {form.upper()} blocks of {BLOCK} and back "
            "to float32 (weight-only quantization's arithmetic, not its speed)"
        ),
        "base": base.name,
        "class": model_class.__name__,
        "quantization": record,
    }
