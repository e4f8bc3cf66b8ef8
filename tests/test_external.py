import hashlib

import pytest

from biasbench.data.external import ExternalFile, fetch, load_manifest
from biasbench.errors import InputError

from .conftest import ROOT


def _entry(data: bytes) -> ExternalFile:
    url = "https://raw.githubusercontent.com/owner/repo/abc123/data/file.json"
    return ExternalFile("f", url, hashlib.sha256(data).hexdigest(), "MIT")


def test_fetch_from_mirror_checks_sha(tmp_path):
    data = b'{"a": 1}'
    mirror = tmp_path / "mirror"
    (mirror / "owner/repo/abc123/data").mkdir(parents=True)
    (mirror / "owner/repo/abc123/data/file.json").write_bytes(data)
    out = fetch(_entry(data), tmp_path / "out" / "f", mirror=str(mirror))
    assert out.read_bytes() == data

    bad = ExternalFile("f", _entry(data).url, "0" * 64, "MIT")
    with pytest.raises(InputError, match="does not match the manifest"):
        fetch(bad, tmp_path / "out" / "g", mirror=str(mirror))
    assert not (tmp_path / "out" / "g").exists()
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["f"]  # no temp files left


def test_missing_mirror_file(tmp_path):
    with pytest.raises(InputError, match="no file owner/repo/abc123/data/file.json"):
        fetch(_entry(b"x"), tmp_path / "f", mirror=str(tmp_path))


def test_shipped_manifest_is_pinned():
    manifest = load_manifest(ROOT / "resources" / "external.yaml")
    for entry in manifest.values():
        assert len(entry.sha256) == 64
        commit = entry.relpath.split("/")[2]
        assert len(commit) == 40, entry.url  # a full commit hash, never a branch
