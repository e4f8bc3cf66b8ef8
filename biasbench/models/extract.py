"""Embedding extraction: contexts in, one row of vectors per context out, to HDF5.

Word-level encodings pool the hidden states of the subword tokens overlapping the
stimulus' character span (``word/mean``, ``word/first``, ``word/last``); sentence-level
encodings are the first token (``sent/cls``, the [CLS] of an encoder), the last real token
(``sent/last``, what a causal LM has read the whole sentence at) and the mean over real
(non-special) tokens (``sent/mean``). Identical sentences are encoded once; sentences of
one token length are batched together, so no batch is padded.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import h5py
import numpy as np
import pandas as pd

from biasbench import __version__
from biasbench.encodings import SENT_ENCODINGS, WORD_ENCODINGS
from biasbench.errors import InputError
from biasbench.io import array_checksum, atomic_path, check_recorded, refuse_folder
from biasbench.models.device import model_device
from biasbench.models.load import StaticVectors
from biasbench.models.logprobs.common import context_length


@dataclass(frozen=True)
class Tokenized:
    ids: list[list[int]]
    offsets: list[list[tuple[int, int]]]
    special: list[list[int]]


def tokenize(tokenizer: Any, sentences: list[str], max_length: int) -> Tokenized:
    enc = tokenizer(
        sentences,
        add_special_tokens=True,
        return_offsets_mapping=True,
        return_special_tokens_mask=True,
        truncation=True,
        max_length=max_length,
    )
    return Tokenized(enc["input_ids"], enc["offset_mapping"], enc["special_tokens_mask"])


def batches_by_length(lengths: np.ndarray, max_tokens: int, max_batch: int) -> Iterator[np.ndarray]:
    """Indices grouped into batches whose sentences all have the same token length, each
    within a token budget: no padding, so a sentence's encoding does not depend on which
    other sentences are encoded with it (the same bytes whether a test is encoded alone or
    with every other test of its model; tests/test_extract.py holds it)."""
    order = np.argsort(lengths, kind="stable")
    bounds = np.flatnonzero(np.diff(lengths[order])) + 1
    for same in np.split(order, bounds):
        if not len(same):
            continue
        size = max(1, min(max_batch, max_tokens // max(int(lengths[same[0]]), 1)))
        for start in range(0, len(same), size):
            yield same[start : start + size]


def span_tokens(
    offsets: list[tuple[int, int]], special: list[int], start: int, end: int
) -> list[int]:
    """Positions of non-special tokens whose character range overlaps [start, end)."""
    return [
        i
        for i, ((a, b), s) in enumerate(zip(offsets, special, strict=True))
        if not s and b > a and a < end and b > start
    ]


def cut_after_stimuli(
    tok: Tokenized, rows_of: dict[int, list[int]], starts: np.ndarray, ends: np.ndarray
) -> Tokenized:
    """Each sentence's tokens up to the last one covering a stimulus span of its rows
    (``rows_of``: sentence -> context rows); all of them when none covers any."""
    cut = []
    for s, (offsets, special) in enumerate(zip(tok.offsets, tok.special, strict=True)):
        last = [
            pos[-1]
            for r in rows_of[s]
            if (pos := span_tokens(offsets, special, starts[r], ends[r]))
        ]
        cut.append(max(last) + 1 if last else len(offsets))
    return Tokenized(
        [ids[:n] for ids, n in zip(tok.ids, cut, strict=True)],
        [offsets[:n] for offsets, n in zip(tok.offsets, cut, strict=True)],
        [special[:n] for special, n in zip(tok.special, cut, strict=True)],
    )


def check_layer(model_config: Any, layer: int, name: str = "") -> None:
    """A ``layer`` the model has, before any encoding (else a bare IndexError mid-job): the
    hidden states are the embeddings' and each layer's, 0 to n, or counted from the top, -1
    to -(n + 1)."""
    depth = getattr(model_config, "num_hidden_layers", None)
    if depth is None or -(depth + 1) <= layer <= depth:
        return
    field = f"config: models.{name}.layer" if name else "layer"
    raise InputError(
        f"{field} is {layer}, but the model has {depth} layers: layer takes 0 (the "
        f"embeddings) to {depth}, or -1 (the top) to {-(depth + 1)}"
    )


def encode_transformer(
    model: Any,
    tokenizer: Any,
    contexts: pd.DataFrame,
    *,
    layer: int = -1,
    max_tokens: int = 8192,
    max_batch: int = 256,
    max_length: int = 512,
    progress: bool = True,
    prefix_only: bool = False,
    name: str = "",
) -> dict[str, np.ndarray]:
    """All word and sentence encodings of every context row, plus a ``valid`` mask: False
    where no token covers the stimulus span (truncated away) or every token covering it is
    the unknown token (the model cannot tell that stimulus from any other unknown word), and
    ``pieces``: the number of tokens a valid stimulus is pooled from (0 where not valid).

    ``prefix_only`` is for a causal LM, whose state at a token depends on the tokens up to it
    alone: each sentence is cut after its rows' stimuli (:func:`cut_after_stimuli`), which
    spares the work on the rest; the word encodings stay the same up to float rounding, the
    sentence encodings become those of the cut sentences. ``name``: the configured model whose
    ``layer`` this is (named in errors)."""
    import torch
    from tqdm.auto import tqdm

    check_layer(model.config, layer, name)
    dev = model_device(model)

    dim = model.config.hidden_size
    if contexts.empty:  # a corpus without any of a test's stimuli
        empty = {k: np.zeros((0, dim), np.float32) for k in (*SENT_ENCODINGS, *WORD_ENCODINGS)}
        return {**empty, "valid": np.zeros(0, bool), "pieces": np.zeros(0, np.int32)}
    sentences, inverse = np.unique(contexts["sentence"].to_numpy(dtype=object), return_inverse=True)
    # a model with fewer positions than max_length has no embedding past them (an
    # IndexError): its contexts are cut to its context, as longer ones are to max_length
    max_length = min(max_length, context_length(model) or max_length)
    tok = tokenize(tokenizer, [str(s) for s in sentences], max_length)
    rows_of = pd.Series(np.arange(len(contexts))).groupby(inverse).apply(list).to_dict()
    starts, ends = contexts["start"].to_numpy(), contexts["end"].to_numpy()
    if prefix_only:
        tok = cut_after_stimuli(tok, rows_of, starts, ends)
    lengths = np.array([len(ids) for ids in tok.ids])
    pad_id = tokenizer.pad_token_id
    if pad_id is None:
        pad_id = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
    unk_id = tokenizer.unk_token_id
    n_sent = len(sentences)
    sent = {k: np.zeros((n_sent, dim), dtype=np.float32) for k in SENT_ENCODINGS}
    word = {k: np.zeros((len(contexts), dim), dtype=np.float32) for k in WORD_ENCODINGS}
    valid = np.zeros(len(contexts), dtype=bool)
    pieces = np.zeros(len(contexts), dtype=np.int32)  # the tokens the stimulus is pooled from

    bar = tqdm(total=n_sent, desc="embedding", unit="sent", disable=not progress)
    with torch.inference_mode():
        for batch in batches_by_length(lengths, max_tokens, max_batch):
            width = int(lengths[batch].max())
            ids = torch.full((len(batch), width), pad_id, dtype=torch.long, device=dev)
            mask = torch.zeros((len(batch), width), dtype=torch.long, device=dev)
            for j, s in enumerate(batch):
                ids[j, : lengths[s]] = torch.tensor(tok.ids[s], device=dev)
                mask[j, : lengths[s]] = 1
            out = model(input_ids=ids, attention_mask=mask, output_hidden_states=layer != -1)
            hidden = (out.last_hidden_state if layer == -1 else out.hidden_states[layer]).float()
            hidden = hidden.cpu().numpy()
            for j, s in enumerate(batch):
                h = hidden[j, : lengths[s]]
                real = [i for i, sp in enumerate(tok.special[s]) if not sp] or list(range(len(h)))
                sent["sent/cls"][s] = h[0]
                sent["sent/last"][s] = h[-1]
                sent["sent/mean"][s] = h[real].mean(axis=0)
                for r in rows_of[s]:
                    pos = span_tokens(tok.offsets[s], tok.special[s], starts[r], ends[r])
                    if pos and any(tok.ids[s][i] != unk_id for i in pos):
                        valid[r], pieces[r] = True, len(pos)
                        word["word/mean"][r] = h[pos].mean(axis=0)
                        word["word/first"][r] = h[pos[0]]
                        word["word/last"][r] = h[pos[-1]]
            bar.update(len(batch))
    bar.close()
    result = {k: v[inverse] for k, v in sent.items()}
    result.update(word)
    result["valid"] = valid
    result["pieces"] = pieces
    return result


def context_word_vectors(
    model: Any, tokenizer: Any, is_decoder: bool, contexts: pd.DataFrame, **extraction
) -> np.ndarray:
    """Each context row's word vector (:func:`encode_transformer`'s ``word/mean``), float32,
    NaN where the word is not valid: what DivDist's contextual source reads. Only the word is
    kept, so a decoder reads each context up to the word alone."""
    encoded = encode_transformer(model, tokenizer, contexts, prefix_only=is_decoder, **extraction)
    return np.where(encoded["valid"][:, None], encoded["word/mean"], np.nan).astype(np.float32)


def encode_static(vectors: StaticVectors, contexts: pd.DataFrame) -> dict[str, np.ndarray]:
    """``word/mean`` of each stimulus; ``valid`` is False when it is out of vocabulary or read
    from an all-zero vector (no direction: every cosine with it is undefined)."""
    dim = vectors.vectors.shape[1]
    out = np.zeros((len(contexts), dim), dtype=np.float32)
    valid = np.zeros(len(contexts), dtype=bool)
    for i, stimulus in enumerate(contexts["stimulus"]):
        vec = vectors.lookup(str(stimulus))
        if vec is not None and not vectors.is_zero(str(stimulus)):
            out[i], valid[i] = vec, True
    return {"word/mean": out, "valid": valid}


def stimulus_notes_of(attrs: Mapping[str, Any]) -> dict[str, str]:
    """Stimulus -> its note (:func:`static_notes`) from an embeddings file's attributes ({}
    where it records none)."""
    return json.loads(attrs["stimulus_notes"]) if "stimulus_notes" in attrs else {}


def static_notes(vectors: StaticVectors, contexts: pd.DataFrame) -> dict[str, str]:
    """Stimulus -> what is suspect in its vector (:meth:`StaticVectors.notes`), for the notes
    of the rows that read it; only the stimuli with a note."""
    out = {}
    for stimulus in dict.fromkeys(str(s) for s in contexts["stimulus"]):
        notes = vectors.notes(stimulus)
        if notes:
            out[stimulus] = "; ".join(notes)
    return out


def write_embeddings(
    path: str | os.PathLike,
    parts: dict[str, tuple[pd.DataFrame, dict[str, np.ndarray]]],
    attrs: dict,
) -> None:
    """One HDF5 file per (model, source, test): a group per descriptor holding one row per
    context of that descriptor's table (``context_id`` + encodings), each dataset with the
    sha256 of its contents (``sha256`` attribute), written atomically."""
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as h5:
        for descriptor, (contexts, arrays) in parts.items():
            group = h5.create_group(descriptor)
            ids = contexts["context_id"].to_numpy(dtype=np.int64)
            for name, data in {"context_id": ids, **arrays}.items():
                dataset = group.create_dataset(name, data=data)
                dataset.attrs["sha256"] = array_checksum(np.asarray(data))
        for key, value in {**attrs, "code_version": __version__, "dtype": "float32"}.items():
            h5.attrs[key] = "" if value is None else value


def read_embeddings(
    path: str | os.PathLike, descriptor: str
) -> tuple[dict[str, np.ndarray], dict[str, Any], str]:
    """The datasets of one descriptor's group (``word/mean``, ``valid``, ...), the file's
    attributes, and a checksum over the group's datasets and the model's files (for score
    signatures). Every dataset is checked against the checksum stored when it was written: a
    corrupted or truncated file is an error that says to delete it, never a silently different
    score; so is one whose attributes name another model, source or test than its path."""
    arrays: dict[str, np.ndarray] = {}
    sums = hashlib.sha256()
    fix = f"delete {path} and rerun (the workflow rebuilds it)"
    refuse_folder(path)
    try:
        with h5py.File(path, "r") as h5:
            if descriptor not in h5:
                raise InputError(f"{path}: no group {descriptor!r} (has {list(h5)}); {fix}")
            group = h5[descriptor]
            for name in sorted(_dataset_names(group)):
                data = group[name][()]
                stored = group[name].attrs.get("sha256")
                if stored is None or array_checksum(data) != stored:
                    raise InputError(
                        f"{path}: dataset {descriptor}/{name} does not match the checksum "
                        f"written with it: the file is corrupted; {fix}"
                    )
                arrays[name] = data
                sums.update(stored.encode())
            attrs = dict(h5.attrs)
            sums.update(str(attrs.get("weights_sha256", "")).encode())  # the model's files
    except InputError:
        raise
    except Exception as exc:  # h5py's errors on damaged metadata: OSError, RuntimeError, ...
        raise InputError(
            f"{path}: unreadable embeddings file ({type(exc).__name__}: {exc}); {fix}"
        ) from exc
    _check_attributes(path, attrs, fix)
    check_recorded(path, attrs)
    return arrays, attrs, sums.hexdigest()


#: the attributes :func:`write_embeddings` writes to every file
WRITTEN_ATTRIBUTES = ("code_version", "dtype")


def _check_attributes(path, attrs: dict[Any, Any], fix: str) -> None:
    """The file's attributes carry no checksum (its datasets do), and damaged bytes in them
    read back as other attributes (a name as bytes, a text with undecodable bytes, one
    missing): what the writer cannot have written (its names and texts are UTF-8) is an
    error naming the file. Damage that leaves valid UTF-8 goes unseen."""
    damaged = [
        repr(key)
        for key, value in attrs.items()
        if not (isinstance(key, str) and _utf8(key))
        or isinstance(value, bytes)
        or (isinstance(value, str) and not _utf8(value))
    ]
    damaged += [f"{name!r} missing" for name in WRITTEN_ATTRIBUTES if name not in attrs]
    if damaged:
        raise InputError(
            f"{path}: damaged attributes ({', '.join(damaged)}): not what the workflow "
            f"writes; {fix}"
        )


def _utf8(text: str) -> bool:
    """Whether a text is valid UTF-8 (h5py keeps undecodable bytes as lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _dataset_names(group: h5py.Group) -> list[str]:
    names: list[str] = []
    group.visititems(
        lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else None
    )
    return names


def split_rows(frames: dict[str, pd.DataFrame], arrays: dict[str, np.ndarray]):
    """Undo a concatenation of context tables (a test's, per descriptor; a model's, per
    test): per key, its table and its rows of every array."""
    out, start = {}, 0
    for descriptor, frame in frames.items():
        stop = start + len(frame)
        out[descriptor] = (frame, {k: v[start:stop] for k, v in arrays.items()})
        start = stop
    return out
