"""Every input is pinned and checked when a job reads it: package files against
resources/package_files.yaml, upstream files against resources/external.yaml, model files
against the digests recorded when the model was prepared."""

import hashlib
import json
import os
import sys

import pytest
import yaml

from biasbench.data import pins
from biasbench.errors import InputError
from biasbench.io import write_json
from biasbench.models.weights import check_weights, weights_record

from .conftest import ROOT


@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    """An installed package ``bbfake`` with one data file, pinned in a pins file of its own."""
    root = tmp_path / "site" / "bbfake"
    (root / "data").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    data = root / "data" / "items.tsv"
    data.write_text("sentence\tlabel\nThe nurse smiled.\t1\n")
    pinned = tmp_path / "package_files.yaml"
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    pinned.write_text(yaml.safe_dump({"files": {"bbfake/data/items.tsv": digest}}))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(pins, "PACKAGE_PINS", pinned)
    for cached in (pins.package_pins, pins.package_root):
        cached.cache_clear()
    yield data, digest
    for cached in (pins.package_pins, pins.package_root):
        cached.cache_clear()
    sys.modules.pop("bbfake", None)


def test_a_pinned_package_file_is_checked_when_read(fake_package):
    data, digest = fake_package
    pins.verify_inputs([str(data)])  # as installed: accepted
    original = data.read_bytes()
    for damaged in (original[:20], original.replace(b"1", b"0"), b"\0" * len(original)):
        data.write_bytes(damaged)
        found = hashlib.sha256(damaged).hexdigest()
        with pytest.raises(InputError) as error:
            pins.verify_inputs([str(data)])
        message = str(error.value)
        assert message.startswith(f"{data}: sha256 {found}, but it is pinned at {digest}")
        assert "reinstall its package (make install)" in message


def test_an_unpinned_file_of_a_pinned_package_is_refused(fake_package):
    data, _ = fake_package
    other = data.with_name("extra.tsv")
    other.write_text("x\n")
    with pytest.raises(InputError, match="does not pin .*bbfake/data/extra.tsv"):
        pins.verify_inputs([str(other)])


def test_files_of_the_user_are_not_pinned(tmp_path):
    own = tmp_path / "my_corpus.txt"
    own.write_text("anything\n")
    pins.verify_inputs([str(own)])


def test_only_the_users_own_inputs_are_digested(fake_package, tmp_path, monkeypatch):
    """A job's own files by content: a word set edited with its mtime kept changes its digest;
    the workflow's outputs, pinned package files and missing files (Snakemake names those)
    carry none."""
    package_file, _ = fake_package
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "scores.tsv").write_text("x\n")
    mine = tmp_path / "words.yaml"
    mine.write_text("X: [he]\n")
    inputs = ["results/scores.tsv", str(package_file), "words.yaml", "missing.yaml"]
    before = pins.own_file_digests(inputs)
    assert before == {"words.yaml": hashlib.sha256(b"X: [he]\n").hexdigest()}
    stat = mine.stat()
    mine.write_text("X: [sh]\n")  # the same size, its mtime put back
    os.utime(mine, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    after = pins.own_file_digests(inputs)
    assert after["words.yaml"] == hashlib.sha256(b"X: [sh]\n").hexdigest()


def test_an_upstream_file_edited_after_its_download_is_refused(tmp_path, monkeypatch):
    """sha256 was checked only at download: an edited census file changed DivDist's tables."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "results" / "external" / "garg_census_gender"
    path.parent.mkdir(parents=True)
    path.write_text("Occupation,Female\nnurse,0.9\n")
    expected = pins.external_pins()["garg_census_gender"]
    with pytest.raises(InputError, match=f"pinned at {expected}.*fetches it again"):
        pins.verify_inputs(["results/external/garg_census_gender"])


def test_the_committed_package_pins_are_those_of_the_installed_packages():
    """resources/package_files.yaml is current: every package file the default configuration
    reads is pinned at the digest it has here (an update is a deliberate change)."""
    from biasbench.config import read_schema, validate_config
    from biasbench.plan import make_plan, package_files

    committed = yaml.safe_load((ROOT / "resources/package_files.yaml").read_text())["files"]
    plan = make_plan(validate_config(read_schema(ROOT / "config.yaml")), ROOT)
    assert pins.pins_of(package_files(plan)) == committed


def test_model_files_are_checked_against_their_record(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (model / "model.safetensors").write_bytes(b"weights" * 10)
    record = weights_record(model, skip="biasbench_model.json")
    assert record["files"]["model.safetensors"] == hashlib.sha256(b"weights" * 10).hexdigest()
    write_json(model / "biasbench_model.json", {"name": "m", **record})
    check_weights(model / "biasbench_model.json", model)  # unchanged: accepted
    (model / "model.safetensors").write_bytes(b"weightz" * 10)
    with pytest.raises(
        InputError, match="model.safetensors: sha256 .* when the model was prepared"
    ):
        check_weights(model / "biasbench_model.json", model)
    (model / "model.safetensors").write_bytes(b"weights" * 10)
    (model / "pytorch_model.bin").write_bytes(b"other")
    with pytest.raises(InputError, match=r"files \['pytorch_model.bin'\] were added or removed"):
        check_weights(model / "biasbench_model.json", model)


def test_a_hub_model_is_recorded_and_checked_in_its_snapshot(tmp_path, monkeypatch):
    """hf: weights are those of the snapshot fetched at preparation (at the pinned revision);
    every later load reads the same snapshot from the cache, checked against the record."""
    import huggingface_hub

    from biasbench.config import model_entry
    from biasbench.models.load import transformer_location
    from biasbench.models.prepare import prepare_model
    from biasbench.models.specs import ModelSpec

    from .tiny_models import tiny_bert

    snapshot = tiny_bert(tmp_path / "snapshot")
    calls = []

    def fake_snapshot_download(repo, revision=None, allow_patterns=None, local_files_only=False):
        calls.append((repo, revision, local_files_only))
        return str(snapshot)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    spec = ModelSpec.from_config(
        "hub", model_entry(kind="transformer", source="hf:org/model", revision="abc123")
    )
    prepared = prepare_model(spec, tmp_path / "prepared")
    assert transformer_location(spec, prepared) == str(snapshot)
    assert calls == [("org/model", "abc123", False), ("org/model", "abc123", True)]
    (snapshot / "model.safetensors").write_bytes(b"replaced")
    with pytest.raises(
        InputError, match="model.safetensors: sha256 .* when the model was prepared"
    ):
        transformer_location(spec, prepared)
