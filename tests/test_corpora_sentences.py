"""Readers for sentence collections in data files: CSV/TSV columns, JSON strings, and the
mixed ``records`` corpus that picks the reader by file suffix."""

import json

import pytest

from biasbench.data.corpora import iter_corpus, iter_csv_column, iter_json_texts, iter_records
from biasbench.errors import InputError

# --- CSV / TSV -----------------------------------------------------------------------------


def test_tsv_suffix_reads_tab_separated_with_commas_in_the_text(tmp_path):
    path = tmp_path / "gap.tsv"
    path.write_text("ID\tText\tURL\nt-1\tShe met him, then left.\thttp://a\nt-2\t\thttp://b\n")
    assert list(iter_csv_column(path, "Text")) == ["She met him, then left."]


def test_explicit_delimiter_overrides_the_suffix(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("id;text\n1;He sang, loudly.\n")
    assert list(iter_csv_column(path, "text", delimiter=";")) == ["He sang, loudly."]


def test_csv_quoted_multiline_field_and_byte_order_mark(tmp_path):
    path = tmp_path / "bug.csv"
    path.write_bytes('\ufeffsentence_text,corpus\n"Line one.\nLine two.",wikipedia\n'.encode())
    assert list(iter_csv_column(path, "sentence_text")) == ["Line one.\nLine two."]


def test_where_keeps_only_matching_rows(tmp_path):
    path = tmp_path / "bug.csv"
    path.write_text(
        "sentence_text,corpus\nA nurse said.,wikipedia\nA patient said.,pubmed\n"
        "A doctor said.,covid19\nA judge said.,wikipedia\n"
    )
    assert list(iter_csv_column(path, "sentence_text", where={"corpus": "wikipedia"})) == [
        "A nurse said.",
        "A judge said.",
    ]
    both = iter_csv_column(path, "sentence_text", where={"corpus": ["pubmed", "covid19"]})
    assert list(both) == ["A patient said.", "A doctor said."]


def test_csv_missing_text_column_names_file_and_header(tmp_path):
    path = tmp_path / "gap.tsv"
    path.write_text("ID\tText\nt-1\tHello.\n")
    with pytest.raises(InputError, match=r"gap.tsv: none of the columns \['sentence_text'\]"):
        list(iter_csv_column(path, "sentence_text"))


def test_csv_missing_filter_column_is_an_error(tmp_path):
    path = tmp_path / "gap.tsv"
    path.write_text("ID\tText\nt-1\tHello.\n")
    with pytest.raises(InputError, match=r"gap.tsv: no filter column \['corpus'\]"):
        list(iter_csv_column(path, "Text", where={"corpus": "wikipedia"}))


@pytest.mark.parametrize("name", ["empty.csv", "empty.tsv"])
def test_csv_empty_file_is_an_error(tmp_path, name):
    path = tmp_path / name
    path.write_text("")
    with pytest.raises(InputError, match=rf"{name}: empty file \(no header row\)"):
        list(iter_csv_column(path, "Text"))


def test_csv_header_only_has_no_documents(tmp_path):
    path = tmp_path / "head.csv"
    path.write_text("id,text\n")
    assert list(iter_csv_column(path, "text")) == []
    with pytest.raises(InputError, match="no documents"):
        list(iter_corpus("csv", [path], column="text"))


def test_csv_unreadable_row_names_file_and_line(tmp_path):
    path = tmp_path / "huge.csv"  # a field over the csv module's size limit (131,072)
    path.write_text("id,text\n1,fine\n2," + "x" * 200_000 + "\n")
    with pytest.raises(InputError, match=r"huge.csv: line 3: not readable as CSV"):
        list(iter_csv_column(path, "text"))


def test_csv_invalid_utf8_is_an_error(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes(b"id,text\n1,caf\xe9\n")
    with pytest.raises(InputError, match="latin.csv: not valid UTF-8"):
        list(iter_csv_column(path, "text"))


# --- JSON ----------------------------------------------------------------------------------


BOLD_LIKE = {
    "American_actors": {"Jane_Doe": ["Jane Doe is an actor.", "She lives in Ohio."]},
    "American_actresses": {"Ann_Roe": ["Ann Roe is an actress."], "Empty": ["", "  "]},
}


def test_json_without_key_yields_every_string_in_order(tmp_path):
    path = tmp_path / "gender_wiki.json"
    path.write_text(json.dumps(BOLD_LIKE))
    assert list(iter_json_texts(path)) == [
        "Jane Doe is an actor.",
        "She lives in Ohio.",
        "Ann Roe is an actress.",
    ]


def test_json_key_path_with_wildcards_and_index(tmp_path):
    path = tmp_path / "data.json"
    data = {
        "meta": {"note": "not a sentence"},
        "items": [{"text": "First one.", "id": 1}, {"text": "Second one.", "id": 2}],
    }
    path.write_text(json.dumps(data))
    assert list(iter_json_texts(path, key="items.*.text")) == ["First one.", "Second one."]
    assert list(iter_json_texts(path, key="items.1.text")) == ["Second one."]
    # a path ending at an object or list yields the strings under it
    assert list(iter_json_texts(path, key="meta")) == ["not a sentence"]
    path.write_text(json.dumps(BOLD_LIKE))
    assert list(iter_json_texts(path, key="American_actresses.*.*")) == ["Ann Roe is an actress."]


def test_jsonl_one_value_per_line(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": "One."}\n\n{"text": "Two.", "n": 3}\n{"other": "x"}\n')
    assert list(iter_json_texts(path, key="text")) == ["One.", "Two."]


def test_json_missing_key_is_an_error(tmp_path):
    path = tmp_path / "gender_wiki.json"
    path.write_text(json.dumps(BOLD_LIKE))
    with pytest.raises(InputError, match=r"gender_wiki.json: nothing at the key path 'prompts'"):
        list(iter_json_texts(path, key="prompts"))
    with pytest.raises(InputError, match="nothing at the key path 'American_actors.Nobody'"):
        list(iter_json_texts(path, key="American_actors.Nobody"))


@pytest.mark.parametrize("name, text", [("e.json", ""), ("w.json", " \n"), ("e.jsonl", "\n\n")])
def test_json_empty_file_is_an_error(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=rf"{name}: empty file \(no JSON\)"):
        list(iter_json_texts(path))


def test_json_syntax_error_names_file_and_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"a": ["ok",\n  "missing bracket"\n')
    with pytest.raises(InputError, match=r"bad.json: line \d+ is not valid JSON"):
        list(iter_json_texts(path))
    lines = tmp_path / "bad.jsonl"
    lines.write_text('{"text": "fine"}\n{"text": broken}\n')
    with pytest.raises(InputError, match=r"bad.jsonl: line 2 is not valid JSON"):
        list(iter_json_texts(lines, key="text"))


def test_json_invalid_utf8_is_an_error(tmp_path):
    path = tmp_path / "latin.json"
    path.write_bytes(b'["caf\xe9"]')
    with pytest.raises(InputError, match="latin.json: not valid UTF-8"):
        list(iter_json_texts(path))


# --- mixed records corpus ------------------------------------------------------------------


def test_records_corpus_reads_each_file_by_suffix(tmp_path):
    (tmp_path / "bold.json").write_text(json.dumps(BOLD_LIKE))
    (tmp_path / "gap.tsv").write_text("ID\tText\nt-1\tHe said, so.\n")
    (tmp_path / "bug.csv").write_text("sentence_text,corpus\nShe wrote.,wikipedia\n")
    paths = [tmp_path / "bold.json", tmp_path / "gap.tsv", tmp_path / "bug.csv"]
    docs = list(iter_corpus("records", paths, column=["Text", "sentence_text"]))
    assert docs == [
        "Jane Doe is an actor.",
        "She lives in Ohio.",
        "Ann Roe is an actress.",
        "He said, so.",
        "She wrote.",
    ]


def test_records_passes_key_to_json_and_filter_to_tables(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"text": "From JSON."}\n')
    (tmp_path / "b.csv").write_text("text,corpus\nKept.,wikipedia\nDropped.,pubmed\n")
    docs = iter_records(tmp_path / "a.jsonl", column="text", key="text")
    assert list(docs) == ["From JSON."]
    docs = iter_records(tmp_path / "b.csv", column="text", where={"corpus": "wikipedia"})
    assert list(docs) == ["Kept."]


def test_records_table_without_column_option_is_an_error(tmp_path):
    (tmp_path / "gap.tsv").write_text("ID\tText\nt-1\tHello.\n")
    with pytest.raises(InputError, match="gap.tsv: a table needs the option 'column'"):
        list(iter_corpus("records", [tmp_path / "gap.tsv"]))


def test_records_unknown_suffix_is_an_error(tmp_path):
    (tmp_path / "notes.txt").write_text("Hello.\n")
    with pytest.raises(InputError, match=r"notes.txt: records corpora read the suffixes"):
        list(iter_corpus("records", [tmp_path / "notes.txt"], column="text"))


def test_json_and_records_are_corpus_kinds(tmp_path):
    (tmp_path / "a.json").write_text('["One.", "Two."]')
    assert list(iter_corpus("json", [tmp_path / "a.json"])) == ["One.", "Two."]
    (tmp_path / "empty.json").write_text("[]")
    with pytest.raises(InputError, match="json corpus .*: no documents"):
        list(iter_corpus("json", [tmp_path / "empty.json"]))


def test_corrupt_bz2_sentence_file_names_the_file(tmp_path):
    import bz2

    path = tmp_path / "s.txt.bz2"
    text = "".join(f"Sentence number {i * 7919 % 10007} is here.\n" for i in range(5000))
    whole = bz2.compress(text.encode())
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match=r"s.txt.bz2: corrupt or truncated file after line \d+"):
        list(iter_corpus("sentences", [path]))
