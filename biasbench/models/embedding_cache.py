"""Embeddings files through a content-addressed cache, one model load per model.

A test's embeddings file is determined by the bytes of its contexts files, the model (its
provenance record: source, revision, the sha256 of every file it is loaded from), the model's
settings, the extraction settings, the source and test, and the code that writes it (the
source files of the modules below and the versions of the packages that compute it). The
sha256 over all of them, the test's *signature*, names the finished file in the cache
directory: ``<sha>.h5``, sealed by ``<sha>.json`` (the sha256 of the file's bytes and what
the signature was made of, itself a sealed JSON file of :mod:`biasbench.io`).

:func:`embed_tests` makes every test of a (model, source) cached: tests whose signature is
cached cost a checksum; the others are encoded with the model loaded once (a job's, for all
its sources: :func:`job_encoder`), and only if some test misses. A damaged entry (a file
that does not match its seal, a seal that does not match its checksum line) is encoded
again, never used. :func:`copy_entry` copies an entry to the declared output, verifying the
bytes it copies.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from biasbench import __version__
from biasbench.data.contexts import check_contexts
from biasbench.data.wordsets import check_distinct_after
from biasbench.errors import InputError
from biasbench.io import (
    atomic_path,
    log_cpu,
    read_json,
    read_sealed,
    read_tsv,
    refuse_folder,
    sha256_of,
    write_json,
)
from biasbench.models.extract import split_rows, write_embeddings
from biasbench.models.specs import BUILTIN_SOURCES, ModelSpec
from biasbench.test_cache import package_versions

#: the code an embeddings file depends on (encoding, loading, the checks a cached test skips):
#: editing any of it encodes every test again
CODE_MODULES = (
    "biasbench.models.embedding_cache",
    "biasbench.models.extract",
    "biasbench.models.load",
    "biasbench.models.device",
    "biasbench.models.weights",
    "biasbench.encodings",
    "biasbench.data.contexts",
    "biasbench.data.wordsets",
)
#: the packages that compute or write the numbers
PACKAGES = ("torch", "transformers", "tokenizers", "numpy", "h5py")


@dataclass(frozen=True)
class ContextsOfTest:
    """One embeddings file's contexts: a test's descriptors, each with its contexts file."""

    test: str
    files: Mapping[str, str]  # descriptor -> contexts TSV, in the file's group order


def code_version() -> str:
    """sha256 over the package version, the source of :data:`CODE_MODULES` and the versions
    of :data:`PACKAGES` (none imported: a cached run never imports torch)."""
    digest = hashlib.sha256(f"biasbench {__version__}\n".encode())
    for module in CODE_MODULES:
        origin = importlib.util.find_spec(module).origin
        digest.update(f"{module} {sha256_of(origin)}\n".encode())
    digest.update(package_versions(PACKAGES).encode())
    return digest.hexdigest()


def signature_record(
    spec: ModelSpec,
    settings: Mapping[str, Any],
    provenance: str,
    source: str,
    test: ContextsOfTest,
    extraction: Mapping[str, Any],
    code: str,
    dtype: str = "float32",
) -> dict[str, Any]:
    """What a test's embeddings file is computed from (``settings``: the model's config
    entry as the rule hands it; ``provenance``: the text of its provenance record;
    ``dtype``: the precision of the weights, which changes the numbers; the device does not
    enter, as the batching does not)."""
    return {
        "model": spec.name,
        "settings": {k: settings[k] for k in sorted(settings)},
        "provenance_sha256": hashlib.sha256(provenance.encode()).hexdigest(),
        "source": source,
        "test": test.test,
        "contexts": [[d, sha256_of(path)] for d, path in test.files.items()],
        "extraction": {k: extraction[k] for k in sorted(extraction)},
        "code": code,
        "dtype": dtype,
    }


def signature(record: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def entry_path(cache: str | os.PathLike, sha: str) -> Path:
    return Path(cache) / f"{sha}.h5"


def _seal_path(entry: Path) -> Path:
    return entry.with_suffix(".json")


def cached_entry(
    cache: str | os.PathLike, sha: str, log: Callable[[str], None] = print
) -> Path | None:
    """The cache entry of a signature when it is there and whole; None otherwise (a damaged
    one is named in ``log`` and left to be overwritten)."""
    entry = entry_path(cache, sha)
    seal = _seal_path(entry)
    for path in (entry, seal):  # a folder is no damaged entry: encoding again cannot replace it
        refuse_folder(path)
    if not entry.is_file() and not seal.is_file():
        return None
    try:
        record = read_json(seal)
        found = sha256_of(entry)
    except (InputError, OSError, ValueError) as exc:
        log(f"cache entry {entry} is unusable ({exc}): encoding it again")
        return None
    if record.get("signature") != sha or record.get("sha256") != found:
        log(
            f"cache entry {entry} does not match its seal {seal} (sha256 {found}, sealed "
            f"{record.get('sha256')}): damaged; encoding it again"
        )
        return None
    return entry


def _seal(entry: Path, sha: str, record: Mapping[str, Any]) -> None:
    """Seal an entry once it is written (an entry without its seal is no entry: a job killed
    between the two leaves nothing that is used)."""
    write_json(
        _seal_path(entry),
        {"signature": sha, "sha256": sha256_of(entry), "computed_from": dict(record)},
        indent=1,
        sort_keys=True,
    )


def copy_entry(entry: str | os.PathLike, output: str | os.PathLike) -> None:
    """Copy a cache entry to a declared output, atomically; the copy must hold the bytes the
    entry's seal names (else an InputError that names the entry)."""
    expected = read_json(_seal_path(Path(entry)))["sha256"]
    with atomic_path(output) as tmp:
        shutil.copyfile(entry, tmp)
        found = sha256_of(tmp)
        if found != expected:
            raise InputError(
                f"{entry}: the copy's sha256 {found} is not the sealed {expected}: the cache "
                f"entry changed while it was copied; delete it and rerun"
            )


def read_contexts(test: ContextsOfTest, source: str) -> dict[str, pd.DataFrame]:
    """Each descriptor's contexts, checked (a corpus may hold none of a test's stimuli)."""
    frames = {}
    for descriptor, path in test.files.items():
        frames[descriptor] = read_tsv(path)
        check_contexts(frames[descriptor], path, allow_empty=source not in BUILTIN_SOURCES)
    return frames


class Encoder:
    """A loaded model: the stimuli check and the encodings of one test's contexts."""

    def __init__(
        self,
        spec: ModelSpec,
        prepared: Path,
        threads: int,
        extraction: Mapping,
        device: str = "cpu",
        dtype: str = "float32",
    ):
        from biasbench.models.load import load_static, load_transformer, loaded_revision

        self.spec, self.extraction = spec, dict(extraction)
        if spec.kind == "static":
            self.vectors, self.tokenizer = load_static(prepared, spec), None
            self.vocabulary = prepared / "vocab.txt"
            self.revision, self.is_decoder = None, False
            self.compute: dict[str, str] = {}
        else:
            from biasbench.models.device import compute_record, resolve_device, set_threads

            resolved = resolve_device(device)
            set_threads(resolved, threads)
            self.model, self.tokenizer, self.is_decoder = load_transformer(
                spec, prepared, device=resolved, dtype=dtype
            )
            self.revision = loaded_revision(spec, self.model)
            self.compute = compute_record(self.model)

    def check_stimuli(self, frames: Mapping[str, pd.DataFrame], source: str, test: str) -> None:
        """Stimuli the model cannot tell apart fail the job before any encoding."""
        from biasbench.models.load import corpus_normaliser, stimulus_normaliser

        normalise = stimulus_normaliser(self.spec, self.tokenizer)
        if self.spec.kind == "static":  # one reading: `man man` is `man`'s vector
            normalise = self.vectors.reading
        if source not in BUILTIN_SOURCES:
            normalise = corpus_normaliser(normalise, self.spec.case)
        for descriptor, frame in frames.items():
            sets = {
                r: list(dict.fromkeys(g["stimulus"])) for r, g in frame.groupby("role", sort=False)
            }
            where = f"{test}/{descriptor} on {self.spec.name} ({source})"
            check_distinct_after(sets, normalise, where)
        if self.spec.kind == "static":
            self.check_vocabulary(frames, source, test)

    def check_vocabulary(self, frames: Mapping[str, pd.DataFrame], source: str, test: str) -> None:
        """A test none of whose stimuli the vectors hold is a vocabulary read wrongly (or a
        case setting that does not fit it), not a test of bias: an error, never a card of "n/a"
        rows; a test some of whose stimuli are missing keeps its rows that count them."""
        stimuli = {str(s) for frame in frames.values() for s in frame["stimulus"]}
        if stimuli and all(self.vectors.lookup(s) is None for s in stimuli):
            raise InputError(
                f"{test} on {self.spec.name} ({source}): 0 of {len(stimuli)} stimuli found in a "
                f"vocabulary of {len(self.vectors.words)} words ({self.vocabulary}, read from "
                f"{self.spec.scheme}:{self.spec.location}; lowercase: {self.spec.lowercase})"
            )

    def encode(self, contexts: Mapping[str, pd.DataFrame]) -> dict[str, tuple[dict, dict]]:
        """Test -> (encodings, the attributes the loaded model adds) of each test's contexts.
        A transformer runs once over the sentences of all the tests: a sentence several tests
        share (a template, a corpus sentence with stimuli of several tests) is encoded once,
        to the same bytes as a test encoded alone (:func:`extract.batches_by_length`)."""
        from biasbench.models import extract

        if self.spec.kind == "static":
            out = {}
            for test, frame in contexts.items():
                loaded: dict = {"is_decoder": False}
                notes = extract.static_notes(self.vectors, frame)
                if notes:  # only then: the attributes of vectors without any stay as they were
                    loaded["stimulus_notes"] = json.dumps(notes, ensure_ascii=False, sort_keys=True)
                out[test] = (extract.encode_static(self.vectors, frame), loaded)
            return out
        from biasbench.models.load import tokenizer_vocabulary_test

        arrays = extract.encode_transformer(
            self.model,
            self.tokenizer,
            pd.concat(contexts.values(), ignore_index=True),
            layer=self.spec.layer,
            name=self.spec.name,
            **self.extraction,
        )
        # the stimuli the tokenizer keeps as one token (CEAT's reduced sets): recorded here so
        # that scoring never loads the tokenizer (importing transformers costs ~6 s per job)
        in_vocabulary = tokenizer_vocabulary_test(self.tokenizer)
        out = {}
        for test, (frame, own) in extract.split_rows(contexts, arrays).items():
            single = sorted(s for s in frame["stimulus"].unique() if in_vocabulary(s))
            out[test] = (
                own,
                {"is_decoder": self.is_decoder, "single_token_stimuli": json.dumps(single)},
            )
        return out


def embed_tests(
    spec: ModelSpec,
    settings: Mapping[str, Any],
    source: str,
    tests: Sequence[ContextsOfTest],
    model_file: str | os.PathLike,
    extraction: Mapping[str, Any],
    cache: str | os.PathLike,
    threads: int = 1,
    log: Callable[[str], None] = print,
    device: str = "cpu",
    dtype: str = "float32",
    encoder: Callable[[], Encoder] | None = None,
) -> dict[str, tuple[str, Path]]:
    """Test -> (signature, its verified cache entry), for every test of a model on a source.
    ``encoder``: where the loaded model comes from (a job's, loaded once for all its
    sources), else it is loaded here.

    Every test's contexts are checked; the tests not cached are encoded together after the
    model is loaded (once) and every one of them has passed the stimuli check, as one job
    did before.
    A cached test passed the same checks when it was encoded: its signature covers its
    contexts, the model and the code of the checks."""
    frames = {t.test: read_contexts(t, source) for t in tests}
    provenance_text = read_sealed(model_file)
    provenance = json.loads(provenance_text)
    code = code_version()
    records = {
        t.test: signature_record(
            spec, settings, provenance_text, source, t, extraction, code, dtype
        )
        for t in tests
    }
    shas = {test: signature(record) for test, record in records.items()}
    entries: dict[str, tuple[str, Path]] = {}
    for t in tests:
        entry = cached_entry(cache, shas[t.test], log)
        if entry is not None:
            entries[t.test] = (shas[t.test], entry)
            log(f"{t.test}: cached ({entry})")
    missing = [t for t in tests if t.test not in entries]
    if not missing:
        return entries
    if encoder is None:
        model = Encoder(spec, Path(model_file).parent, threads, extraction, device, dtype)
    else:
        model = encoder()
    for t in missing:
        model.check_stimuli(frames[t.test], source, t.test)
    encoded = model.encode(
        {t.test: pd.concat(frames[t.test].values(), ignore_index=True) for t in missing}
    )
    for t in missing:
        arrays, loaded = encoded[t.test]
        attrs = {
            "model": spec.name,
            "model_source": provenance["source"],
            "weights_sha256": provenance["weights_sha256"],
            "revision": model.revision or spec.revision or provenance.get("package_version") or "",
            "layer": spec.layer,
            "context_source": source,
            "test": t.test,
            **model.compute,
            **loaded,
        }
        sha = shas[t.test]
        entry = entry_path(cache, sha)
        write_embeddings(entry, split_rows(frames[t.test], arrays), attrs)
        _seal(entry, sha, records[t.test])
        entries[t.test] = (sha, entry)
        on = "".join(f"; {k} {v}" for k, v in model.compute.items())
        log(f"{t.test}: encoded ({entry}{on})")
    return {t.test: entries[t.test] for t in tests}


def embed_job_tests(
    job, source: str, tests: Sequence[ContextsOfTest], encoder: Callable[[], Encoder]
) -> dict[str, tuple[str, Path]]:
    """:func:`embed_tests` of one source with a workflow job's model (``encoder``:
    :func:`job_encoder`), settings, cache and threads (rule ``embed``), its progress on the
    job's log."""
    import sys

    return embed_tests(
        ModelSpec.from_config(job.wildcards.model, dict(job.params.spec)),
        dict(job.params.spec),
        source,
        tests,
        job.input.model,
        dict(job.params.extraction),
        job.params.cache[source],
        threads=job.threads,
        log=lambda line: print(line, file=sys.stderr),
        device=job.params.device,
        dtype=job.params.dtype,
        encoder=encoder,
    )


def job_encoder(job) -> Callable[[], Encoder]:
    """A workflow job's model, loaded on its first call and kept for the next (one load for
    every source of the job), the CPU spent so far logged once it is loaded."""
    from functools import cache

    @cache
    def load() -> Encoder:
        spec = ModelSpec.from_config(job.wildcards.model, dict(job.params.spec))
        loaded = Encoder(
            spec,
            Path(job.input.model).parent,
            job.threads,
            dict(job.params.extraction),
            job.params.device,
            job.params.dtype,
        )
        log_cpu("model loaded")
        return loaded

    return load
