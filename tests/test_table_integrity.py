"""Table CSVs that later jobs read back (the model cards read the comparison, the run's
coverage guard every table) are checked like every intermediate: plain CSV for people, the
sha256 of its bytes in ``<file>.sha256`` beside it, an edit an error naming the file."""

import hashlib

import pandas as pd
import pytest

from biasbench.errors import InputError
from biasbench.io import checksum_file, read_table_csv, write_table_csv
from biasbench.reports.model_cards import read_table
from biasbench.reports.tables import coverage_lines

FRAME = pd.DataFrame(
    {
        "method": ["s-SEAT", "WEAT"],
        "model": ["tiny-bert", "glove-6b-50d"],
        "effect_size": [0.4213, -1.25],
        "note": ["", "n/a: X: 9 of 25 OOV"],
    }
)


def written(tmp_path, name="synthesis_scores.csv"):
    path = tmp_path / "results" / "tables" / name
    write_table_csv(path, FRAME.to_csv(index=False, lineterminator="\n"))
    return path


def test_an_intact_table_reads_back_as_written_and_stays_plain_csv(tmp_path):
    path = written(tmp_path)
    expected = FRAME.assign(note=[float("nan"), "n/a: X: 9 of 25 OOV"])
    pd.testing.assert_frame_equal(read_table(path), expected)
    # for people: pandas alone opens it, no seal row; the digest is sha256sum's line
    pd.testing.assert_frame_equal(
        pd.read_csv(path, keep_default_na=False, na_values=[""]), expected
    )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert checksum_file(path).read_text() == f"{digest}  synthesis_scores.csv\n"


def test_an_edited_value_is_refused_naming_the_file(tmp_path):
    path = written(tmp_path)
    path.write_text(path.read_text().replace("0.4213", "0.4214"))
    with pytest.raises(
        InputError,
        match=r"synthesis_scores.csv: contents do not match the checksum written with them in "
        r".*synthesis_scores.csv.sha256 \(expected sha256 [0-9a-f]{64}, found [0-9a-f]{64}\)"
        r".*delete .*synthesis_scores.csv and rerun",
    ):
        read_table(path)


@pytest.mark.parametrize("cut", [0, 10, -1])
def test_a_table_cut_short_is_refused(tmp_path, cut):
    path = written(tmp_path)
    path.write_bytes(path.read_bytes()[:cut])
    with pytest.raises(InputError, match="synthesis_scores.csv: contents do not match"):
        read_table_csv(path)


def test_a_table_without_its_checksum_is_refused_naming_both_files(tmp_path):
    path = written(tmp_path)
    checksum_file(path).unlink()
    with pytest.raises(
        InputError, match=r"synthesis_scores.csv: no checksum file .*synthesis_scores.csv.sha256"
    ):
        read_table(path)


def test_the_coverage_guard_names_an_edited_table(tmp_path):
    intact, edited = written(tmp_path, "weat_static.csv"), written(tmp_path, "table3_seat.csv")
    edited.write_text(edited.read_text().replace("-1.25", "-1.52"))
    lines = coverage_lines([str(intact), str(edited)])
    assert len(lines) == 1
    assert lines[0].startswith(f"table3_seat: {edited}: contents do not match the checksum")


def test_a_score_table_without_the_schema_s_columns_is_refused_naming_file_and_column(tmp_path):
    """A score file written before the floors were added reads as if every test could reject:
    refused where rows are collected and where the comparison reads them."""
    from biasbench.io import read_rows, write_tsv
    from biasbench.rows import COLUMNS

    from .conftest import score_row

    frame = pd.DataFrame([score_row(method="WEAT", model="m", p_value=0.2, p_floor=1 / 6)])
    assert list(frame.columns) == COLUMNS
    write_tsv(tmp_path / "new.tsv", frame)
    assert read_rows(tmp_path / "new.tsv")["p_floor"].tolist() == pytest.approx([1 / 6])
    write_tsv(tmp_path / "old.tsv", frame.drop(columns=["p_floor", "p_word_floor"]))
    with pytest.raises(InputError, match=r"old\.tsv: the columns .*'p_floor', 'p_word_floor'"):
        read_rows(tmp_path / "old.tsv")


@pytest.mark.parametrize("content", [b"", b"\n", b"abc123  synthesis_scores.csv\n"])
def test_an_empty_or_cut_checksum_file_is_refused_naming_it(tmp_path, content):
    path = written(tmp_path)
    checksum_file(path).write_bytes(content)
    with pytest.raises(InputError, match=r"synthesis_scores.csv.sha256 holds no sha256"):
        read_table_csv(path)
