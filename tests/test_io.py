"""Outputs and messages of a job: atomic writes, seals checked on reading, errors on the
console, provenance."""

import hashlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.errors import InputError
from biasbench.io import (
    arrays_checksum,
    load_tensors,
    logged_cpu,
    read_json,
    read_npz,
    read_sealed,
    read_tsv,
    save_tensors,
    signature_of,
    write_json,
    write_npz,
    write_sealed,
    write_text,
    write_tsv,
)


def run_script(tmp_path, body):
    script = tmp_path / "job.py"
    script.write_text(
        "from biasbench.io import log_to\n"
        "from biasbench.errors import InputError\n"
        f"log_to({str(tmp_path / 'job.log')!r})\n" + body
    )
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True)


def test_a_bad_input_reaches_the_console_without_a_traceback(tmp_path):
    run = run_script(tmp_path, "raise InputError('config: scoring.ddof: 2 is not one of [0, 1]')\n")
    assert run.returncode == 1
    log = tmp_path / "job.log"
    assert run.stderr == f"biasbench: config: scoring.ddof: 2 is not one of [0, 1] (log: {log})\n"
    assert "Traceback" in (tmp_path / "job.log").read_text()


def test_another_error_names_its_log(tmp_path):
    run = run_script(tmp_path, "print('working')\n1 / 0\n")
    assert run.stdout == "working\n"
    assert run.stderr.startswith("biasbench: ZeroDivisionError: division by zero (traceback in")


def test_a_job_logs_the_cpu_it_used_from_the_kernel(tmp_path):
    """The log's CPU lines (what the cost table and scripts/job_cpu.py read): the start-up
    before the work, the total at exit; a job that burns half a CPU second and waits for a
    child that burns another records at least both, its start-up less."""
    burn = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\n"
    run = run_script(
        tmp_path,
        "import atexit, subprocess, sys\n"
        "from biasbench.io import log_cpu\n"
        "log_cpu('start-up')\n"
        "atexit.register(log_cpu, 'total')\n"
        + burn
        + f"subprocess.run([sys.executable, '-c', {burn!r}], check=True)\n",
    )
    assert run.returncode == 0, run.stderr
    cpu = logged_cpu(tmp_path / "job.log")
    assert set(cpu) == {"start-up", "total"}
    assert cpu["start-up"] < cpu["total"] - 0.9
    assert cpu["total"] >= 1.0


def test_a_log_without_cpu_lines_records_none(tmp_path):
    (tmp_path / "old.log").write_text("model: device cpu, dtype float32\ncpu time unknown\n")
    assert logged_cpu(tmp_path / "old.log") == {}


def test_signature_covers_every_input(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    write_text(a, "one")
    write_text(b, "two")
    base = signature_of([a, b])
    assert len(base) == 12 and base != signature_of([b, a]) != signature_of([a, b], "x")
    write_text(b, "three")
    assert signature_of([a, b]) != base


def test_names_and_hashes_that_look_like_numbers_stay_text(tmp_path):
    """A score file whose one signature is all digits keeps it whole through a round trip
    (read as a number it lost its leading zeros in all.tsv)."""
    rows = pd.DataFrame(
        {"test": ["2024"], "signature": ["008410446983"], "seed": [7], "effect_size": [0.5]}
    )
    write_tsv(tmp_path / "rows.tsv", rows)
    back = read_tsv(tmp_path / "rows.tsv")
    assert back["signature"].tolist() == ["008410446983"] and back["test"].tolist() == ["2024"]
    assert back["seed"].tolist() == [7] and back["effect_size"].tolist() == [0.5]


def test_a_number_column_holding_text_names_the_file_column_and_line(tmp_path):
    path = tmp_path / "scores.tsv"
    write_sealed(path, "model\teffect_size\tp_value\nm\t0.5\t0.01\nm\t0.x5\t0.2\n")
    with pytest.raises(InputError, match=r"scores.tsv: line 3, column effect_size holds '0.x5'"):
        read_tsv(path)
    write_sealed(path, "model\teffect_size\tp_value\nm\t0.5\t\nm\tinf\t0.2\n")
    frame = read_tsv(path)  # empty cells and inf are numbers (NaN, inf)
    assert frame["effect_size"].dtype.kind == "f" and frame["p_value"].isna().sum() == 1


def test_a_sealed_text_ends_with_the_sha256_of_what_precedes_it(tmp_path):
    """Computed by hand: the body's bytes, then '# sha256 ' and their hex digest."""
    path = tmp_path / "rows.tsv"
    write_tsv(path, pd.DataFrame({"a": [1], "b": ["x"]}))
    body = b"a\tb\n1\tx\n"
    assert (
        path.read_bytes() == body + b"# sha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n"
    )


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=1), data=st.data())
def test_any_truncation_or_changed_byte_of_a_sealed_text_is_refused(tmp_path_factory, text, data):
    path = tmp_path_factory.mktemp("seal") / "doc.txt"
    write_sealed(path, text)
    assert read_sealed(path) == (text if text.endswith("\n") else text + "\n")
    raw = path.read_bytes()
    cut = data.draw(st.integers(0, len(raw) - 1))
    path.write_bytes(raw[:cut])
    with pytest.raises(InputError, match="doc.txt: (no checksum line|contents do not match)"):
        read_sealed(path)
    at = data.draw(st.integers(0, len(raw) - 1))
    flipped = bytearray(raw)
    flipped[at] ^= data.draw(st.integers(1, 255))
    path.write_bytes(bytes(flipped))
    with pytest.raises(InputError, match="doc.txt"):
        read_sealed(path)


def test_an_edited_plausible_value_is_refused_naming_both_digests(tmp_path):
    path = tmp_path / "validity.json"
    write_json(path, {"spearman": 0.25})
    assert read_json(path) == {"spearman": 0.25}
    path.write_text(path.read_text().replace("0.25", "0.52"))
    with pytest.raises(
        InputError,
        match=r"validity.json: contents do not match .*expected sha256 [0-9a-f]{64}, "
        r"found [0-9a-f]{64}.*delete",
    ):
        read_json(path)


def test_a_sealed_file_that_records_another_test_than_its_path_is_refused(tmp_path):
    """A copy of a word set's file under another descriptor's path, or a link to it, holds a
    valid seal over the other descriptor's words (a run scored them as both): what the file
    records (test, descriptor; a score table's model, source, test) is compared with its
    path, and a file that differs is refused naming both and the fix."""
    import os

    from biasbench.data.wordsets import WordSet, read_wordset_files

    folder = tmp_path / "results/wordsets/C6"
    names = WordSet("C6", "names", "s", "person", "basic", {"X": ("John",)}, {"X": "male"})
    write_sealed(folder / "names.json", names.to_json())
    assert read_wordset_files([folder / "names.json"]) == [names]
    os.symlink("names.json", folder / "terms.json")
    write_sealed(folder / "simplified.json", names.to_json())  # a copy, its seal valid
    for descriptor in ("terms", "simplified"):
        path = folder / f"{descriptor}.json"
        with pytest.raises(InputError) as error:
            read_wordset_files([path])
        message = str(error.value)
        assert message.startswith(str(path)), message
        assert "records test 'C6', descriptor 'names'" in message
        assert f"its path says test 'C6', descriptor '{descriptor}'" in message
        assert f"delete {path} and rerun" in message
        assert (" (a link to " in message) == (descriptor == "terms")
    scores = tmp_path / "results/scores/glove/words"
    rows = pd.DataFrame({"model": ["glove"], "source": ["words"], "test": ["C9"]})
    write_tsv(scores / "C9.tsv", rows)
    assert read_tsv(scores / "C9.tsv").equals(rows)
    (scores / "C6.tsv").write_bytes((scores / "C9.tsv").read_bytes())
    with pytest.raises(InputError, match=r"C6.tsv: the file records .*test 'C9', its path says"):
        read_tsv(scores / "C6.tsv")


def test_a_folder_where_a_file_belongs_is_refused_naming_it(tmp_path):
    """A folder at a file's path: Snakemake takes it for a finished output ("Nothing to be
    done", no table), so the workflow's walk of results/ before planning refuses it, and so
    does every reader; a link there to another of the workflow's files is refused too."""
    from biasbench.io import check_results_tree

    results = tmp_path / "results"
    check_results_tree(results)  # none yet: nothing to refuse
    table = results / "tables/table3_seat.csv"
    write_text(table, "a,b\n")
    write_json(results / "wordsets/C6/names.json", {"test": "C6", "descriptor": "names"})
    check_results_tree(results)  # the workflow's own files and folders
    table.unlink()
    table.mkdir()
    with pytest.raises(InputError, match=f"^{table}: a folder, where .* delete {table} and"):
        check_results_tree(results)
    folder = results / "scores/m/words/C6.tsv"
    folder.mkdir(parents=True)
    for read in (read_sealed, read_tsv, read_npz, load_tensors):
        with pytest.raises(InputError, match=f"^{folder}: a folder, where the workflow writes"):
            read(folder)
    table.rmdir()
    folder.rmdir()
    (results / "wordsets/C6/terms.json").symlink_to("names.json")
    with pytest.raises(InputError, match=r"terms.json: a link to .*names.json, another of"):
        check_results_tree(results)


def test_a_link_to_the_same_file_of_a_shared_results_is_left(tmp_path):
    """A link to the file of the same path in another results/ (results kept elsewhere and
    shared) is that file, not another: the walk before planning leaves it, and refuses a link
    there to another of its files."""
    from biasbench.io import check_results_tree

    shared, results = tmp_path / "shared/results", tmp_path / "work/results"
    write_json(shared / "wordsets/C6/names.json", {"test": "C6", "descriptor": "names"})
    (results / "wordsets/C6").mkdir(parents=True)
    (results / "wordsets/C6/names.json").symlink_to(shared / "wordsets/C6/names.json")
    check_results_tree(results)
    (results / "wordsets/C6/terms.json").symlink_to(shared / "wordsets/C6/names.json")
    with pytest.raises(InputError, match=r"terms.json: a link to .*names.json, another of"):
        check_results_tree(results)


def test_an_lpbs_sweep_of_another_test_is_refused(tmp_path):
    """Figure 4 reads each test's window sweep: a copy of C1's sweep at C9's path (its seal
    valid) drew C1's curve as C9's; its rows' model, source (the corpus) and test are compared
    with its path."""
    folder = tmp_path / "results/lpbs/bert/natural"
    rows = pd.DataFrame({"window": [2], "model": ["bert"], "source": ["natural"], "test": ["C1"]})
    write_tsv(folder / "C1.sweep.tsv", rows)
    assert read_tsv(folder / "C1.sweep.tsv").equals(rows)
    (folder / "C9.sweep.tsv").write_bytes((folder / "C1.sweep.tsv").read_bytes())
    with pytest.raises(InputError) as error:
        read_tsv(folder / "C9.sweep.tsv")
    message = str(error.value)
    assert message.startswith(f"{folder / 'C9.sweep.tsv'}: the file records "), message
    assert (
        "source 'natural', test 'C1', its path says model 'bert', source 'natural', test 'C9'"
        in (message)
    )
    assert f"delete {folder / 'C9.sweep.tsv'} and rerun" in message


def test_lpbs_log_probabilities_of_another_model_are_refused(tmp_path):
    """A comparison reads each model's LPBS log-probabilities: a copy of one model's file at
    the other's path (its seal valid) would compare a model with itself; the file's recorded
    model, source and test are compared with its path."""
    from biasbench.scoring.corpus import identity

    folder = tmp_path / "results/lpbs"
    arrays = {"names|log_pt": np.zeros((1, 2, 2)), **identity("base", "templates", "C6")}
    write_npz(folder / "base/templates/C6.logprobs.npz", arrays)
    assert str(read_npz(folder / "base/templates/C6.logprobs.npz")["model"]) == "base"
    copy = folder / "debiased/templates/C6.logprobs.npz"
    copy.parent.mkdir(parents=True)
    copy.write_bytes((folder / "base/templates/C6.logprobs.npz").read_bytes())
    with pytest.raises(
        InputError,
        match=r"records model 'base', source 'templates', test 'C6', "
        r"its path says model 'debiased'",
    ):
        read_npz(copy)


def test_array_files_are_sealed_and_checked(tmp_path):
    import torch

    arrays = {"b": np.arange(4.0), "a": np.array([1, 2], dtype=np.int64)}
    write_npz(tmp_path / "x.npz", arrays)
    back = read_npz(tmp_path / "x.npz")
    assert set(back) == {"a", "b"} and np.array_equal(back["b"], arrays["b"])
    swapped = {"a": arrays["b"], "b": arrays["a"]}  # the seal covers names, not just bytes
    assert arrays_checksum(swapped) != arrays_checksum(arrays)
    np.savez(tmp_path / "x.npz", __sha256__=np.array(arrays_checksum(arrays)), **swapped)
    with pytest.raises(InputError, match="x.npz: arrays do not match"):
        read_npz(tmp_path / "x.npz")
    tensors = {"w": torch.arange(6.0).reshape(2, 3), "h": torch.ones(2, dtype=torch.bfloat16)}
    save_tensors(tmp_path / "w.safetensors", tensors)
    assert torch.equal(load_tensors(tmp_path / "w.safetensors")["w"], tensors["w"])
    raw = bytearray((tmp_path / "w.safetensors").read_bytes())
    raw[-1] ^= 1
    (tmp_path / "w.safetensors").write_bytes(bytes(raw))
    with pytest.raises(InputError, match="w.safetensors: arrays do not match"):
        load_tensors(tmp_path / "w.safetensors")
    (tmp_path / "w.safetensors").write_bytes(bytes(raw[:100]))
    with pytest.raises(InputError, match="w.safetensors: unreadable"):
        load_tensors(tmp_path / "w.safetensors")
