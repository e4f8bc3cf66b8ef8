"""Adapter: rule elmo_layers -> AllenNLP's ElmoEmbedder, in ELMo's own environment.

Runs under envs/elmo.yaml (Python 3.7, AllenNLP 0.9.0, the version Husse & Spitz used), so it
imports nothing of biasbench: token lists in (JSON), the three layers of every token out
(npz: ``layers`` (tokens, 3, dim) float32 over all sentences in order, ``lengths`` per
sentence). ``biasbench.models.elmo`` pools them into the HDF5 contract. Both files are sealed
as ``biasbench.io`` seals them (a last ``# sha256`` line; an ``__sha256__`` array), written
out here because this environment cannot import it.
"""

import hashlib
import json
import os
import sys

import numpy as np


def embed(tokens, embedder, batch_size=64):
    """Per sentence, its (3, tokens, dim) layers, concatenated token-wise, and the lengths."""
    layers = [np.asarray(a, np.float32) for a in embedder.embed_sentences(tokens, batch_size)]
    for sentence, array in zip(tokens, layers):  # noqa: B905 (Python 3.7: no strict=)
        if array.ndim != 3 or array.shape[0] != 3 or array.shape[1] != len(sentence):
            raise ValueError(f"ELMo returned {array.shape} for {len(sentence)} tokens")
    stacked = (
        np.concatenate([a.transpose(1, 0, 2) for a in layers])
        if layers
        else np.zeros((0, 3, 1024), np.float32)
    )
    return stacked, np.array([len(t) for t in tokens], np.int64)


def embedder_for(source):
    """``original`` (AllenNLP's default ELMo) or ``<options.json URL>|<weights.hdf5 URL>``."""
    try:
        from allennlp.commands.elmo import ElmoEmbedder
    except ImportError as exc:
        sys.exit(
            "biasbench: ELMo needs its own environment (envs/elmo.yaml): run Snakemake with "
            f"--software-deployment-method conda ({exc})"
        )
    if source == "original":
        return ElmoEmbedder()
    options, _, weights = source.partition("|")
    return ElmoEmbedder(options_file=options, weight_file=weights)


def read_sealed_json(path):
    with open(path, "rb") as fh:
        data = fh.read()
    start = data.rfind(b"\n", 0, len(data) - 1) + 1
    body, last = data[:start], data[start:].strip()
    if last != b"# sha256 " + hashlib.sha256(body).hexdigest().encode():
        sys.exit(f"biasbench: {path} does not match its checksum; delete it and rerun")
    return json.loads(body.decode("utf-8"))


def seal(arrays):
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        part = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
        part.update(array)
        digest.update(f"{name}:{part.hexdigest()}".encode())
    return np.array(digest.hexdigest())


def main(sm):
    tokens = read_sealed_json(sm.input[0])["tokens"]
    layers, lengths = embed(tokens, embedder_for(sm.params.source.partition(":")[2]))
    arrays = {"layers": layers, "lengths": lengths}
    tmp = sm.output[0] + ".tmp.npz"
    np.savez(tmp, __sha256__=seal(arrays), **arrays)
    os.replace(tmp, sm.output[0])


if "snakemake" in globals():
    main(snakemake)  # noqa: F821
