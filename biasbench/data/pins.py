"""Every input is pinned, and checked when a job reads it.

Two kinds of files come from outside the repository: pinned upstream files (the manifest
``resources/external.yaml``, fetched to ``results/external/``) and files inside installed
packages (``pkg:`` corpora and data sets, packaged model weights), whose digests
``resources/package_files.yaml`` records. Every job checks the digest of each such input
before it reads it, not only when it was fetched: a file edited or damaged since is an error
naming it, the digest it should have and the one it has, and what to do.

``scripts/pin_package_files.py`` writes the package pins of the default configuration (after
a deliberate package update; see docs/environment.md).
"""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path

import yaml

from biasbench.errors import InputError
from biasbench.io import content_digests, sha256_of
from biasbench.paths import EXTERNAL

#: the workflow's resources: those of the directory a job runs in, else the repository's
RESOURCES = (
    Path("resources").resolve()
    if Path("resources/package_files.yaml").is_file()
    else Path(__file__).resolve().parents[2] / "resources"
)
PACKAGE_PINS = RESOURCES / "package_files.yaml"
EXTERNAL_DIR = Path(EXTERNAL).parent


@cache
def package_pins() -> dict[str, str]:
    """``<package>/<path inside it>`` -> sha256."""
    with open(PACKAGE_PINS, encoding="utf-8") as fh:
        return dict((yaml.safe_load(fh) or {}).get("files") or {})


@cache
def package_root(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def inside_package(path: str | os.PathLike, root: Path, named: str) -> Path:
    """``path`` resolved (``..`` and symlinks followed), refused outside the package ``root``:
    only a file inside its package is pinned, one outside was read unverified."""
    resolved = Path(path).resolve()
    if not resolved.is_relative_to(root.resolve()):
        raise InputError(
            f"{named} resolves to {resolved}, outside its package {root}: only a file inside "
            f"the package is pinned (resources/{PACKAGE_PINS.name}) and checked when read"
        )
    return resolved


def package_key(path: str | os.PathLike) -> str | None:
    """``<package>/<path inside it>`` of a file inside one of the pinned packages. A path into
    a package that resolves outside it (a symlink) is refused: no pin applies there."""
    resolved = Path(path).resolve()
    for package in sorted({k.partition("/")[0] for k in package_pins()}):
        root = package_root(package)
        if root is None:
            continue
        if resolved.is_relative_to(root):
            return f"{package}/{resolved.relative_to(root).as_posix()}"
        if Path(path).absolute().is_relative_to(root):  # named inside, lies outside: refused
            inside_package(path, root, str(path))
    return None


@cache
def external_pins() -> dict[str, str]:
    """External file id -> the sha256 of the file as it lies in ``results/external/``."""
    from biasbench.data.external import load_manifest

    manifest = load_manifest(RESOURCES / "external.yaml")
    return {k: e.member_sha256 or e.sha256 for k, e in manifest.items()}


def expected_digest(path: str | os.PathLike) -> tuple[str, str] | None:
    """(sha256, what to do on a mismatch) of a pinned file; None for any other file."""
    if Path(path).parent.parts[-2:] == EXTERNAL_DIR.parts:
        digest = external_pins().get(Path(path).name)
        if digest is not None:
            return digest, f"delete {path} and rerun (the workflow fetches it again)"
    key = package_key(path)
    if key is None:
        return None
    if key not in package_pins():
        raise InputError(
            f"{path}: a package file that {PACKAGE_PINS.name} does not pin ({key}); pin it with "
            "scripts/pin_package_files.py after checking the file"
        )
    return package_pins()[key], (
        f"reinstall its package (make install), or after a deliberate update pin it again "
        f"with scripts/pin_package_files.py ({key} in resources/{PACKAGE_PINS.name})"
    )


def verify_inputs(paths) -> None:
    """Check every pinned file among ``paths`` (a job's inputs) against its digest."""
    for path in paths:
        if not Path(path).is_file():
            continue
        pinned = expected_digest(path)
        if pinned is None:
            continue
        expected, fix = pinned
        found = sha256_of(path)
        if found != expected:
            raise InputError(
                f"{path}: sha256 {found}, but it is pinned at {expected}: the file changed "
                f"after it was fetched or installed; {fix}"
            )


def package_of(path: str | os.PathLike) -> str | None:
    """The top-level package whose directory holds ``path`` (a child of site-packages)."""
    for parent in Path(path).resolve().parents:
        if parent.parent.name in ("site-packages", "dist-packages"):
            return parent.name if package_root(parent.name) == parent else None
    return None


def pins_of(paths) -> dict[str, str]:
    """``<package>/<path inside it>`` -> sha256 of each of ``paths`` inside a package."""
    pins = {}
    for path in paths:
        package = package_of(path)
        if package is not None:
            inside = Path(path).resolve().relative_to(package_root(package)).as_posix()
            pins[f"{package}/{inside}"] = sha256_of(path)
    return dict(sorted(pins.items()))


def own_file_digests(paths) -> dict[str, str]:
    """File -> sha256 of the inputs that are the user's own files (word sets, templates, word
    lists, published values, local corpora and data-set files): every input but the workflow's
    outputs (``results/``: rebuilt by it, or fetched and pinned) and installed packages' files
    (pinned, checked whenever read). A param of every job that reads one: Snakemake reruns a
    job whose params changed, so a file edited with its modification time kept (``cp -p``,
    ``rsync -a``, ``touch -r``), which its mtime trigger cannot see, reruns exactly the jobs
    that read it, and through their new outputs everything after them. A missing file is left
    to Snakemake, which names it as a missing input."""
    own = [
        str(p)
        for p in paths
        if not Path(p).is_relative_to("results") and package_key(p) is None and Path(p).is_file()
    ]
    return content_digests(own)
