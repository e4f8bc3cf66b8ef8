"""One-time local preparation of a model: ``results/models/<name>/`` holds GGUF weights
dequantised once to safetensors (15-90 s) so that later jobs load in seconds, static vectors
as ``.npy``, and a provenance file written last.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from pathlib import Path
from typing import Any

import numpy as np

from biasbench.errors import InputError
from biasbench.io import atomic_path, write_json, write_text
from biasbench.models.specs import ModelSpec
from biasbench.models.weights import MODEL_FILES, model_files, weights_record

PROVENANCE = "biasbench_model.json"


def package_file(location: str) -> tuple[Path, str]:
    """``pkg/rel/path`` -> (absolute path inside the installed package, package version)."""
    package, _, rel = location.partition("/")
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise InputError(f"package {package!r} is not installed (needed for {location!r})")
    root = Path(spec.origin).parent
    try:
        version = importlib.metadata.version(package.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return (root / rel if rel else root), version


def _read_word2vec_binary(path: Path) -> tuple[list[str], np.ndarray]:
    with open(path, "rb") as fh:
        n, dim = (int(v) for v in fh.readline().split())
        words, vectors = [], np.empty((n, dim), dtype=np.float32)
        for i in range(n):
            chars = bytearray()
            while (c := fh.read(1)) != b" ":
                if not c:
                    raise InputError(f"{path}: truncated word2vec file at entry {i}")
                if c != b"\n":
                    chars += c
            words.append(chars.decode("utf-8", errors="replace"))
            vectors[i] = np.frombuffer(fh.read(4 * dim), dtype=np.float32)
    return words, vectors


def _prepare_static(spec: ModelSpec, out: Path) -> dict[str, Any]:
    if spec.scheme == "glove-pkg":
        import pandas as pd

        root, version = package_file(spec.location + "/data")
        emb = sorted(root.glob("*_emb.npy"))
        index = sorted(root.glob("*_index.parquet"))
        if not emb or not index:
            raise InputError(f"{root}: expected *_emb.npy and *_index.parquet")
        words = pd.read_parquet(index[0]).iloc[:, 0].astype(str).tolist()
        vectors = np.load(emb[0]).astype(np.float32)
    else:
        local = spec.scheme == "w2v-path"
        path, version = (Path(spec.location), None) if local else package_file(spec.location)
        words, vectors = _read_word2vec_binary(path)
    with atomic_path(out / "vectors.npy") as tmp, open(tmp, "wb") as fh:
        np.save(fh, vectors)
    write_text(out / "vocab.txt", "\n".join(words) + "\n")
    return {"package_version": version, "vocab_size": len(words), "dim": int(vectors.shape[1])}


def _gguf_file(spec: ModelSpec, out: Path) -> tuple[Path, str]:
    if spec.scheme == "gguf-pkg":
        return package_file(spec.location)
    root, version = package_file(spec.location)
    module = importlib.import_module(spec.location)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "assembled.gguf"
    if not target.exists():
        module.assemble(target, overwrite=True)
    return target, version


def _dequantise_gguf(gguf: Path, out: Path) -> None:
    """Load a GGUF once, save plain float32 safetensors + tokenizer in HF layout."""
    from safetensors.torch import save_file
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModel.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = model.config
    out.mkdir(parents=True, exist_ok=True)
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the saved weights are plain float32
    config.save_pretrained(out)
    tokenizer.save_pretrained(out)
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    with atomic_path(out / "model.safetensors") as tmp:
        save_file(state, str(tmp))


def prepare_model(spec: ModelSpec, out: str | os.PathLike) -> Path:
    """Make ``out`` hold what loading needs, and a provenance file written last."""
    out = Path(out)  # created by the first file written: a source that fails leaves nothing
    info: dict[str, Any] = {
        "name": spec.name,
        "kind": spec.kind,
        "source": f"{spec.scheme}:{spec.location}",
        "revision": spec.revision,
    }
    if spec.kind == "static":
        info.update(_prepare_static(spec, out))
    elif spec.scheme in ("gguf-pkg", "gguf-asm"):
        gguf, version = _gguf_file(spec, out)
        _dequantise_gguf(gguf, out)
        (out / "assembled.gguf").unlink(missing_ok=True)
        info["package_version"] = version
        info["weights"] = "GGUF dequantised to float32 safetensors"
    elif spec.scheme == "pkg":
        info["package_version"] = package_file(spec.location)[1]
    write_provenance(out, info, weights_directory(spec, out, download=True))
    return out


def write_provenance(out: Path, info: dict[str, Any], weights: Path | None) -> None:
    """The model's provenance file, written last, with the digests of the files it is loaded
    from (``weights``; None where none are known, as for ELMo)."""
    if weights is not None:
        info = info | weights_record(weights, skip=PROVENANCE)
    write_json(out / PROVENANCE, info, indent=1, sort_keys=True)


def weights_directory(spec: ModelSpec, prepared: Path, download: bool = False) -> Path | None:
    """Where a model's files are read from: the prepared directory, the package's or the
    user's directory, or a hub snapshot (fetched when ``download``, else only from the cache)."""
    if spec.kind == "elmo":
        return None
    if spec.scheme == "pkg":
        return package_file(spec.location)[0]
    if spec.scheme == "path":
        return Path(spec.location)
    if spec.scheme == "hf":
        from huggingface_hub import snapshot_download

        return Path(
            snapshot_download(
                spec.location,
                revision=spec.revision,
                allow_patterns=[p for p in MODEL_FILES if p != "*.bin"],  # safetensors only
                local_files_only=not download,
            )
        )
    return prepared


def source_files(spec: ModelSpec) -> list[str]:
    """The files preparing a model reads (Snakemake inputs: replacing one prepares it again)."""
    if spec.scheme in ("pkg", "path"):
        return [str(p) for p in model_files(weights_directory(spec, Path()))]
    if spec.scheme in ("gguf-pkg", "w2v-pkg"):
        return [str(package_file(spec.location)[0])]
    if spec.scheme == "w2v-path":
        return [str(Path(spec.location).resolve())]
    if spec.scheme == "glove-pkg":
        return [str(p) for p in sorted(package_file(spec.location + "/data")[0].glob("*"))]
    if spec.scheme == "gguf-asm":  # the chunk packages the GGUF file is assembled from
        return [str(p) for p in importlib.import_module(spec.location).chunk_paths()]
    return []
