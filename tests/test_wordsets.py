import unicodedata

import pytest

from biasbench.data.wordsets import (
    WordSet,
    check_distinct_after,
    descriptors,
    external_ids,
    load_wordset,
    shared_words_note,
)
from biasbench.errors import InputError

from .conftest import ROOT

GOOD = """
id: T1
source: made up for a test
templates: {targets: person, attributes: basic}
targets:
  names:
    X: {label: x, words: [John, Paul]}
    Y: {label: y, words: [Amy, Joan]}
  terms:
    X: {words: {external: ext1, key: targ1.examples}}
    Y: {words: {external: ext1, key: targ2.examples}}
attributes:
  A: {words: [career, office]}
  B: {words: [home, family]}
"""


def test_load_and_round_trip(write, external):
    external.add(
        "ext1", {"targ1": {"examples": ["he", "him"]}, "targ2": {"examples": ["she", "her"]}}
    )
    path = write("T1.yaml", GOOD)
    assert descriptors(path) == ["names", "terms"]
    assert external_ids(path) == ["ext1"]
    ws = load_wordset(path, "terms", external)
    assert ws.sets["X"] == ("he", "him") and ws.sets["B"] == ("home", "family")
    assert ws.labels["X"] == "X"
    assert WordSet.from_json(ws.to_json()) == ws


@pytest.mark.parametrize(
    "change, message",
    [
        (("id: T1", "id: Other"), "field 'id' is 'Other'"),
        (("[John, Paul]", "[]"), r"targets.names.X.words: the list is empty"),
        (("[John, Paul]", "[John, Paul, Mike]"), r"\|X\|=3 but \|Y\|=2"),
        (("[John, Paul]", "[John, John]"), "duplicate entries"),
        (("[home, family]", "[home, office]"), "appear in both A and B"),
        (("person", "animal"), "templates.targets must be one of"),
        (("A: {words: [career, office]}", "A: [career]"), "attributes.A must be a mapping"),
        (("targ1.examples", "targ9.examples"), "key 'targ9.examples' not found"),
        # legal YAML read as what is not a word: the entry named and the fix given (it was
        # "expected a list of strings")
        (
            ("[John, Paul]", "[John, yes]"),
            r"targets.names.X.words: entry 2 is the YAML boolean true \(yes, no, on, off, "
            r"true and false unquoted are booleans, not words\): quote it",
        ),
        (("[home, family]", "[home, off]"), r"attributes.B.words: entry 2 is the YAML boolean"),
        (("[Amy, Joan]", "[null, Joan]"), r"targets.names.Y.words: entry 1 is YAML's null"),
        (("[career, office]", "[career, 1984]"), r"entry 2 is the number 1984: quote it"),
        # one stimulus written twice with other spaces (it was counted twice, no note)
        (
            ("[John, Paul]", '["Paul  Smith", Paul Smith]'),
            r"targets.names.X.words: 'Paul  Smith' and 'Paul Smith' are the same stimulus",
        ),
    ],
)
def test_bad_word_sets_name_file_and_field(write, external, change, message):
    external.add(
        "ext1", {"targ1": {"examples": ["he", "him"]}, "targ2": {"examples": ["she", "her"]}}
    )
    path = write("T1.yaml", GOOD.replace(*change))
    descriptor = "terms" if "targ" in change[0] else "names"
    with pytest.raises(InputError, match=message) as err:
        load_wordset(path, descriptor, external)
    assert "T1.yaml" in str(err.value)


def test_malformed_yaml(write, external):
    path = write("T1.yaml", "id: T1\ntargets: [unclosed\n")
    with pytest.raises(InputError, match="T1.yaml: not valid YAML"):
        load_wordset(path, "names", external)


def test_unknown_descriptor(write, external):
    with pytest.raises(InputError, match="no target descriptor 'ages'"):
        load_wordset(write("T1.yaml", GOOD), "ages", external)


def test_every_shipped_word_set_is_valid(tmp_path):
    """The committed resources load (external lists stubbed) and have the published sizes."""
    import json

    sizes = {"C1": 25, "C3": 32, "C6": 8, "Occ": 26, "I1": 12, "I2": 12, "Dis": 23}
    lists = {
        k: {"singular": [f"{k}{i}" for i in range(4)], "examples": [f"{k}{i}" for i in range(4)]}
        for k in ("targ1", "targ2", "attr1", "attr2")
    }
    pairs = [[f"f{i}", f"m{i}"] for i in range(10)]

    def resolve(file_id):
        path = tmp_path / file_id
        if not path.exists():
            fake = pairs if file_id == "debiaswe_definitional_pairs" else lists
            path.write_text(json.dumps(fake))
        return path

    files = sorted((ROOT / "resources" / "wordsets").glob("*.yaml"))
    assert len(files) >= 18
    for path in files:
        for d in descriptors(path):
            ws = load_wordset(path, d, resolve)
            if path.stem in sizes and d == ("terms" if path.stem == "Dis" else "names"):
                assert len(ws.sets["X"]) == sizes[path.stem], path.stem


def test_the_shipped_word_sets_have_no_word_in_a_target_and_an_attribute_set(tmp_path):
    """The shipped sets give none of the new caveats, so the default run's rows keep their
    bytes (the external lists are stubbed here; the fetched ones were checked too)."""
    test_every_shipped_word_set_is_valid(tmp_path)  # no new error either
    for path in sorted((ROOT / "resources" / "wordsets").glob("*.yaml")):
        for d in descriptors(path):
            ws = load_wordset(path, d, lambda file_id: tmp_path / file_id)
            assert shared_words_note(ws.sets, ws.sets) == "", (path.stem, d)


def test_a_word_in_a_target_and_an_attribute_set_is_noted(write, external):
    """Legal (a design may want it) but suspect: WEAT's d was 1.08 with no note."""
    path = write("T1.yaml", GOOD.replace("[career, office]", "[career, John]"))
    ws = load_wordset(path, "names", external)
    note = shared_words_note(ws.sets, ("X", "Y", "A", "B"))
    assert note.startswith("a word in a target and an attribute set: 'John' (X and A)")
    assert shared_words_note(ws.sets, ("X", "Y")) == ""  # a method reading no attribute


ROLES_SECTION = """
roles:
  N: {label: professions, words: [nurse, plumber]}
  D: {label: definitional pairs, pairs: [[he, she], [man, woman]], template: attributes}
"""


def test_open_roles_word_lists_and_pairs(write, external):
    external.add("ext1", {"targ1": {"examples": ["he"]}, "targ2": {"examples": ["she"]}})
    ws = load_wordset(write("T1.yaml", GOOD + ROLES_SECTION), "names", external)
    assert ws.roles == ("X", "Y", "A", "B", "N", "D.1", "D.2")
    assert ws.sets["N"] == ("nurse", "plumber") and ws.pairs("D") == [
        ("he", "she"),
        ("man", "woman"),
    ]
    assert ws.template_group("D.2") == "attributes" and ws.template_group("N") == "targets"
    assert ws.labels["D.1"] == "definitional pairs (1)"
    assert WordSet.from_json(ws.to_json()) == ws
    from biasbench.data.contexts import word_contexts

    assert set(word_contexts(ws)["role"]) == set(ws.roles)


@pytest.mark.parametrize(
    "section, message",
    [
        ("roles:\n  X: {words: [a]}\n", "a role name is an identifier other than"),
        (
            "roles:\n  N: {words: [a], pairs: [[a, b]]}\n",
            "must be a mapping with 'words' or 'pairs'",
        ),
        ("roles:\n  D: {pairs: [[a, b, c]]}\n", r"roles.D.pairs must be a non-empty list"),
        ("roles:\n  N: {words: [a, a]}\n", r"roles.N.words: duplicate entries \['a'\]"),
        ("roles:\n  N: {words: [a], template: middle}\n", "template must be 'targets' or"),
        ("roles:\n  D: {pairs: [[he, she], [yes, no]]}\n", r"roles.D.pairs: pair 2, word 1 is"),
    ],
)
def test_bad_roles_are_named(write, external, section, message):
    external.add("ext1", {"targ1": {"examples": ["he"]}, "targ2": {"examples": ["she"]}})
    with pytest.raises(InputError, match=message):
        load_wordset(write("T1.yaml", GOOD + section), "names", external)


@pytest.mark.parametrize(
    "sets, message",
    [
        ({"X": ["man", "Man"], "Y": ["woman"]}, "set X holds 'man' and 'Man', the same word 'man'"),
        (
            {"X": ["he", "she"], "Y": ["He", "She"], "A": ["a"], "B": ["b"]},
            "sets X and Y share 'he'/'He', 'she'/'She'",
        ),
    ],
)
def test_stimuli_the_model_cannot_tell_apart_fail(sets, message):
    with pytest.raises(InputError, match=message):
        check_distinct_after(sets, str.lower, "T/terms on glove")
    check_distinct_after(sets, str, "T/terms on a cased model")  # a cased model tells them apart


def test_normalisers_of_the_models():
    from biasbench.config import model_entry
    from biasbench.models.load import corpus_normaliser, stimulus_normaliser
    from biasbench.models.specs import ModelSpec

    glove = ModelSpec.from_config(
        "g", model_entry(kind="static", source="glove-pkg:x", lowercase=True)
    )
    assert stimulus_normaliser(glove)("Man") == "man"
    cased = ModelSpec.from_config("c", model_entry(kind="transformer", source="hf:x", case="exact"))
    assert stimulus_normaliser(cased, object())("Man") == "Man"  # no normaliser: as written
    assert (
        corpus_normaliser(str, "any")("Man") == "man"
        and corpus_normaliser(str, "exact")("Man") == "Man"
    )


def test_external_key_paths_with_indexes_and_wildcards(write, external):
    external.add("pairs", [["woman", "man"], ["girl", "boy"]])
    text = GOOD.replace(
        "  A: {words: [career, office]}\n  B: {words: [home, family]}",
        "  A: {words: {external: pairs, key: '*.1'}}\n  B: {words: {external: pairs, key: '*.0'}}",
    )
    text = text.replace("ext1, key: targ1.examples", "pairs, key: '0'")
    text = text.replace("ext1, key: targ2.examples", "pairs, key: '1'")
    ws = load_wordset(write("T1.yaml", text), "terms", external)
    assert ws.sets["A"] == ("man", "boy") and ws.sets["B"] == ("woman", "girl")
    assert ws.sets["X"] == ("woman", "man") and ws.sets["Y"] == ("girl", "boy")
    with pytest.raises(InputError, match="key '5' not found"):
        load_wordset(write("T1.yaml", text.replace("key: '0'", "key: '5'")), "terms", external)


def test_definitional_pairs_need_equal_attribute_lists(write, external):
    ws = load_wordset(write("T1.yaml", GOOD + "definitional_pairs: true\n"), "names", external)
    assert ws.paired and WordSet.from_json(ws.to_json()) == ws
    assert not load_wordset(write("T1.yaml", GOOD), "names", external).paired
    unequal = GOOD.replace("B: {words: [home, family]}", "B: {words: [home]}")
    with pytest.raises(InputError, match=r"definitional_pairs.*\|A\|=2, \|B\|=1"):
        load_wordset(write("T1.yaml", unequal + "definitional_pairs: true\n"), "names", external)


NFD_CAFE = unicodedata.normalize("NFD", "café")


def test_one_word_in_two_unicode_forms_is_one_word(write, external):
    """``café`` precomposed (NFC) in X and with a combining accent (NFD) in Y were two words:
    one was "dropped" as missing, with no note on its form. Read as NFC, they share a word."""
    text = GOOD.replace("[John, Paul]", "[John, café]").replace("[Amy, Joan]", f"[Amy, {NFD_CAFE}]")
    with pytest.raises(InputError, match=r"\['café'\] appear in both X and Y \(once Unicode forms"):
        load_wordset(write("T1.yaml", text), "names", external)
    twice = GOOD.replace("[John, Paul]", f"[café, {NFD_CAFE}]")
    with pytest.raises(InputError, match=r"duplicate entries \['café'\] \(once Unicode forms"):
        load_wordset(write("T1.yaml", twice), "names", external)


def test_a_word_written_in_nfd_is_read_as_nfc_with_a_note(write, external):
    text = GOOD.replace("[John, Paul]", f"[John, {NFD_CAFE}]")
    path = write("T1.yaml", text)
    ws = load_wordset(path, "names", external)
    assert ws.sets["X"] == ("John", "café") and unicodedata.is_normalized("NFC", ws.sets["X"][1])
    assert ws.notes == {
        "café": f"'café': {path}: targets.names.X.words writes it in Unicode NFD (5 code "
        "points); read as NFC (4)"
    }
    assert WordSet.from_json(ws.to_json()) == ws
    # a word set written in NFC has no notes, and its JSON no "notes" field (bytes as before)
    plain = load_wordset(write("T1.yaml", GOOD), "names", external)
    assert plain.notes == {} and '"notes"' not in plain.to_json()
