import numpy as np
import pandas as pd
import pytest
import torch

from biasbench.data.contexts import fill
from biasbench.encodings import WORD_ENCODINGS
from biasbench.errors import InputError
from biasbench.models.extract import (
    Tokenized,
    batches_by_length,
    cut_after_stimuli,
    encode_transformer,
    read_embeddings,
    span_tokens,
    split_rows,
    write_embeddings,
)
from biasbench.models.load import load_transformer
from biasbench.models.specs import ModelSpec

from .tiny_models import tiny_bert, tiny_gpt2


def contexts(pairs):
    rows = []
    for i, (prefix, stimulus, suffix) in enumerate(pairs):
        sentence, start, end = fill(prefix, suffix, stimulus)
        rows.append((i, "X", stimulus, sentence, start, end, "t"))
    return pd.DataFrame(
        rows, columns=["context_id", "role", "stimulus", "sentence", "start", "end", "provenance"]
    )


FRAME = contexts(
    [
        ("This is ", "John", "."),
        ("That is ", "Amy", "."),
        ("", "Paul", " is here."),
        ("There is ", "Anastasia", "."),
        ("This is ", "John", "."),
        ("Here is the ", "thing", "."),
        ("This is ", "kind", "."),
        ("This is a ", "person", " that is here."),
    ]
)


@pytest.fixture(scope="module", params=["bert", "gpt2"])
def tiny(request, tmp_path_factory):
    build = tiny_bert if request.param == "bert" else tiny_gpt2
    path = build(tmp_path_factory.mktemp(request.param))
    spec = ModelSpec(request.param, "transformer", "path", str(path), None, False, -1, "any")
    model, tokenizer, is_decoder = load_transformer(spec, path)
    assert is_decoder == (request.param == "gpt2")
    return model, tokenizer


def test_batched_equals_one_at_a_time(tiny):
    model, tokenizer = tiny
    batched = encode_transformer(model, tokenizer, FRAME, progress=False)
    single = encode_transformer(model, tokenizer, FRAME, max_batch=1, progress=False)
    assert batched["valid"].all()
    for key, value in batched.items():
        np.testing.assert_allclose(value, single[key], atol=1e-5, err_msg=key)
    # identical sentences give identical rows
    for key in batched:
        np.testing.assert_array_equal(batched[key][0], batched[key][4])


def test_encodings_match_a_plain_forward_pass(tiny):
    model, tokenizer = tiny
    out = encode_transformer(model, tokenizer, FRAME, progress=False)
    row = 3  # "There is Anastasia." -- several subwords for the stimulus
    enc = tokenizer(
        FRAME.loc[row, "sentence"], return_offsets_mapping=True, return_special_tokens_mask=True
    )
    with torch.inference_mode():
        hidden = model(input_ids=torch.tensor([enc["input_ids"]])).last_hidden_state[0].numpy()
    pos = span_tokens(
        enc["offset_mapping"],
        enc["special_tokens_mask"],
        FRAME.loc[row, "start"],
        FRAME.loc[row, "end"],
    )
    assert len(pos) >= 2
    np.testing.assert_allclose(out["word/first"][row], hidden[pos[0]], atol=1e-5)
    np.testing.assert_allclose(out["word/last"][row], hidden[pos[-1]], atol=1e-5)
    np.testing.assert_allclose(out["word/mean"][row], hidden[pos].mean(0), atol=1e-5)
    np.testing.assert_allclose(out["sent/cls"][row], hidden[0], atol=1e-5)
    np.testing.assert_allclose(out["sent/last"][row], hidden[-1], atol=1e-5)
    real = [i for i, s in enumerate(enc["special_tokens_mask"]) if not s]
    np.testing.assert_allclose(out["sent/mean"][row], hidden[real].mean(0), atol=1e-5)


def test_other_layer(tiny):
    model, tokenizer = tiny
    top = encode_transformer(model, tokenizer, FRAME, progress=False)
    first = encode_transformer(model, tokenizer, FRAME, layer=1, progress=False)
    assert not np.allclose(top["word/mean"], first["word/mean"])


def test_span_lost_to_truncation_is_invalid(tiny):
    model, tokenizer = tiny
    frame = contexts([("This is a person that is here and ", "John", ".")])
    out = encode_transformer(model, tokenizer, frame, max_length=4, progress=False)
    assert not out["valid"][0]


def test_a_context_longer_than_the_models_is_cut_to_it(tiny):
    """The tiny models read 64 positions, fewer than max_length: a longer context ended in
    "IndexError: index out of range in self"; it is cut to the model's context as a longer
    one is to max_length, a stimulus past the cut invalid."""
    model, tokenizer = tiny
    long = "This is a person that is here and " * 12
    frame = contexts([("", "John", " " + long + "."), (long, "Amy", ".")])
    assert len(tokenizer(frame["sentence"][0])["input_ids"]) > 64
    out = encode_transformer(model, tokenizer, frame, max_length=512, progress=False)
    assert out["valid"].tolist() == [True, False]


def test_prefix_only_keeps_a_decoders_word_encodings(tmp_path):
    path = tiny_gpt2(tmp_path)
    spec = ModelSpec("gpt2", "transformer", "path", str(path), None, False, -1, "any")
    model, tokenizer, _ = load_transformer(spec, path)
    # two stimuli of one sentence: it is cut after the later one
    shared = contexts(
        [("This is ", "John", " and Amy is here."), ("This is John and ", "Amy", ".")]
    )
    frame = pd.concat([FRAME, shared], ignore_index=True)
    plain = encode_transformer(model, tokenizer, frame, progress=False)
    cut = encode_transformer(model, tokenizer, frame, progress=False, prefix_only=True)
    np.testing.assert_array_equal(cut["valid"], plain["valid"])
    for key in WORD_ENCODINGS:
        np.testing.assert_allclose(cut[key], plain[key], atol=1e-5, err_msg=key)


def test_cut_after_stimuli():
    offsets = [(0, 0), (0, 4), (5, 7), (8, 11), (11, 15), (15, 16), (0, 0)]
    special = [1, 0, 0, 0, 0, 0, 1]
    tok = Tokenized([list(range(7))] * 2, [offsets] * 2, [special] * 2)
    rows_of = {0: [0, 1], 1: [2]}  # sentence 1's only span is covered by no token
    cut = cut_after_stimuli(tok, rows_of, np.array([0, 8, 99]), np.array([4, 15, 100]))
    assert cut.ids == [[0, 1, 2, 3, 4], list(range(7))]
    assert cut.offsets[0] == offsets[:5] and cut.special[0] == special[:5]


def test_span_tokens():
    offsets = [(0, 0), (0, 4), (5, 7), (8, 11), (11, 15), (15, 16), (0, 0)]
    special = [1, 0, 0, 0, 0, 0, 1]
    assert span_tokens(offsets, special, 8, 15) == [3, 4]
    assert span_tokens(offsets, special, 0, 4) == [1]


def test_batches_hold_one_length_within_the_token_budget():
    lengths = np.array([5, 3, 9, 9, 2, 7, 3, 3, 3, 3, 3, 3, 3])
    batches = list(batches_by_length(lengths, max_tokens=18, max_batch=10))
    assert sorted(np.concatenate(batches).tolist()) == list(range(13))
    for b in batches:
        assert len(set(lengths[b])) == 1  # no padding
        assert len(b) * lengths[b].max() <= 18 or len(b) == 1
    # the eight of length 3: 18 // 3 = 6 per batch, then 2
    assert sorted(len(b) for b in batches if lengths[b[0]] == 3) == [2, 6]
    assert [len(b) for b in batches_by_length(np.array([4] * 5), 100, 2)] == [2, 2, 1]


def test_a_sentence_is_encoded_alike_whoever_shares_its_batch(tiny):
    """No padding and one length per batch: a context's encodings are the same bytes encoded
    among few sentences or among many (what lets a model's tests be encoded together)."""
    model, tokenizer = tiny
    few = FRAME.iloc[:3]
    many = pd.concat([FRAME, FRAME.assign(sentence=FRAME["sentence"] + " again")])
    alone = encode_transformer(model, tokenizer, few, progress=False)
    together = encode_transformer(model, tokenizer, many, progress=False)
    for key, value in alone.items():
        assert np.array_equal(value, together[key][:3]), key


def test_hdf5_round_trip(tmp_path):
    frames = {"names": FRAME.iloc[:2], "terms": FRAME.iloc[2:5]}
    arrays = {
        "word/mean": np.arange(15, dtype=np.float32).reshape(5, 3),
        "valid": np.array([True, False, True, True, True]),
    }
    path = tmp_path / "e.h5"
    write_embeddings(
        path, split_rows(frames, arrays), {"model": "m", "layer": -1, "revision": None}
    )
    back, attrs, checksum = read_embeddings(path, "terms")
    np.testing.assert_array_equal(back["word/mean"], arrays["word/mean"][2:])
    np.testing.assert_array_equal(back["context_id"], [2, 3, 4])
    assert attrs["model"] == "m" and attrs["dtype"] == "float32" and "code_version" in attrs
    assert read_embeddings(path, "names")[0]["valid"].tolist() == [True, False]
    assert [p.name for p in tmp_path.iterdir()] == ["e.h5"]
    with pytest.raises(InputError, match="no group 'ages'"):
        read_embeddings(path, "ages")
    assert read_embeddings(path, "terms")[2] == checksum != read_embeddings(path, "names")[2]


def _write_example(path):
    frames = {"terms": FRAME.iloc[:4]}
    arrays = {"word/mean": np.linspace(0.1, 1, 12, dtype=np.float32).reshape(4, 3)}
    write_embeddings(path, split_rows(frames, arrays), {"model": "m"})


def test_a_corrupted_embeddings_file_is_detected_not_scored(tmp_path):
    """8 bytes overwritten inside a dataset (an earlier probe changed an effect size from 0.918
    to 1.017 this way, exit 0): the checksum stored with the dataset no longer matches."""
    path = tmp_path / "e.h5"
    _write_example(path)
    raw = bytearray(path.read_bytes())
    at = raw.find(np.float32(0.1).tobytes())  # the first vector's bytes
    raw[at : at + 8] = b"\x00" * 8
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError, match=r"terms/word/mean does not match the checksum.*delete"):
        read_embeddings(path, "terms")


def test_a_truncated_embeddings_file_says_to_delete_it(tmp_path):
    path = tmp_path / "e.h5"
    _write_example(path)
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(InputError, match=r"e.h5: unreadable embeddings file .*delete .* and rerun"):
        read_embeddings(path, "terms")


def test_damaged_hdf5_metadata_names_the_file_whatever_h5py_raises(tmp_path):
    """8 bytes overwritten in the file's metadata (its first KiB: superblock, root group, its
    heap) raise RuntimeError, OSError or KeyError in h5py ("Object visitation failed (bad heap
    free list)" named no file): each is an error naming the file and saying to delete it, or
    the damage left the data as it was."""
    path, damaged = tmp_path / "e.h5", tmp_path / "damaged.h5"
    _write_example(path)
    raw, before = path.read_bytes(), read_embeddings(path, "terms")[0]
    causes = set()
    for at in range(0, 1024, 8):
        damaged.write_bytes(raw[:at] + b"\xff" * 8 + raw[at + 8 :])
        try:
            after = read_embeddings(damaged, "terms")[0]
        except InputError as error:
            assert str(error).startswith(f"{damaged}: "), at
            assert f"delete {damaged} and rerun" in str(error), at
            causes.add(type(error.__cause__).__name__)
            continue
        assert after.keys() == before.keys(), at
        assert all(np.array_equal(after[k], before[k]) for k in before), at
    assert "RuntimeError" in causes


@pytest.mark.parametrize("written", [b"code_version", b"dtype", b"float32"])
def test_damaged_hdf5_attributes_are_named_not_read_as_others(tmp_path, written):
    """The file's attributes carry no checksum: 8 bytes overwritten in an attribute's name or
    text read back as a name in bytes, a text of undecodable bytes, or a missing attribute
    (a damaged dtype read as '\\udcff...'): each is an error naming the file and the fix."""
    path = tmp_path / "e.h5"
    _write_example(path)
    raw = path.read_bytes()
    assert raw.count(written) == 1
    at = raw.find(written)
    path.write_bytes(raw[:at] + b"\xff" * len(written) + raw[at + len(written) :])
    with pytest.raises(InputError) as error:
        read_embeddings(path, "terms")
    message = str(error.value)
    assert message.startswith(f"{path}: damaged attributes ("), message
    assert f"delete {path} and rerun" in message


def test_an_embeddings_file_of_another_test_is_refused(tmp_path):
    """A copy of (or a link to) another test's embeddings file holds valid checksums: its
    attributes (model, context source, test) are compared with what its path says."""
    frames = {"terms": FRAME.iloc[:4]}
    arrays = {"word/mean": np.ones((4, 3), dtype=np.float32)}
    folder = tmp_path / "results/embeddings/m/words"
    attrs = {"model": "m", "context_source": "words", "test": "C9"}
    write_embeddings(folder / "C9.h5", split_rows(frames, arrays), attrs)
    assert read_embeddings(folder / "C9.h5", "terms")[1]["test"] == "C9"
    (folder / "C6.h5").write_bytes((folder / "C9.h5").read_bytes())
    (folder / "C3.h5").symlink_to("C9.h5")
    for name in ("C6", "C3"):
        with pytest.raises(InputError) as error:
            read_embeddings(folder / f"{name}.h5", "terms")
        message = str(error.value)
        assert message.startswith(str(folder / f"{name}.h5")), message
        assert "records model 'm', context_source 'words', test 'C9'" in message
        assert f"its path says model 'm', context_source 'words', test '{name}'" in message
        assert f"delete {folder / f'{name}.h5'} and rerun" in message
    assert "a link to" in message


def test_the_tokenizers_own_normaliser(tiny):
    """An uncased tokenizer lowercases (so ``Man`` and ``man`` are one stimulus for it); a
    byte-level BPE tokenizer keeps case."""
    from biasbench.models.load import stimulus_normaliser

    model, tokenizer = tiny
    spec = ModelSpec("t", "transformer", "path", "x", None, False, -1, "any")
    uncased = model.config.model_type == "bert"
    assert stimulus_normaliser(spec, tokenizer)("Man") == ("man" if uncased else "Man")


def test_no_contexts_give_empty_encodings(tiny):
    """A corpus that holds none of a test's stimuli: nothing to encode, no error."""
    model, tokenizer = tiny
    out = encode_transformer(model, tokenizer, FRAME.iloc[:0], progress=False)
    assert out["word/mean"].shape == (0, model.config.hidden_size) and len(out["valid"]) == 0


def test_each_context_records_the_pieces_its_stimulus_is_pooled_from(tiny):
    from biasbench.models.word_pieces import word_pieces

    model, tokenizer = tiny
    out = encode_transformer(model, tokenizer, FRAME, progress=False)
    expected = [
        word_pieces(tokenizer, r.sentence, int(r.start), int(r.end))
        for r in FRAME.itertuples(index=False)
    ]
    assert out["pieces"].tolist() == expected and min(expected) >= 1
    assert max(expected) > 1  # "Anastasia" is cut into pieces by both tokenizers
