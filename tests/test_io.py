"""Outputs and messages of a job: atomic writes, errors on the console, provenance."""

import subprocess
import sys

import pandas as pd

from biasbench.io import read_tsv, signature_of, write_text, write_tsv


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
    assert run.stderr == "biasbench: config: scoring.ddof: 2 is not one of [0, 1]\n"
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
    import pytest

    from biasbench.errors import InputError

    path = tmp_path / "scores.tsv"
    path.write_text("model\teffect_size\tp_value\nm\t0.5\t0.01\nm\t0.x5\t0.2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"scores.tsv: line 3, column effect_size holds '0.x5'"):
        read_tsv(path)
    path.write_text("model\teffect_size\tp_value\nm\t0.5\t\nm\tinf\t0.2\n", encoding="utf-8")
    frame = read_tsv(path)  # empty cells and inf are numbers (NaN, inf)
    assert frame["effect_size"].dtype.kind == "f" and frame["p_value"].isna().sum() == 1
