"""The cache of embeddings files by signature: a model loaded once per (model, source), only
the tests whose contexts (or model, settings, code) changed encoded again, damaged entries
encoded again instead of used."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasbench.data.contexts import fill
from biasbench.errors import InputError
from biasbench.io import write_tsv
from biasbench.models import embedding_cache as cache_module
from biasbench.models import extract, load
from biasbench.models.embedding_cache import ContextsOfTest, copy_entry, embed_tests
from biasbench.models.prepare import write_provenance
from biasbench.models.specs import ModelSpec

from .tiny_models import tiny_bert

SETTINGS = {"kind": "transformer", "source": "path:tiny"}
EXTRACTION = {"max_tokens": 8192, "max_batch": 256, "max_length": 64}


def contexts(rows):
    """A contexts table: (role, stimulus, sentence prefix, suffix) per row."""
    out = []
    for i, (role, stimulus, prefix, suffix) in enumerate(rows):
        sentence, start, end = fill(prefix, suffix, stimulus)
        out.append((i, role, stimulus, sentence, start, end, "t"))
    return pd.DataFrame(
        out, columns=["context_id", "role", "stimulus", "sentence", "start", "end", "provenance"]
    )


TABLES = {
    ("T1", "names"): [("X", "john", "This is ", "."), ("Y", "amy", "That is ", ".")],
    ("T1", "terms"): [("X", "person", "This is a ", "."), ("Y", "thing", "Here is the ", ".")],
    ("T2", "names"): [("X", "paul", "", " is here."), ("Y", "joan", "", " is mean.")],
}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """A prepared tiny BERT, two tests' contexts files, and counters of model loads and
    encoder calls (per test, by the stimuli encoded)."""
    weights = tiny_bert(tmp_path / "tiny")
    prepared = tmp_path / "models" / "tiny"
    prepared.mkdir(parents=True)
    write_provenance(prepared, {"name": "tiny", "source": f"path:{weights}"}, weights)
    spec = ModelSpec("tiny", "transformer", "path", str(weights), None, False, -1, "any")
    tests = {}
    for (test, descriptor), rows in TABLES.items():
        path = tmp_path / "contexts" / test / f"{descriptor}.tsv"
        write_tsv(path, contexts(rows))
        files = tests.setdefault(test, {})
        files[descriptor] = str(path)
    calls = {"load": 0, "encode": []}
    real_load, real_encode = load.load_transformer, extract.encode_transformer

    def counted_load(*args, **kwargs):
        calls["load"] += 1
        return real_load(*args, **kwargs)

    def counted_encode(model, tokenizer, frame, **kwargs):
        calls["encode"].append(sorted(frame["stimulus"]))
        return real_encode(model, tokenizer, frame, progress=False, **kwargs)

    monkeypatch.setattr(load, "load_transformer", counted_load)
    monkeypatch.setattr(extract, "encode_transformer", counted_encode)
    cache = tmp_path / "cache"

    def run(out: str, **changes):
        """Every test through the cache, copied to ``out``: (the calls, test -> signature)."""
        calls["load"], calls["encode"] = 0, []
        entries = embed_tests(
            spec,
            SETTINGS,
            "templates",
            [ContextsOfTest(t, files) for t, files in tests.items()],
            prepared / "biasbench_model.json",
            changes.get("extraction", EXTRACTION),
            cache,
            log=lambda line: None,
        )
        for test, (_sha, entry) in entries.items():
            copy_entry(entry, tmp_path / out / f"{test}.h5")
        return dict(calls), {t: sha for t, (sha, _entry) in entries.items()}

    return run, tests, cache, tmp_path


def arrays_of(path: Path, descriptor: str) -> dict[str, np.ndarray]:
    return extract.read_embeddings(path, descriptor)[0]


def test_a_second_run_loads_no_model_and_encodes_nothing(setup):
    run, _tests, _cache, tmp = setup
    calls, first = run("a")
    # one load, one pass over the sentences of both tests
    both = ["amy", "joan", "john", "paul", "person", "thing"]
    assert calls["load"] == 1 and calls["encode"] == [both]
    calls, second = run("b")
    assert calls == {"load": 0, "encode": []} and second == first
    for test in ("T1", "T2"):
        assert (tmp / "a" / f"{test}.h5").read_bytes() == (tmp / "b" / f"{test}.h5").read_bytes()
    arrays, attrs, _ = extract.read_embeddings(tmp / "b" / "T1.h5", "terms")
    assert attrs["test"] == "T1" and attrs["context_source"] == "templates"
    assert attrs["single_token_stimuli"] and arrays["valid"].all()


def test_changed_contexts_encode_only_their_test(setup):
    run, tests, _cache, tmp = setup
    _calls, first = run("a")
    path = Path(tests["T2"]["names"])
    write_tsv(path, contexts([("X", "paul", "", " is there."), ("Y", "joan", "", " is mean.")]))
    calls, second = run("b")
    assert calls["load"] == 1 and calls["encode"] == [["joan", "paul"]]  # T2 alone
    assert second["T1"] == first["T1"] and second["T2"] != first["T2"]
    for descriptor in ("names", "terms"):  # T1's arrays: the very bytes of the first run
        before, after = (
            arrays_of(tmp / "a/T1.h5", descriptor),
            arrays_of(tmp / "b/T1.h5", descriptor),
        )
        assert before.keys() == after.keys()
        assert all(before[k].tobytes() == after[k].tobytes() for k in before)
    assert not np.array_equal(
        arrays_of(tmp / "a/T2.h5", "names")["sent/mean"],
        arrays_of(tmp / "b/T2.h5", "names")["sent/mean"],
    )
    # back to the first contexts: T2's first entry is still there, nothing is encoded
    write_tsv(path, contexts(TABLES[("T2", "names")]))
    calls, third = run("c")
    assert calls == {"load": 0, "encode": []} and third == first


def test_other_settings_are_another_signature(setup):
    run, _tests, _cache, _tmp = setup
    _calls, first = run("a")
    calls, second = run("b", extraction=EXTRACTION | {"max_batch": 1})
    assert len(calls["encode"]) == 1 and not set(first.values()) & set(second.values())


def test_a_test_encoded_alone_is_the_bytes_it_had_encoded_with_the_others(setup):
    """A resumed run encodes only the tests whose entries are missing: each must come out as
    it would have among all of them, or the same config would give other bytes."""
    run, _tests, cache, tmp = setup
    _calls, first = run("a")
    for sha in (first["T1"],):  # T1's entry lost: the next run encodes T1 alone
        for path in cache.glob(f"{sha}.*"):
            path.unlink()
    calls, second = run("b")
    assert calls["encode"] == [["amy", "john", "person", "thing"]] and second == first
    assert (tmp / "a" / "T1.h5").read_bytes() == (tmp / "b" / "T1.h5").read_bytes()


@pytest.mark.parametrize("damaged", ["entry", "seal", "no seal"])
def test_a_damaged_cache_entry_is_encoded_again_not_used(setup, damaged):
    run, _tests, cache, tmp = setup
    _calls, first = run("a")
    entry = cache / f"{first['T1']}.h5"
    seal = entry.with_suffix(".json")
    if damaged == "entry":  # bytes overwritten in the middle (an array's, or the file's own)
        data = bytearray(entry.read_bytes())
        data[len(data) // 2 : len(data) // 2 + 8] = b"\xff" * 8
        entry.write_bytes(bytes(data))
    elif damaged == "seal":
        seal.write_text(seal.read_text().replace('"sha256": "', '"sha256": "0'))
    else:
        seal.unlink()
    calls, second = run("b")
    assert calls["load"] == 1 and len(calls["encode"]) == 1  # T1 again, T2 from the cache
    assert second == first
    assert (tmp / "a/T1.h5").read_bytes() != b"" and seal.is_file()
    for descriptor in ("names", "terms"):
        before, after = (
            arrays_of(tmp / "a/T1.h5", descriptor),
            arrays_of(tmp / "b/T1.h5", descriptor),
        )
        assert all(np.array_equal(before[k], after[k]) for k in before)
    calls, _ = run("c")  # repaired
    assert calls == {"load": 0, "encode": []}


@pytest.mark.parametrize("replaced", ["entry", "seal"])
def test_a_folder_in_place_of_a_cache_entry_is_refused_naming_it(setup, replaced):
    """A folder at an entry's path was taken for a damaged entry, encoded again, and the
    rename onto it failed with a bare "Is a directory": it is refused, named, with the fix."""
    run, _tests, cache, _tmp = setup
    _calls, first = run("a")
    entry = cache / f"{first['T1']}.h5"
    folder = entry if replaced == "entry" else entry.with_suffix(".json")
    folder.unlink()
    folder.mkdir()
    with pytest.raises(InputError, match=f"^{folder}: a folder, where the workflow writes a file"):
        run("b")


def test_a_copy_that_does_not_match_the_seal_is_refused(setup, monkeypatch):
    run, _tests, cache, tmp = setup
    _calls, first = run("a")
    entry = cache / f"{first['T1']}.h5"

    def damaging_copy(src, dst):
        Path(dst).write_bytes(Path(src).read_bytes()[:-1])

    monkeypatch.setattr(cache_module.shutil, "copyfile", damaging_copy)
    with pytest.raises(InputError, match="is not the sealed"):
        copy_entry(entry, tmp / "out.h5")
    assert not (tmp / "out.h5").exists()


def test_the_stimuli_check_runs_before_any_encoding(setup):
    """Stimuli the model cannot tell apart (the tokenizer lowercases) fail the job before the
    first test is encoded, as the per-test job did."""
    run, tests, _cache, _tmp = setup
    write_tsv(
        Path(tests["T2"]["names"]),
        contexts([("X", "paul", "", " is here."), ("Y", "Paul", "", " is mean.")]),
    )
    with pytest.raises(InputError, match="T2/names on tiny"):
        run("a")
