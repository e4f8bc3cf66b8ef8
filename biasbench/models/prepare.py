"""One-time local preparation of a model: ``results/models/<name>/`` holds GGUF weights
dequantised once to safetensors (15-90 s) so that later jobs load in seconds, static vectors
as ``.npy``, and a provenance file written last.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import importlib.metadata
import importlib.util
import mmap
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from biasbench.data.pins import inside_package
from biasbench.errors import InputError
from biasbench.io import atomic_path, write_json, write_text
from biasbench.models.specs import ModelSpec
from biasbench.models.weights import MODEL_FILES, model_files, weights_record

PROVENANCE = "biasbench_model.json"


def package_file(location: str) -> tuple[Path, str]:
    """``pkg/rel/path`` -> (absolute path inside the installed package, package version); a
    path that resolves outside the package is refused (only a file inside it is pinned)."""
    package, _, rel = location.partition("/")
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise InputError(f"package {package!r} is not installed (needed for {location!r})")
    root = Path(spec.origin).parent
    try:
        version = importlib.metadata.version(package.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    path = root / rel if rel else root
    inside_package(path, root, location)
    return path, version


def read_static_vectors(path: Path) -> tuple[list[str], np.ndarray]:
    """(words, float32 vectors) of a word2vec file, binary or text, or of GloVe's headerless
    text, told apart by the content (a ``w2v-path:`` file is whatever its user saved: a text
    file read as binary gave a vocabulary of garbage). The header's count and dimension are
    checked against the file and every value must be finite; a bad entry is an error naming
    the file and the line or entry. A UTF-8 byte-order mark before the first line (a text file
    saved by some Windows editors) is skipped: it is no part of the header or the first word."""
    with open(path, "rb") as fh:
        offset = len(codecs.BOM_UTF8) if fh.read(3) == codecs.BOM_UTF8 else 0
        fh.seek(offset)
        first = fh.readline()
        head = first.split()
        if len(head) == 2 and head[0].isdigit() and head[1].isdigit():
            n, dim = int(head[0]), int(head[1])
            if n == 0 or dim == 0:
                raise InputError(f"{path}: line 1: the header declares {n} vectors of {dim} values")
            start = fh.tell()
            record = fh.read(1 << 16)
            fh.seek(start)
            if _text_values(record, 4 * dim, dim):
                return _read_text(path, fh, 2, n, dim)
            return _read_binary(path, start, n, dim)
        if len(head) < 2 or not _text_values(first, len(first), 1):
            raise InputError(
                f"{path}: not static vectors: line 1 is neither a word2vec header ('<count> "
                "<dimension>') nor a word and its values as text (GloVe's format)"
            )
        fh.seek(offset)
        return _read_text(path, fh, 1, None, len(first.rstrip(b"\r\n ").split(b" ")) - 1)


def _text_values(record: bytes, width: int, least: int) -> bool:
    """Does the first record hold its values as text, at least ``least`` printable ASCII
    characters before its line ends? Its word may be in any encoding, but ``dim`` text values
    take ``2 * dim - 1`` characters or more, while a binary record's ``width`` bytes of float32
    almost never start with ``dim`` printable ones (1.0 holds two NUL bytes)."""
    values = record.partition(b" ")[2][:width].partition(b"\n")[0]
    return len(values) >= least and re.fullmatch(rb"[\x20-\x7e\t\r]+", values) is not None


def _read_text(
    path: Path, lines, first_line: int, n: int | None, dim: int
) -> tuple[list[str], np.ndarray]:
    """A word and ``dim`` space-separated numbers per line (``n`` lines where a header
    declares them); blank lines only at the end."""
    words: list[str] = []
    rows: list[np.ndarray] = []
    blank = None
    for no, line in enumerate(lines, first_line):
        if not line.strip():
            blank = blank or no
            continue
        if blank is not None:
            raise InputError(f"{path}: line {blank} is blank")
        parts = line.rstrip(b"\r\n ").split(b" ")
        word = parts[0].decode("utf-8", errors="replace")
        if not word:
            raise InputError(f"{path}: line {no}: no word before its values")
        if len(parts) != dim + 1:
            raise InputError(
                f"{path}: line {no}: {len(parts) - 1} values after the word {word!r}, "
                f"expected {dim} (a word and its {dim} values, separated by single spaces)"
            )
        if n is not None and len(words) == n:
            raise InputError(f"{path}: line {no}: more vectors than the {n} the header declares")
        try:
            with np.errstate(over="ignore"):  # beyond float32: inf, refused below
                rows.append(np.array(parts[1:], dtype=np.float32))
        except ValueError:
            bad = next(t for t in parts[1:] if not _is_number(t))
            raise InputError(
                f"{path}: line {no}: {bad.decode('utf-8', errors='replace')!r} is not a number"
            ) from None
        words.append(word)
    if not words or (n is not None and len(words) < n):
        declared = "" if n is None else f"; the header declares {n}"
        raise InputError(f"{path}: {len(words)} vectors{declared}")
    vectors = np.stack(rows)
    _check_finite(path, vectors, lambda i: f"line {first_line + i} ({words[i]!r})")
    return words, vectors


def _is_number(token: bytes) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _read_binary(path: Path, start: int, n: int, dim: int) -> tuple[list[str], np.ndarray]:
    """``n`` records after the header: a word, a space and ``dim`` little-endian float32 (a
    newline before a word is skipped); nothing but whitespace after the last."""
    size, width = path.stat().st_size, 4 * dim
    # each record takes at least a byte of word, a space and its values: a header declaring
    # more than the file can hold allocates nothing and fails at the record that is cut short
    fits = n * (width + 2) <= size - start
    vectors = np.empty((n, dim), dtype=np.float32) if fits else None
    words: list[str] = []
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        pos = start
        for i in range(n):
            while data[pos : pos + 1] == b"\n":
                pos += 1
            space = data.find(b" ", pos)
            entry = f"{path}: entry {i + 1} of {n} (byte {pos})"
            if space == -1:
                raise InputError(f"{entry} is truncated: the file ends in its word")
            if space == pos:
                raise InputError(f"{entry} has no word")
            word = data[pos:space].decode("utf-8", errors="replace")
            pos = space + 1
            if pos + width > size:
                raise InputError(
                    f"{entry}, {word!r}, is truncated: {(size - pos) // 4} of its {dim} "
                    "values before the file ends"
                )
            if vectors is not None:
                vectors[i] = np.frombuffer(data, dtype="<f4", count=dim, offset=pos)
            words.append(word)
            pos += width
        if data[pos:].strip():
            raise InputError(
                f"{path}: more data after the {n} vectors the header declares (byte {pos})"
            )
    _check_finite(path, vectors, lambda i: f"entry {i + 1} of {n} ({words[i]!r})")
    return words, vectors


def _check_finite(path: Path, vectors: np.ndarray, where: Callable[[int], str]) -> None:
    """inf or nan in a vector makes every score it enters meaningless."""
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        i = int(np.argmin(finite))
        raise InputError(f"{path}: {where(i)}: a value is not finite (inf or nan)")


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
        words, vectors = read_static_vectors(path)
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


@contextlib.contextmanager
def _gguf_parsed_once():
    """transformers parses a GGUF file anew for the tokenizer, the configuration and the
    weights (each ~12 s for Gemma 3's vocabulary of 262k pieces, in Python): within this
    block each file is parsed once and its (read-only) reader shared by the three."""
    import gguf

    parse = gguf.GGUFReader
    gguf.GGUFReader = functools.lru_cache(maxsize=2)(parse)
    try:
        yield
    finally:
        gguf.GGUFReader = parse


def _dequantise_gguf(gguf: Path, out: Path) -> None:
    """Load a GGUF once, save plain float32 safetensors + tokenizer in HF layout."""
    from safetensors.torch import save_file
    from transformers import AutoModel, AutoTokenizer

    with _gguf_parsed_once():
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


def hub_problem(spec: ModelSpec, timeout: float = 5.0) -> str:
    """Why an ``hf:`` model cannot be prepared from here ("" when it can): not in the local
    Hugging Face cache, and the hub offline (``HF_HUB_OFFLINE``) or out of reach."""
    import os

    from huggingface_hub import HfApi, snapshot_download

    try:
        snapshot_download(
            spec.location,
            revision=spec.revision,
            allow_patterns=[p for p in MODEL_FILES if p != "*.bin"],
            local_files_only=True,
        )
        return ""
    except Exception:  # noqa: BLE001 (any miss: not cached, a partial snapshot)
        pass
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return "it is not in the local Hugging Face cache and HF_HUB_OFFLINE is set"
    try:
        HfApi().model_info(spec.location, revision=spec.revision, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 (no network, no such model, a gated one)
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"it is not in the local Hugging Face cache and the hub cannot serve it ({reason})"
    return ""


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
