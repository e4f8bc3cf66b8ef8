"""From a configuration's fields to files and jobs: path patterns resolved (inside their
package or the manifest), corpora, the files a model's preparation reads, a model's (test,
descriptor) pairs. Every error names the config field."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

from biasbench.data.pins import external_pins, inside_package, package_root
from biasbench.errors import InputError
from biasbench.models.specs import ModelSpec
from biasbench.paths import EXTERNAL

#: model sources that are the user's own files, identified by content (Plan.source_digests)
LOCAL_SCHEMES = ("path", "w2v-path")
#: model sources prepared from no file here (a hub download, another configured model, ELMo)
FILELESS_SCHEMES = ("hf", "mlm-head", "random", "quantized", "elmo")


def model_sources(specs: dict[str, ModelSpec]) -> dict[str, list[str]]:
    """Model -> the files preparing it reads, each existing: a source that cannot be prepared
    (a package not installed, a file gone, an ``hf:`` model neither cached nor reachable)
    stops planning naming the field, in a finished directory as in a fresh one (where the
    rule's input function failed instead, Snakemake dropped the preparation and the run
    finished on the old prepared model). An ``hf:`` model without ``revision`` is warned
    about, before its hub check: the hub's current main is read (its commit is recorded either
    way)."""
    import sys

    from biasbench.models.prepare import hub_problem, source_files

    out = {}
    for name, spec in specs.items():
        field = f"config: models.{name}.source {spec.scheme}:{spec.location}"
        # first: shown when the hub check below stops planning too (docs/models.md)
        if spec.scheme == "hf" and not spec.revision:
            print(
                f"warning: models.{name}.revision is not set: {spec.location}'s current main "
                "is read (the commit resolved is recorded in its provenance); pin "
                "`revision: <commit>` for a run that gives the same numbers next year",
                file=sys.stderr,
            )
        # prepared already (the working directory's): the hub is not needed again
        prepared = Path("results") / "models" / name / "biasbench_model.json"
        if spec.scheme == "hf" and not prepared.is_file():
            problem = hub_problem(spec)
            if problem:
                raise InputError(
                    f"{field}: {problem}. Offline, save it where the hub is reachable "
                    f"(AutoModelFor...from_pretrained({spec.location!r}).save_pretrained(DIR) "
                    "and its tokenizer's save_pretrained(DIR), or `hf download "
                    f"{spec.location} --local-dir DIR`), copy DIR here and configure "
                    "`source: path:DIR` (docs/models.md)"
                )
        try:
            files = source_files(spec)
        except (InputError, ImportError) as exc:  # ImportError: a gguf-asm module
            raise InputError(f"{field}: {exc}") from exc
        missing = [f for f in files if not Path(f).is_file()]
        if missing:
            raise InputError(f"{field}: no file {missing[0]}")
        if not files and spec.scheme not in FILELESS_SCHEMES:
            raise InputError(f"{field}: no model files there")
        out[name] = files
    return out


def corpus_parts(name: str, corpora: dict[str, dict]) -> list[tuple[dict, list[str]]]:
    """(reader config, files) of a corpus, or of each member of a pool, in order."""
    cfg = corpora[name]
    if "pool" not in cfg:
        return [(cfg, resolve_corpus_files(name, cfg))]
    parts = []
    for member in cfg["pool"]:
        if member not in corpora or "pool" in corpora[member]:
            raise InputError(
                f"config: corpora.{name}.pool names {member!r}: not a corpus (pools do not nest)"
            )
        parts.append((corpora[member], resolve_corpus_files(member, corpora[member])))
    return parts


def resolve_corpus_files(name: str, cfg: dict[str, Any]) -> list[str]:
    """Absolute paths of a corpus' files."""
    return resolve_files(cfg["files"], f"corpora.{name}.files")


def resolve_files(patterns: list[str], field: str, manifest: dict | None = None) -> list[str]:
    """Paths of ``pkg:<package>/<glob>`` (inside an installed package), ``external:<id>``
    (a pinned file of the manifest, fetched by the workflow to results/external/) or a path
    glob; ``field`` names the config entry in errors."""
    from biasbench.data.external import manifest_entry

    paths: list[str] = []
    for given in patterns:
        if given.startswith("external:"):
            file_id = given.partition(":")[2]
            # an id of the manifest, never a path: ``..``, absolute or a file placed there
            known = external_pins() if manifest is None else manifest
            manifest_entry(known, file_id, f"config: {field}: {given}")
            paths.append(EXTERNAL.format(file_id=file_id))
            continue
        if given.startswith("pkg:"):
            package, _, pattern = given[4:].partition("/")
            root = package_root(package)
            if root is None:
                raise InputError(f"config: {field}: package {package!r} is not installed")
            found = [
                inside_package(p, root, f"config: {field}: {given}")
                for p in glob.glob(str(root / pattern))
            ]
        else:  # as given, normalised: relative to the working directory where written so
            # (an absolute path of the checkout would rerun its jobs when it moves)
            root, pattern = Path(), given
            found = [Path(os.path.normpath(p)) for p in glob.glob(pattern)]
        if not found:
            raise InputError(f"config: {field}: nothing matches {pattern!r} under {root}")
        paths += sorted(map(str, found))
    return paths


def model_jobs(
    model: str, wanted: list[str] | str, available: dict[str, list[str]], field: str = ""
) -> list[tuple[str, str]]:
    """(test, descriptor) pairs of a model: ``all``, or entries that are a test (all its
    descriptors) or ``test/descriptor`` (e.g. a vocabulary that covers only one of them);
    ``field`` names the config entry in errors (``models.<model>.tests``)."""
    field = field or f"models.{model}.tests"
    pairs = []
    for entry in available if wanted == "all" else wanted:
        test, _, only = entry.partition("/")
        if test not in available:
            raise InputError(f"config: {field} names {entry!r}, not in 'tests'")
        if only and only not in available[test]:
            raise InputError(
                f"config: {field} names {entry!r}; {test} has descriptors {available[test]}"
            )
        pairs += [(test, d) for d in available[test] if not only or d == only]
    return pairs
