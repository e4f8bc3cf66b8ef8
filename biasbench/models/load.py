"""Loading prepared models: static vectors, transformer encoders/decoders for embeddings,
and language models with their head for probabilities."""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from biasbench.errors import InputError
from biasbench.io import atomic_path, sha256_of
from biasbench.models.logprobs.common import check_output_head
from biasbench.models.prepare import PROVENANCE, weights_directory
from biasbench.models.specs import ModelSpec
from biasbench.models.weights import check_weights


@dataclass
class StaticVectors:
    words: dict[str, int]
    vectors: np.ndarray
    lowercase: bool
    #: word -> the entries (1-based) of a word the file lists more than once
    repeats: dict[str, list[int]] = field(default_factory=dict)
    #: the file the vectors were read from, as its notes name it
    source: str = ""
    #: word (NFC) -> the Unicode form the file writes it in, where that is not NFC
    forms: dict[str, str] = field(default_factory=dict)

    def keys(self, phrase: str) -> list[str] | None:
        """The vocabulary entries a word or phrase is read from: the word itself, else its
        underscore-joined form, else its space/hyphen-separated parts; None when any part is
        missing."""
        text = unicodedata.normalize("NFC", phrase.lower() if self.lowercase else phrase)
        for key in (text, text.replace(" ", "_")):
            if key in self.words:
                return [key]
        parts = text.replace("-", " ").split()
        if len(parts) > 1 and all(p in self.words for p in parts):
            return parts
        return None

    def lookup(self, phrase: str) -> np.ndarray | None:
        """Vector of a word or phrase (:meth:`keys`): the entry's, or the mean of its parts'."""
        keys = self.keys(phrase)
        if keys is None:
            return None
        if len(keys) == 1:
            return self.vectors[self.words[keys[0]]]
        return self.vectors[[self.words[p] for p in keys]].mean(axis=0)

    def notes(self, phrase: str) -> list[str]:
        """What is suspect in a stimulus's vector: a word whose vector is all zero (no
        direction: the stimulus is dropped as if out of vocabulary) and a word the file lists
        more than once (the first entry's vector is used)."""
        keys = self.keys(phrase) or []
        out = [
            f"{phrase!r}: {k!r} has an all-zero vector in {self.source} (no direction; "
            "dropped, as out of vocabulary)"
            for k in dict.fromkeys(keys)
            if self._zero(k)
        ]
        out += [
            f"{phrase!r}: {k!r} is listed {len(self.repeats[k])} times in {self.source} "
            f"(entries {', '.join(map(str, self.repeats[k]))}); the first entry's vector is used"
            for k in dict.fromkeys(keys)
            if k in self.repeats
        ]
        out += [
            f"{phrase!r}: {self.source} writes {k!r} in Unicode {self.forms[k]}; read as NFC"
            for k in dict.fromkeys(keys)
            if k in self.forms
        ]
        return out

    def reading(self, phrase: str) -> str:
        """What a stimulus is read as: its vocabulary entry, or for a phrase read as the mean
        of its words, those words with their counts reduced (``man man`` is ``man``'s vector,
        ``new york`` and ``york new`` one mean). Two stimuli with one reading are one stimulus
        to these vectors, whatever their spelling."""
        keys = self.keys(phrase)
        if keys is None:
            return phrase.lower() if self.lowercase else phrase
        counts = Counter(keys)
        step = math.gcd(*counts.values())
        return " + ".join(
            k if n == step else f"{n // step} x {k}" for k, n in sorted(counts.items())
        )

    def is_zero(self, phrase: str) -> bool:
        """Is any word a stimulus is read from an all-zero vector?"""
        return any(self._zero(k) for k in self.keys(phrase) or [])

    def _zero(self, key: str) -> bool:
        return not np.any(self.vectors[self.words[key]])


def load_static(prepared: Path, spec: ModelSpec) -> StaticVectors:
    check_weights(prepared / PROVENANCE, prepared)
    words = (prepared / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    index: dict[str, int] = {}
    repeats: dict[str, list[int]] = {}
    forms: dict[str, str] = {}
    for i, w in enumerate(words):
        if not unicodedata.is_normalized("NFC", w):  # one form, as word sets are read
            nfc = unicodedata.normalize("NFC", w)
            if nfc not in index:  # the entry that is used is written otherwise
                forms[nfc] = "NFD" if unicodedata.is_normalized("NFD", w) else "a mixed form"
            w = nfc
        if index.setdefault(w, i) != i:  # first (most frequent) entry wins on duplicates
            repeats.setdefault(w, [index[w] + 1]).append(i + 1)
    vectors = np.load(prepared / "vectors.npy", mmap_mode="r")
    source = f"{spec.scheme}:{spec.location}"
    return StaticVectors(index, vectors, spec.lowercase, repeats, source, forms)


def transformer_location(spec: ModelSpec, prepared: Path) -> str:
    """What to hand ``from_pretrained`` (the prepared directory, a package's or the user's
    directory, a hub snapshot), once its files match the digests recorded in preparing it."""
    where = weights_directory(spec, prepared)
    check_weights(prepared / PROVENANCE, where)
    return str(where)


def hub_options(spec: ModelSpec) -> dict:
    """``from_pretrained`` options: the pinned revision, and for hub models safetensors
    weights only (a pickled checkpoint from the network is not loaded)."""
    options: dict = {"revision": spec.revision} if spec.revision else {}
    if spec.scheme == "hf":
        options["use_safetensors"] = True
    return options


def loaded_revision(spec: ModelSpec, model) -> str | None:
    """What to record as the weights' revision: the pinned one, else the commit the hub
    resolved (``None`` for local and packaged weights)."""
    return spec.revision or getattr(model.config, "_commit_hash", None)


def load_transformer(
    spec: ModelSpec, prepared: Path, *, device: str = "cpu", dtype: str = "float32"
):
    """(model, tokenizer, is_decoder) in eval mode on ``device`` (a ``compute.device``
    setting, resolved by :func:`biasbench.models.device.resolve_device`) with its weights in
    ``dtype``; any AutoModel architecture works."""
    from transformers import AutoModel, AutoTokenizer

    from biasbench.models.device import place, resolve_device

    where = transformer_location(spec, prepared)
    revision = {"revision": spec.revision} if spec.revision else {}
    tokenizer = AutoTokenizer.from_pretrained(where, **revision)
    if not getattr(tokenizer, "is_fast", False):
        raise InputError(f"model {spec.name}: a fast tokenizer is needed for character offsets")
    model = AutoModel.from_pretrained(where, dtype="float32", **hub_options(spec))
    model = place(model, resolve_device(device), dtype)
    return model, tokenizer, is_decoder_type(model.config.model_type)


def load_language_model(
    spec: ModelSpec, prepared: Path, *, device: str = "cpu", dtype: str = "float32"
):
    """(model with its LM head, tokenizer, is_masked) for LPBS: a masked LM when the
    architecture has one, else a causal LM; fails if the weights hold no usable head. On
    ``device`` (a ``compute.device`` setting, resolved) with its weights in ``dtype``."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    from biasbench.models.device import place, resolve_device

    where = transformer_location(spec, prepared)
    revision = {"revision": spec.revision} if spec.revision else {}
    model_type = AutoConfig.from_pretrained(where, **revision).model_type
    masked = not is_decoder_type(model_type)
    auto = AutoModelForMaskedLM if masked else AutoModelForCausalLM
    kind = "masked" if masked else "causal"
    try:
        model, info = auto.from_pretrained(
            where, dtype="float32", output_loading_info=True, **hub_options(spec)
        )
    except ValueError as exc:
        raise InputError(f"model {spec.name}: no {kind} LM: {exc}") from exc
    if info["missing_keys"]:  # a randomly initialised head would give meaningless scores
        missing = sorted(info["missing_keys"])[:3]
        raise InputError(f"model {spec.name}: the weights hold no {kind} LM head ({missing} ...)")
    model = place(model, resolve_device(device), dtype)
    tokenizer = AutoTokenizer.from_pretrained(where, **revision)
    if not masked:
        checked_output_head(model, tokenizer, prepared, dtype)
    return model, tokenizer, masked


#: beside a prepared causal LM: that :func:`check_output_head` passed on it (the sha256 of its
#: provenance record, the weights' dtype and the device kind it passed on)
OUTPUT_HEAD_RECORD = "output_head.checked"


def checked_output_head(model, tokenizer, prepared: Path, dtype: str) -> None:
    """:func:`check_output_head` once per prepared model, weights and device: its pass is
    recorded beside the model, and a later job of the same model skips it."""
    from biasbench.models.device import model_device

    provenance = Path(prepared) / PROVENANCE
    if not provenance.is_file():  # a model loaded from elsewhere (a benchmark): checked
        check_output_head(model, tokenizer)
        return
    key = f"{sha256_of(provenance)} {dtype} {model_device(model).type}\n"
    record = Path(prepared) / OUTPUT_HEAD_RECORD
    if record.is_file() and record.read_text(encoding="utf-8") == key:
        return
    check_output_head(model, tokenizer)
    with atomic_path(record) as tmp:
        tmp.write_text(key, encoding="utf-8")


def is_decoder_type(model_type: str) -> bool:
    """Causal LMs (GPT-2, OPT, BLOOM, Llama, Gemma) vs encoders (BERT, RoBERTa, MiniLM)."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    if model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return False
    return model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES or model_type.endswith("_text")


#: the classes of a transformer's weights that carry a language-model head
LM_HEAD_SUFFIXES = ("ForMaskedLM", "ForCausalLM", "LMHeadModel", "ForPreTraining")


def lm_head_of(model_config: dict) -> bool | None:
    """Whether a transformer's config.json describes weights with a language-model head: the
    classes its ``architectures`` name, else a decoder's ``model_type`` (a causal LM, its head
    tied to its input embeddings); None where it cannot tell (an encoder saved without its
    architectures)."""
    architectures = tuple(model_config.get("architectures") or ())
    if architectures:
        return any(a.endswith(LM_HEAD_SUFFIXES) for a in architectures)
    return True if is_decoder_type(str(model_config.get("model_type", ""))) else None


def is_language_model(spec: ModelSpec) -> bool:
    """Whether a model is known before any job to assign probabilities to text: a GGUF file
    (a causal LM), an encoder given a masked-LM head here, a ``path:`` directory whose
    config.json says it has a language-model head (:func:`lm_head_of`). A hub id or a
    package's directory: not known before its files are fetched, so False."""
    if spec.scheme in ("gguf-pkg", "gguf-asm", "mlm-head"):
        return True
    if spec.scheme != "path":
        return False
    return bool(lm_head_of(json.loads((Path(spec.location) / "config.json").read_text())))


def tokenizer_vocabulary_test(tokenizer) -> Callable[[str], bool]:
    """Is a word one token of the model's vocabulary, as Husse & Spitz reduce word sets?
    (Tokenised alone, without special tokens; a multi-word stimulus never is.)"""

    def in_vocabulary(word: str) -> bool:
        return " " not in word and len(tokenizer(word, add_special_tokens=False)["input_ids"]) == 1

    return in_vocabulary


def stimulus_normaliser(spec: ModelSpec, tokenizer=None) -> Callable[[str], str]:
    """What a model makes of a word before it sees it: lowercased for a lowercase static
    vocabulary, the fast tokenizer's own normaliser for a transformer (BERT uncased: lowercase
    and strip accents), and lowercased on top where corpus contexts are matched in any case."""
    if spec.kind == "static":
        return str.lower if spec.lowercase else str
    normalizer = getattr(getattr(tokenizer, "backend_tokenizer", None), "normalizer", None)
    own = normalizer.normalize_str if normalizer is not None else str
    return own


def corpus_normaliser(normalise: Callable[[str], str], case: str) -> Callable[[str], str]:
    """Under the ``any`` case policy a corpus gives ``man`` and ``Man`` the same contexts."""
    return (lambda w: normalise(w).lower()) if case == "any" else normalise
