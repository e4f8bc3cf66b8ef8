import unicodedata

import pandas as pd
import pytest

from biasbench.data.contexts import check_contexts, template_contexts, word_contexts
from biasbench.data.templates import fill, load_templates
from biasbench.data.wordsets import WordSet
from biasbench.errors import InputError

from .conftest import ROOT

WS = WordSet(
    "T",
    "names",
    "test",
    "person",
    "basic",
    {"X": ("Ann",), "Y": ("Bob",), "A": ("kind",), "B": ("mean",)},
    {r: r for r in "XYAB"},
)


def test_fill_records_span_and_capitalises():
    assert fill("This is ", ".", "aster") == ("This is aster.", 8, 13)
    sentence, start, end = fill("", " is here.", "aster")
    assert sentence == "Aster is here." and sentence[start:end] == "Aster"


def test_template_contexts(write, external):
    external.add(
        "tpl", {"targ": {"p": ["This is TTT.", "TTT is here."]}, "attr": {"b": ["It is AAA."]}}
    )
    path = write(
        "tpl.yaml",
        """
id: tpl
slot: TTT
targets: {person: {external: tpl, key: targ.p}}
attributes: {basic: {external: tpl, key: attr.b, slot: AAA}}
""",
    )
    frame = template_contexts(WS, load_templates(path, external))
    assert list(frame["sentence"]) == [
        "This is Ann.",
        "Ann is here.",
        "This is Bob.",
        "Bob is here.",
        "It is kind.",
        "It is mean.",
    ]
    assert list(frame["context_id"]) == list(range(6))
    check_contexts(frame, "t")
    assert frame.loc[0, "provenance"] == "tpl:targets.person[0]"


def test_template_without_slot_is_rejected(write, external):
    path = write(
        "tpl.yaml",
        "id: tpl\nslot: '{w}'\ntargets: {person: [This is it.]}\nattributes: {basic: ['{w}']}\n",
    )
    with pytest.raises(InputError, match="must hold the slot"):
        load_templates(path, external)


def test_stimulus_missing_from_span_is_rejected():
    frame = word_contexts(WS)
    check_contexts(frame, "ok")
    frame.loc[1, "sentence"] = "Rob"
    with pytest.raises(
        InputError, match=r"context 1: span \[0:3\] of 'Rob' is 'Rob', not the stimulus 'Bob'"
    ):
        check_contexts(frame, "contexts.tsv")
    with pytest.raises(InputError, match="is empty"):
        check_contexts(frame.iloc[:0], "contexts.tsv")
    check_contexts(frame.iloc[:0], "corpus.tsv", allow_empty=True)  # a corpus may miss a test
    with pytest.raises(InputError, match="lacks columns"):
        check_contexts(pd.DataFrame({"sentence": ["x"]}), "contexts.tsv")


def test_shipped_may_templates_fill_every_kind():
    tpl = load_templates(ROOT / "resources" / "templates" / "may2019.yaml", lambda i: None)
    frame = template_contexts(WS, tpl)
    check_contexts(frame, "may2019")
    assert len(frame) == 8 + 8 + 8 + 8


def test_a_template_written_in_nfd_gives_nfc_sentences_and_a_note(write, external):
    nfd = unicodedata.normalize("NFD", "Au café, TTT.")
    path = write(
        "tpl.yaml",
        f"id: tpl\nslot: TTT\ntargets: {{person: ['{nfd}']}}\nattributes: {{basic: [TTT.]}}\n",
    )
    templates = load_templates(path, external)
    frame = template_contexts(WS, templates)
    assert (
        frame.loc[0, "sentence"] == "Au café, Ann." == unicodedata.normalize("NFC", "Au café, Ann.")
    )
    assert list(templates.notes) == ["Au café, TTT."]
    assert "targets.person writes it in Unicode NFD" in templates.notes["Au café, TTT."]
