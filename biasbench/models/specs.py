"""Model specs: where a model's weights come from, checked at the config edge.

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
``w2v-path:<file>``    a local file of static vectors (your own): word2vec binary or text, or
                       GloVe's text, told apart by the content
``mlm-head:<model>``   a configured encoder with a masked-LM head trained here (its body frozen)
``random:<model>``     a null model: the configured model's architecture and tokenizer with
                       seeded random weights (an encoder gets a random masked-LM head too)
``quantized:<m>:<f>``  a configured transformer's weights rounded to a GGUF block format
                       ``<f>`` (``q8_0``, ``q4_0``) and back to float32, its head and
                       tokenizer kept (:mod:`biasbench.models.quantize`)
``elmo:original``      AllenNLP's ELMo (its own environment, ``envs/elmo.yaml``)
=====================  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from biasbench.data.sampling import CASE_POLICIES
from biasbench.errors import InputError

KINDS = ("static", "transformer", "elmo")
#: context sources built here (no corpus): every model reads them under one name
BUILTIN_SOURCES = ("templates", "words")
SCHEMES = {
    "static": ("glove-pkg", "w2v-pkg", "w2v-path"),
    "transformer": (
        "hf",
        "path",
        "pkg",
        "gguf-pkg",
        "gguf-asm",
        "mlm-head",
        "random",
        "quantized",
    ),
    "elmo": ("elmo",),  # elmo:original, or elmo:<options.json URL>|<weights.hdf5 URL>
}
#: schemes of a model built here from another configured model's prepared files
BUILT_FROM = ("mlm-head", "random", "quantized")
#: the block formats of a ``quantized:<model>:<format>`` copy (GGUF's names, lowercase)
QUANTIZED_FORMATS = ("q8_0", "q4_0")


@dataclass(frozen=True)
class ModelSpec:
    name: str
    kind: str
    scheme: str
    location: str
    revision: str | None
    lowercase: bool
    layer: int
    case: str  # which corpus occurrences of a stimulus count (sampling.CASE_POLICIES)

    @property
    def base(self) -> str | None:
        """The configured model this one is built from (``mlm-head:``, ``random:``,
        ``quantized:``), else None."""
        if self.scheme == "quantized":
            return self.location.rpartition(":")[0]
        return self.location if self.scheme in BUILT_FROM else None

    @property
    def quantized_format(self) -> str | None:
        """A ``quantized:`` copy's block format (``q8_0``, ``q4_0``), else None."""
        return self.location.rpartition(":")[2] if self.scheme == "quantized" else None

    @property
    def default_source(self) -> str:
        """The context source its ``tests`` list runs on: words alone for static vectors,
        templates for a contextual model."""
        return "words" if self.kind == "static" else "templates"

    @classmethod
    def from_config(cls, name: str, cfg: dict[str, Any]) -> ModelSpec:
        """From a validated model entry (the schema's defaults filled in)."""
        kind = cfg.get("kind")
        if kind not in KINDS:
            raise InputError(f"config: models.{name}.kind must be one of {KINDS}, got {kind!r}")
        scheme, sep, location = str(cfg.get("source", "")).partition(":")
        if not sep or scheme not in SCHEMES[kind] or not location:
            raise InputError(
                f"config: models.{name}.source must be '<scheme>:<location>' with a scheme "
                f"in {SCHEMES[kind]} for kind {kind}, got {cfg.get('source')!r}"
            )
        if scheme != "hf" and cfg.get("revision") is not None:
            raise InputError(
                f"config: models.{name}.revision: only an hf: model has a revision (it is "
                f"recorded as the weights' revision); a {scheme}: model's files are identified "
                "by their sha256: remove revision"
            )
        if scheme == "path":
            check_local_model(name, location)
        if scheme == "quantized":
            base, _, form = location.rpartition(":")
            if not base or form not in QUANTIZED_FORMATS:
                raise InputError(
                    f"config: models.{name}.source quantized:{location}: must be "
                    f"'quantized:<model>:<format>', a configured transformer and a format in "
                    f"{QUANTIZED_FORMATS} (e.g. quantized:minilm-l6+mlm-head:q8_0)"
                )
        if scheme == "w2v-path" and not Path(location).is_file():
            raise InputError(
                f"config: models.{name}.source w2v-path:{location}: no such file (static "
                "vectors in word2vec's binary or text format, or GloVe's text format)"
            )
        case = cfg["case"]
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
            lowercase=bool(cfg["lowercase"]),
            layer=int(cfg["layer"]),
            case=case,
        )


#: a tokenizer saved with ``save_pretrained`` leaves at least one of these
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "vocab.json",
    "tokenizer.model",
    "spiece.model",
    "sentencepiece.bpe.model",
)


def check_local_model(name: str, location: str) -> None:
    """A ``path:`` model is a directory saved with ``save_pretrained``: its weights' config and
    a tokenizer's files (else loading fails later, or worse, a missing tokenizer embeds
    nothing). That the tokenizer loads is the planner's check (:func:`check_local_tokenizer`):
    it imports transformers, which most jobs that read a spec never use."""
    where = Path(location)
    field = _path_field(name, location)
    if where.is_file():
        gguf = where.suffix.lower() == ".gguf"
        raise InputError(
            f"{field}: a file, not a directory: path: takes a directory saved with "
            "save_pretrained (config.json, *.safetensors, the tokenizer's files)"
            + (
                "; a GGUF file is read only from inside an installed package "
                "(gguf-pkg:<package>/<file>, or gguf-asm:<package> for one assembled from "
                "chunks); no scheme takes a local GGUF file: dequantise it once with "
                f"transformers (d = '{where.parent}'; "
                f"AutoModel.from_pretrained(d, gguf_file='{where.name}') and "
                f"AutoTokenizer.from_pretrained(d, gguf_file='{where.name}'), each "
                ".save_pretrained(DIR)) and configure source: path:DIR"
                if gguf
                else ""
            )
        )
    if not where.is_dir():
        raise InputError(f"{field}: no such directory")
    if not (where / "config.json").is_file():
        raise InputError(f"{field}: no config.json (save the model with save_pretrained)")
    if not any(where.glob("*.safetensors")):
        pickles = sorted(p.name for p in where.glob("pytorch_model*.bin"))
        if pickles:  # unpickling can run code: weights are loaded from safetensors only
            raise InputError(
                f"{field}: weights only as a pickle ({', '.join(pickles)}); only safetensors "
                "are loaded (unpickling can run code): convert a pickle you trust with "
                f"python -c \"import transformers as t; d = '{location}'; "
                "m = getattr(t, t.AutoConfig.from_pretrained(d).architectures[0])"
                '.from_pretrained(d); m.save_pretrained(d, safe_serialization=True)", '
                "then delete the .bin files"
            )
        raise InputError(
            f"{field}: no weights (*.safetensors; save the model with save_pretrained)"
        )
    if not any((where / f).is_file() for f in TOKENIZER_FILES):
        raise InputError(
            f"{field}: no tokenizer files ({', '.join(TOKENIZER_FILES[:3])}, ...): save the "
            "tokenizer beside the model (tokenizer.save_pretrained(<dir>))"
        )


def check_local_tokenizer(name: str, location: str) -> None:
    """A ``path:`` model's tokenizer loads: checked once, while the workflow is planned (a job
    that failed on it would ask to install sentencepiece or tiktoken)."""
    where = Path(location)
    stamp = tuple(sorted((f.name, f.stat().st_mtime_ns) for f in where.iterdir() if f.is_file()))
    problem = tokenizer_problem(str(where.resolve()), stamp)
    if problem:
        raise InputError(
            f"{_path_field(name, location)}: {problem}; "
            f"save it with tokenizer.save_pretrained({location})"
        )


def _path_field(name: str, location: str) -> str:
    """How a message names a ``path:`` model's config entry."""
    return f"config: models.{name}.source path:{location}"


@cache
def tokenizer_problem(location: str, _stamp: tuple) -> str | None:
    """Why a local directory's tokenizer does not load (None: it loads), once per directory
    as its files stand (``_stamp``): a tokenizer file alone (tokenizer_config.json without
    tokenizer.json or a vocabulary) passed the file check and failed in the first job that
    embeds, asking to install sentencepiece or tiktoken."""
    from transformers import AutoTokenizer

    try:
        AutoTokenizer.from_pretrained(location, local_files_only=True)
    except Exception as exc:  # whatever the reason: the job would fail on it
        reason = (str(exc).strip().splitlines() or [""])[0].strip().rstrip(":")
        reason = f"{type(exc).__name__}: {reason[:120]}" if reason else type(exc).__name__
        present = [f for f in TOKENIZER_FILES if (Path(location) / f).is_file()]
        vocabularies = [f for f in TOKENIZER_FILES[2:] if f in present]
        what = f"{', '.join(present)} {'is' if len(present) == 1 else 'are'} there"
        if "tokenizer.json" not in present and not vocabularies:
            what += f" but no tokenizer.json or vocabulary file ({', '.join(TOKENIZER_FILES[2:])})"
        return f"the tokenizer does not load ({reason}): {what}"
    return None


def model_spec(config: dict[str, Any], name: str) -> ModelSpec:
    """The spec of a configured model; an unknown name is an input error, not a KeyError."""
    models = config.get("models") or {}
    check_known_model(name, models)
    return ModelSpec.from_config(name, models[name])


def check_known_model(name: str, models) -> None:
    """An unknown model name is an input error that lists the configured ones."""
    if name not in models:
        raise InputError(f"config: unknown model {name!r}; configured models: {sorted(models)}")
