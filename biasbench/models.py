"""Model registry: where a model's weights come from, and a one-time local preparation.

A model config names a ``kind`` (``static`` word vectors or a ``transformer``) and a
``source`` with a scheme:

=====================  ==========================================================
``hf:<id>``            any Hugging Face model id (encoder or decoder), via AutoModel
``path:<dir>``         a local directory in Hugging Face layout
``pkg:<pkg>/<dir>``    a Hugging Face directory shipped inside an installed package
``gguf-pkg:<pkg>/<f>`` a GGUF file shipped inside an installed package
``gguf-asm:<pkg>``     a package that assembles its GGUF file from chunk packages
``glove-pkg:<pkg>``    GloVe as ``data/*_emb.npy`` + ``data/*_index.parquet``
``w2v-pkg:<pkg>/<f>``  word2vec binary format file inside an installed package
=====================  ==========================================================

Preparation writes ``results/models/<name>/``: GGUF weights dequantised once to
safetensors (15-90 s) so that later jobs load in seconds, static vectors as ``.npy``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from biasbench.errors import InputError
from biasbench.io import atomic_path, write_text
from biasbench.sampling import CASE_POLICIES

KINDS = ("static", "transformer")
SCHEMES = {
    "static": ("glove-pkg", "w2v-pkg"),
    "transformer": ("hf", "path", "pkg", "gguf-pkg", "gguf-asm"),
}
PROVENANCE = "biasbench_model.json"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    kind: str
    scheme: str
    location: str
    revision: str | None = None
    lowercase: bool = False
    layer: int = -1
    case: str = "any"  # which corpus occurrences of a stimulus count (sampling.CASE_POLICIES)

    @classmethod
    def from_config(cls, name: str, cfg: dict[str, Any]) -> ModelSpec:
        kind = cfg.get("kind")
        if kind not in KINDS:
            raise InputError(f"config: models.{name}.kind must be one of {KINDS}, got {kind!r}")
        scheme, sep, location = str(cfg.get("source", "")).partition(":")
        if not sep or scheme not in SCHEMES[kind] or not location:
            raise InputError(
                f"config: models.{name}.source must be '<scheme>:<location>' with a scheme "
                f"in {SCHEMES[kind]} for kind {kind}, got {cfg.get('source')!r}"
            )
        case = cfg.get("case", "any")
        if case not in CASE_POLICIES:
            raise InputError(
                f"config: models.{name}.case must be one of {CASE_POLICIES}, got {case!r}"
            )
        return cls(
            name=name,
            kind=kind,
            scheme=scheme,
            location=location,
            revision=cfg.get("revision"),
            lowercase=bool(cfg.get("lowercase", False)),
            layer=int(cfg.get("layer", -1)),
            case=case,
        )


def model_spec(config: dict[str, Any], name: str) -> ModelSpec:
    """The spec of a configured model; an unknown name is an input error, not a KeyError."""
    models = config.get("models") or {}
    if name not in models:
        raise InputError(f"config: unknown model {name!r}; configured models: {sorted(models)}")
    return ModelSpec.from_config(name, models[name])


def _package_file(location: str) -> tuple[Path, str]:
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


# --- static vectors ---------------------------------------------------------------------


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

        root, version = _package_file(spec.location + "/data")
        emb = sorted(root.glob("*_emb.npy"))
        index = sorted(root.glob("*_index.parquet"))
        if not emb or not index:
            raise InputError(f"{root}: expected *_emb.npy and *_index.parquet")
        words = pd.read_parquet(index[0]).iloc[:, 0].astype(str).tolist()
        vectors = np.load(emb[0]).astype(np.float32)
    else:
        path, version = _package_file(spec.location)
        words, vectors = _read_word2vec_binary(path)
    with atomic_path(out / "vectors.npy") as tmp, open(tmp, "wb") as fh:
        np.save(fh, vectors)
    write_text(out / "vocab.txt", "\n".join(words) + "\n")
    return {"package_version": version, "vocab_size": len(words), "dim": int(vectors.shape[1])}


@dataclass
class StaticVectors:
    words: dict[str, int]
    vectors: np.ndarray
    lowercase: bool

    def lookup(self, phrase: str) -> np.ndarray | None:
        """Vector of a word or phrase: the word itself, else its underscore-joined form,
        else the mean of its space/hyphen-separated parts; None when any part is missing."""
        text = phrase.lower() if self.lowercase else phrase
        for key in (text, text.replace(" ", "_")):
            if key in self.words:
                return self.vectors[self.words[key]]
        parts = text.replace("-", " ").split()
        if len(parts) > 1 and all(p in self.words for p in parts):
            return self.vectors[[self.words[p] for p in parts]].mean(axis=0)
        return None


def load_static(prepared: Path, spec: ModelSpec) -> StaticVectors:
    words = (prepared / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    index: dict[str, int] = {}
    for i, w in enumerate(words):
        index.setdefault(w, i)  # first (most frequent) entry wins on duplicates
    return StaticVectors(index, np.load(prepared / "vectors.npy", mmap_mode="r"), spec.lowercase)


# --- transformers -----------------------------------------------------------------------


def _gguf_file(spec: ModelSpec, out: Path) -> tuple[Path, str]:
    if spec.scheme == "gguf-pkg":
        return _package_file(spec.location)
    root, version = _package_file(spec.location)
    module = importlib.import_module(spec.location)
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
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the saved weights are plain float32
    config.save_pretrained(out)
    tokenizer.save_pretrained(out)
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    with atomic_path(out / "model.safetensors") as tmp:
        save_file(state, str(tmp))


def prepare_model(spec: ModelSpec, out: str | os.PathLike) -> Path:
    """Make ``out`` hold what loading needs, and a provenance file written last."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
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
        info["package_version"] = _package_file(spec.location)[1]
    write_text(out / PROVENANCE, json.dumps(info, indent=1, sort_keys=True) + "\n")
    return out


def transformer_location(spec: ModelSpec, prepared: Path) -> str:
    """What to hand ``from_pretrained``: the prepared directory, a package dir, or an id."""
    if spec.scheme in ("gguf-pkg", "gguf-asm"):
        return str(prepared)
    if spec.scheme == "pkg":
        return str(_package_file(spec.location)[0])
    return spec.location


def load_transformer(spec: ModelSpec, prepared: Path):
    """(model, tokenizer, is_decoder) in eval mode; any AutoModel architecture works."""
    from transformers import AutoModel, AutoTokenizer

    where = transformer_location(spec, prepared)
    kwargs = {"revision": spec.revision} if spec.revision else {}
    tokenizer = AutoTokenizer.from_pretrained(where, **kwargs)
    if not getattr(tokenizer, "is_fast", False):
        raise InputError(f"model {spec.name}: a fast tokenizer is needed for character offsets")
    model = AutoModel.from_pretrained(where, dtype="float32", **kwargs).eval()
    return model, tokenizer, is_decoder_type(model.config.model_type)


def load_language_model(spec: ModelSpec, prepared: Path):
    """(model with its LM head, tokenizer, is_masked) for LPBS: a masked LM when the
    architecture has one, else a causal LM; fails if the weights hold no usable head."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    where = transformer_location(spec, prepared)
    kwargs = {"revision": spec.revision} if spec.revision else {}
    model_type = AutoConfig.from_pretrained(where, **kwargs).model_type
    masked = not is_decoder_type(model_type)
    auto = AutoModelForMaskedLM if masked else AutoModelForCausalLM
    kind = "masked" if masked else "causal"
    try:
        model, info = auto.from_pretrained(
            where, dtype="float32", output_loading_info=True, **kwargs
        )
    except ValueError as exc:
        raise InputError(f"model {spec.name}: no {kind} LM: {exc}") from exc
    if info["missing_keys"]:  # a randomly initialised head would give meaningless scores
        missing = sorted(info["missing_keys"])[:3]
        raise InputError(f"model {spec.name}: the weights hold no {kind} LM head ({missing} ...)")
    model, tokenizer = model.eval(), AutoTokenizer.from_pretrained(where, **kwargs)
    if not masked:
        from biasbench.lpbs import check_output_head

        check_output_head(model, tokenizer)
    return model, tokenizer, masked


def is_decoder_type(model_type: str) -> bool:
    """Causal LMs (GPT-2, OPT, BLOOM, Llama, Gemma) vs encoders (BERT, RoBERTa, MiniLM)."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    if model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return False
    return model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES or model_type.endswith("_text")
