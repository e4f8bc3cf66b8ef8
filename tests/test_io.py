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
