"""Static vectors read as what they are: word2vec binary or text, GloVe's headerless text, each
checked against its header and for finite values, a bad entry named by file and line or entry
(a text file given as ``w2v-path:`` was read as binary: a vocabulary of garbage)."""

import re
import unicodedata

import numpy as np
import pandas as pd
import pytest

from biasbench.config import model_entry
from biasbench.errors import InputError
from biasbench.models.embedding_cache import Encoder
from biasbench.models.load import load_static
from biasbench.models.prepare import prepare_model
from biasbench.models.specs import ModelSpec

WORDS = ["he", "she", "café", "New_York"]
#: float32 values with awkward bytes: 0x20 (space) and 0x0a (newline) inside a binary record
VECTORS = np.concatenate(
    [
        np.frombuffer(b"\x20\x0a\x20\x3f\x0a\x20\x0a\xbf", dtype="<f4"),
        np.float32([0.1, -2.5e-8, 3.0e30, 1.0, 0.0, -0.0]),
    ]
).reshape(4, 2)


def spec_of(path, lowercase=False):
    entry = model_entry(kind="static", source=f"w2v-path:{path}", lowercase=lowercase)
    return ModelSpec.from_config("mine", entry)


def prepared(path, out):
    """(words, vectors) as preparing a ``w2v-path:`` model writes them."""
    prepare_model(spec_of(path), out)
    words = (out / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    return words, np.load(out / "vectors.npy")


def text_lines(words=WORDS, vectors=VECTORS):
    """word2vec text lines, each value as the exact decimal of its float32."""
    return [
        w + " " + " ".join(repr(float(v)) for v in row)
        for w, row in zip(words, vectors, strict=True)
    ]


def binary(words=WORDS, vectors=VECTORS, sep=b"\n", count=None):
    """word2vec binary: a header, then word, space and float32 values per entry."""
    head = f"{len(words) if count is None else count} {vectors.shape[1]}\n".encode()
    entries = [
        w.encode() + b" " + v.astype("<f4").tobytes() for w, v in zip(words, vectors, strict=True)
    ]
    return head + sep.join(entries) + sep


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def refused(path, out, message):
    """Preparing ``path`` fails with an InputError naming the file and ``message``."""
    with pytest.raises(InputError, match=re.escape(str(path)) + ": " + message):
        prepare_model(spec_of(path), out)
    assert not (out / "vectors.npy").exists()


def named(*cases):
    """Parameters with their file's name as the test id."""
    return [pytest.param(*case, id=case[0]) for case in cases]


@pytest.mark.parametrize(
    "name, data",
    named(
        ("text", "4 2\n" + "\n".join(text_lines()) + "\n"),
        # a space after each value (word2vec's C tool), Windows line ends
        ("text_spaces", "4 2\r\n" + "".join(line + " \r\n" for line in text_lines())),
        ("glove", "\n".join(text_lines()) + "\n"),  # GloVe: no header line
        ("binary_newlines", binary()),  # a newline after each vector (word2vec's C tool)
        ("binary_packed", binary(sep=b"")),  # none (gensim, the packaged GoogleNews subset)
        # a UTF-8 byte-order mark first (a Windows editor's "UTF-8 with BOM"): the word2vec
        # text was read as GloVe ("line 2: 2 values after the word 'he', expected 1"), and
        # GloVe's first word kept the mark
        ("text_bom", "\ufeff4 2\n" + "\n".join(text_lines()) + "\n"),
        ("glove_bom", "\ufeff" + "\n".join(text_lines()) + "\n"),
        ("binary_bom", "\ufeff".encode() + binary()),
    ),
)
def test_every_format_reads_back_exactly_what_was_written(tmp_path, name, data):
    words, vectors = prepared(write(tmp_path, name, data), tmp_path / "m")
    assert words == WORDS
    assert vectors.dtype == np.float32
    np.testing.assert_array_equal(vectors, VECTORS)
    assert vectors.tobytes() == VECTORS.tobytes()  # -0.0 stays -0.0


def test_a_text_word_in_another_encoding_stays_text(tmp_path):
    path = write(tmp_path, "v.txt", b"2 2\ncaf\xe9 0.5 1.5\nhe 1 2\n")  # latin-1
    words, vectors = prepared(path, tmp_path / "m")
    assert words == ["caf\ufffd", "he"]
    np.testing.assert_array_equal(vectors, [[0.5, 1.5], [1, 2]])


@pytest.mark.parametrize(
    "name, data, message",
    named(
        (
            "bad_count.txt",
            "4 2\n" + "\n".join(text_lines()[:2] + ["café 0.5"] + text_lines()[3:]),
            r"line 4: 1 values after the word 'café', expected 2",
        ),
        (
            "extra_value.txt",
            "\n".join(text_lines()[:1] + ["she 0.5 1.5 2.5"] + text_lines()[2:]),
            r"line 2: 3 values after the word 'she', expected 2",
        ),
        (
            "not_a_number.txt",
            "4 2\n" + "\n".join(text_lines()[:1] + ["she 0.5 x1"] + text_lines()[2:]),
            r"line 3: 'x1' is not a number",
        ),
        (
            "first_line_bad.txt",
            "4 2\n" + "\n".join(["he 0.5 oops"] + text_lines()[1:]),
            r"line 2: 'oops' is not a number",
        ),
        (
            "blank_line.txt",
            "4 2\n" + "\n".join(text_lines()[:2] + [""] + text_lines()[2:]),
            r"line 4 is blank",
        ),
        ("inf.txt", "2 2\nhe 0.5 1.5\nshe inf 1\n", r"line 3 \('she'\): a value is not finite"),
        ("nan.txt", "he 0.5 1.5\nshe nan 1\n", r"line 2 \('she'\): a value is not finite"),
        (
            "overflow.txt",
            "2 2\nhe 0.5 1e39\nshe 1 1\n",  # beyond float32
            r"line 2 \('he'\): a value is not finite",
        ),
        (
            "fewer.txt",
            "5 2\n" + "\n".join(text_lines()) + "\n",
            r"4 vectors; the header declares 5",
        ),
        (
            "more.txt",
            "3 2\n" + "\n".join(text_lines()) + "\n",
            r"line 5: more vectors than the 3 the header declares",
        ),
        ("empty.txt", "", r"not static vectors"),
        ("zero.txt", "0 2\n", r"line 1: the header declares 0 vectors of 2 values"),
    ),
)
def test_a_bad_text_file_names_the_file_and_line(tmp_path, name, data, message):
    refused(write(tmp_path, name, data), tmp_path / "m", message)


@pytest.mark.parametrize(
    "name, data, message",
    named(
        # the case: cut short inside a vector ("could not broadcast (25,) into (50,)")
        (
            "short.bin",
            binary()[:-5],
            r"entry 4 of 4 \(byte \d+\), 'New_York', is truncated: 1 of its 2",
        ),
        ("short_word.bin", binary()[:-12], r"entry 4 of 4 \(byte \d+\) is truncated"),
        ("fewer.bin", binary(count=6), r"entry 5 of 6 \(byte \d+\) is truncated"),
        ("more.bin", binary(count=3), r"more data after the 3 vectors the header declares"),
        (
            "inf.bin",
            binary(vectors=np.where(VECTORS == 1.0, np.float32(np.inf), VECTORS)),
            r"entry 3 of 4 \('café'\): a value is not finite",
        ),
        (
            "nan.bin",
            binary(vectors=np.where(VECTORS == 0.1, np.float32(np.nan), VECTORS)),
            r"entry 2 of 4 \('she'\): a value is not finite",
        ),
        ("no_header.bin", binary()[binary().index(b"\n") + 1 :], r"not static vectors"),
    ),
)
def test_a_bad_binary_file_names_the_file_and_entry(tmp_path, name, data, message):
    refused(write(tmp_path, name, data), tmp_path / "m", message)


def test_a_header_declaring_more_than_the_file_holds_allocates_nothing(tmp_path):
    """A count beyond what the bytes can hold fails at the entry cut short, not in memory."""
    path = write(tmp_path, "huge.bin", binary(count=10**15))
    refused(path, tmp_path / "m", r"entry 5 of 1000000000000000 \(byte \d+\) is truncated")


def contexts(stimuli):
    return {"terms": pd.DataFrame({"stimulus": stimuli, "role": ["X"] * len(stimuli)})}


def test_no_stimulus_in_the_vocabulary_is_an_error_that_counts_both(tmp_path):
    """A test none of whose stimuli the vectors hold says so (the card used to report every
    stimulus missing from a vocabulary read wrongly); some missing keeps the scored rows."""
    path = write(tmp_path, "v.txt", "4 2\n" + "\n".join(text_lines()) + "\n")
    out = prepare_model(spec_of(path), tmp_path / "m")
    encoder = Encoder(spec_of(path), out, 1, {})
    with pytest.raises(InputError) as error:
        encoder.check_stimuli(contexts(["man", "woman", "He"]), "words", "C6")
    message = str(error.value)
    assert "C6 on mine (words): 0 of 3 stimuli found in a vocabulary of 4 words" in message
    assert str(out / "vocab.txt") in message and f"w2v-path:{path}" in message
    encoder.check_stimuli(contexts(["man", "he"]), "words", "C6")  # a partial match passes


#: a small test: two words a role
SETS = {"X": ["he", "him"], "Y": ["she", "her"], "A": ["male", "man"], "B": ["female", "woman"]}


def scored(path, out):
    """(the encoder's attributes, the score rows) of SETS on the vectors at ``path``, as the
    embedding and scoring jobs give them."""
    from biasbench.models.extract import stimulus_notes_of
    from biasbench.scoring.embeddings import score_file
    from biasbench.scoring.settings import ScoreSettings

    frame = pd.DataFrame(
        [(r, w) for r, ws in SETS.items() for w in ws], columns=["role", "stimulus"]
    ).assign(context_id=lambda f: range(len(f)))
    encoder = Encoder(spec_of(path), prepare_model(spec_of(path), out), 1, {})
    encoder.check_stimuli({"terms": frame}, "words", "T")
    arrays, attrs = encoder.encode({"T": frame})["T"]
    rows = score_file(
        frame,
        arrays,
        model="mine",
        kind="static",
        is_decoder=False,
        source="words",
        test="T",
        descriptor="terms",
        settings=ScoreSettings(max_drop_share=0.5),
        signature="sig",
        expected=SETS,
        stimulus_notes=stimulus_notes_of(attrs),
    )
    return attrs, rows.set_index("method")


def vector_lines(words, seed=0):
    rng = np.random.default_rng(seed)
    return [f"{w} " + " ".join(f"{v:.4f}" for v in rng.normal(size=3)) for w in words]


def test_a_word_listed_twice_is_read_with_its_first_vector_and_noted(tmp_path):
    """It was accepted with the first vector and no note."""
    lines = vector_lines([w for ws in SETS.values() for w in ws])
    path = write(tmp_path, "v.txt", "\n".join([*lines, "male 9 9 9"]) + "\n")
    attrs, rows = scored(path, tmp_path / "m")
    note = f"'male': 'male' is listed 2 times in w2v-path:{path} (entries 5, 9); the first"
    assert note in attrs["stimulus_notes"]
    assert note in rows.loc["WEAT", "note"] and rows.loc["WEAT", "dropped"] == ""
    assert rows.loc["WEAT", "effect_size"] == rows.loc["WEAT", "effect_size"]  # scored


def test_an_all_zero_vector_is_dropped_and_named_not_a_failure_later(tmp_path):
    """It was accepted at reading and made scoring fail later, naming neither word nor file."""
    lines = vector_lines([w for ws in SETS.values() for w in ws if w != "man"])
    path = write(tmp_path, "v.txt", "\n".join([*lines, "man 0 0 -0"]) + "\n")
    attrs, rows = scored(path, tmp_path / "m")
    note = f"'man': 'man' has an all-zero vector in w2v-path:{path} (no direction; dropped"
    assert note in attrs["stimulus_notes"]
    assert note in rows.loc["WEAT", "note"]
    assert rows.loc["WEAT", "dropped"] == "A:man" and rows.loc["WEAT", "n_a"] == 1


def test_vectors_without_a_suspect_word_add_no_attribute_and_no_note(tmp_path):
    path = write(tmp_path, "v.txt", "\n".join(vector_lines(sum(SETS.values(), []))) + "\n")
    attrs, rows = scored(path, tmp_path / "m")
    assert "stimulus_notes" not in attrs
    assert not rows["note"].str.contains("vector|listed").any()


def test_a_word_the_vectors_write_in_nfd_is_found_and_noted(tmp_path):
    """A vectors file writing ``café`` with a combining accent (NFD) against a word set in the
    precomposed form (NFC): the word was "dropped" as missing, with no note on its form."""
    nfd = unicodedata.normalize("NFD", "café")
    lines = vector_lines(["he", "she", "man", nfd])
    path = write(tmp_path, "v.txt", "\n".join(lines) + "\n")
    vectors = load_static(prepare_model(spec_of(path), tmp_path / "m"), spec_of(path))
    assert vectors.lookup("café") is not None and vectors.lookup(nfd) is not None
    assert vectors.notes("café") == [
        f"'café': w2v-path:{path} writes 'café' in Unicode NFD; read as NFC"
    ]
    assert vectors.notes("he") == []


@pytest.mark.parametrize(
    "first, second, reading",
    [
        ("man", "man  man", "man"),  # a word repeated is the word's own vector
        ("man", "man-man", "man"),
        ("new york", "york new", "new + york"),  # the mean of the same words
        ("man man woman woman", "woman man", "man + woman"),
    ],
)
def test_a_stimulus_read_as_another_stimulus_s_vector_is_refused(tmp_path, first, second, reading):
    """``man  man`` beside ``man`` was counted twice (one vector, two stimuli): static vectors
    read a phrase as the mean of its words, so the two are one stimulus; the job stops naming
    both, as it does for ``man`` and ``Man`` on a lowercasing vocabulary."""
    path = write(tmp_path, "v.txt", "\n".join(vector_lines(["man", "woman", "new", "york"])) + "\n")
    encoder = Encoder(spec_of(path), prepare_model(spec_of(path), tmp_path / "m"), 1, {})
    assert encoder.vectors.reading(first) == encoder.vectors.reading(second) == reading
    with pytest.raises(InputError, match=f"set X holds {first!r} and {second!r}, the same word"):
        encoder.check_stimuli(contexts([first, second]), "words", "C6")
    encoder.check_stimuli(contexts(["man", "woman", "man woman"]), "words", "C6")  # distinct
