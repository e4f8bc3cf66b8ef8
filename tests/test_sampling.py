import json

import pandas as pd
import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from biasbench.data.corpora import iter_corpus, iter_reddit, iter_wikipedia, strip_wiki_markup
from biasbench.data.sampling import (
    Reservoir,
    StimulusMatcher,
    case_matches,
    derived_rng,
    sample_contexts,
    sample_pairs,
    sentence_spans,
    word_window,
)
from biasbench.errors import InputError


def write_zst(path, records, raw_lines=()):
    lines = [json.dumps(r).encode() for r in records] + list(raw_lines)
    path.write_bytes(zstandard.ZstdCompressor().compress(b"\n".join(lines) + b"\n"))
    return path


def test_reddit_reader(tmp_path):
    path = write_zst(
        tmp_path / "RC.zst",
        [
            {"id": "a", "body": "He is a nurse.", "subreddit": "x", "created_utc": 1},
            {"id": "b", "body": "[deleted]"},
            {"id": "c", "title": "Flowers", "body": "A tulip."},
        ],
    )
    assert list(iter_reddit(path)) == ["He is a nurse.", "Flowers", "A tulip."]


def test_reddit_errors_name_the_file(tmp_path):
    good = zstandard.ZstdCompressor().compress(b'{"body": "x"}\n' * 1000)
    (tmp_path / "cut.zst").write_bytes(good[: len(good) // 2])
    with pytest.raises(InputError, match=r"cut.zst: corrupt or truncated zstd stream"):
        list(iter_reddit(tmp_path / "cut.zst"))
    (tmp_path / "junk.zst").write_bytes(b"not zstd at all")
    with pytest.raises(InputError, match="junk.zst: corrupt or truncated"):
        list(iter_reddit(tmp_path / "junk.zst"))
    path = write_zst(tmp_path / "latin.zst", [{"body": "ok"}], raw_lines=[b'{"body": "caf\xe9"}'])
    with pytest.raises(InputError, match="latin.zst: line 2 is not valid UTF-8"):
        list(iter_reddit(path))
    empty = write_zst(tmp_path / "empty.zst", [{"body": "[removed]"}])
    with pytest.raises(InputError, match="no documents"):
        list(iter_corpus("reddit", [empty]))


def test_wikipedia_reader(tmp_path):
    xml = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">
<page><title>A</title><ns>0</ns><revision><text>'''Tulips''' are [[flower|flowers]].{{cite|x}}
== Section ==
They grow&lt;ref&gt;src&lt;/ref&gt; in [[Turkey]].</text></revision></page>
<page><title>B</title><ns>0</ns><redirect title="A"/>
<revision><text>#REDIRECT [[A]]</text></revision></page>
<page><title>Talk:A</title><ns>1</ns><revision><text>chatter</text></revision></page>
</mediawiki>"""
    import bz2

    (tmp_path / "wiki.xml.bz2").write_bytes(bz2.compress(xml.encode()))
    docs = list(iter_wikipedia(tmp_path / "wiki.xml.bz2"))
    assert len(docs) == 1
    assert "Tulips are flowers." in docs[0] and "They grow in Turkey." in docs[0]
    assert "Section" not in docs[0] and "cite" not in docs[0]
    assert strip_wiki_markup("[[File:x.jpg|thumb]] text").strip() == "text"


def test_matcher_word_boundaries_and_phrases():
    m = StimulusMatcher(["he", "African American", "fried-chicken", "ant"])
    text = "The African American man said he ate fried-chicken; the anthem and ant-eater, HE."
    hits = [(s, text[a:b]) for s, a, b in m.find(text)]
    assert hits == [
        ("African American", "African American"),
        ("he", "he"),
        ("fried-chicken", "fried-chicken"),
        ("he", "HE"),
    ]


def test_exact_case_keeps_the_stimulus_as_written_or_capitalised_at_a_sentence_start():
    text = (
        "Bill paid the bill. Kind words, KIND deeds, a kind man; "
        "African american, African American."
    )
    stimuli = ["Bill", "kind", "African American"]
    every = [(s, text[a:b]) for s, a, b in StimulusMatcher(stimuli).find(text)]
    exact = [(s, text[a:b]) for s, a, b in StimulusMatcher(stimuli, "exact").find(text)]
    assert len(every) == 7
    assert exact == [
        ("Bill", "Bill"),
        ("kind", "Kind"),
        ("kind", "kind"),
        ("African American", "African American"),
    ]
    samples = sample_contexts([text], stimuli, per_stimulus=10, seed=1, case="exact")
    assert samples.groupby("stimulus")["seen"].first().to_dict() == {
        "Bill": 1,
        "kind": 2,
        "African American": 1,
    }
    with pytest.raises(InputError, match="case policy 'upper'"):
        StimulusMatcher(stimuli, "upper")


WORD = st.sampled_from(["bill", "kind", "man", "african", "american", "the"])


@given(
    st.lists(st.tuples(WORD, st.sampled_from([str.lower, str.upper, str.capitalize])), max_size=30)
)
def test_exact_hits_are_the_hits_whose_surface_passes_the_policy(words):
    text = " ".join(case(w) for w, case in words)
    stimuli = ["Bill", "kind", "african American", "the man"]
    every = StimulusMatcher(stimuli).find(text)
    exact = StimulusMatcher(stimuli, "exact").find(text)
    assert exact == [h for h in every if case_matches(h[0], text[h[1] : h[2]])]
    lowered = text.lower()  # "kind" and "the man" as written: the two policies agree
    assert [
        h for h in StimulusMatcher(stimuli, "exact").find(lowered) if h[0] in ("kind", "the man")
    ] == [h for h in StimulusMatcher(stimuli).find(lowered) if h[0] in ("kind", "the man")]


def test_sentences_and_windows():
    text = "First one. Second is here! Third?\nFourth line"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "First one.",
        "Second is here!",
        "Third?",
        "Fourth line",
    ]
    s = "one two three four five STIM six seven eight nine ten"
    start = s.index("STIM")
    a, b = word_window(s, start, start + 4, 4)
    assert s[a:b] == "two three four five STIM six seven eight nine"
    a, b = word_window("STIM end", 0, 4, 4)
    assert (a, b) == (0, 8)


def test_reservoir_is_uniform_and_seeded():
    counts = [0] * 10
    for trial in range(2000):
        r = Reservoir(3, derived_rng(trial, "w"))
        for i in range(10):
            r.offer(i)
        for i in r.items:
            counts[i] += 1
    # each item kept with probability 3/10: expected 600 of 2000, sd ~20
    assert all(abs(c - 600) < 100 for c in counts)
    a, b = Reservoir(3, derived_rng(1, "w")), Reservoir(3, derived_rng(1, "w"))
    for i in range(50):
        a.offer(i)
        b.offer(i)
    assert a.items == b.items and a.seen == 50


def test_sample_contexts_reproducible_and_independent_of_other_stimuli():
    docs = [f"Doc {i}: he said {i}. The tulip {i} grew. She left." for i in range(300)]
    one = sample_contexts(docs, ["he", "tulip"], per_stimulus=5, seed=7)
    two = sample_contexts(docs, ["tulip", "he", "she"], per_stimulus=5, seed=7)
    assert one.to_csv() == sample_contexts(docs, ["he", "tulip"], per_stimulus=5, seed=7).to_csv()
    pick = lambda f, s: f[f.stimulus == s].sentence.tolist()  # noqa: E731
    assert pick(one, "he") == pick(two, "he") and pick(one, "tulip") == pick(two, "tulip")
    assert (one.groupby("stimulus").size() == 5).all() and (one.seen == 300).all()
    row = one.iloc[0]
    assert row.sentence[row.start : row.end].lower() == row.stimulus


def test_csv_reader_takes_first_present_column(tmp_path):
    (tmp_path / "a.csv").write_text('id,comments\n1,"He said, hello."\n2,\n')
    (tmp_path / "b.csv").write_text("id,comments_processed\n3,she left\n")
    docs = list(
        iter_corpus(
            "csv",
            [tmp_path / "a.csv", tmp_path / "b.csv"],
            column=["comments", "comments_processed"],
        )
    )
    assert docs == ["He said, hello.", "she left"]
    with pytest.raises(InputError, match=r"b.csv: none of the columns \['comments'\]"):
        list(iter_corpus("csv", [tmp_path / "b.csv"], column="comments"))


def test_sample_pairs_keeps_pairs_within_the_gap():
    docs = [
        "The man is a professional. A woman, after a very long and tiring day, went home.",
        "Home was where the woman lived.",
    ]
    pairs = [("man", "professional"), ("woman", "home"), ("man", "home")]
    frame = sample_pairs(docs, pairs, per_pair=5, seed=1, max_gap=3, window_words=1)
    got = {(r.target, r.attribute, r.gap) for r in frame.itertuples()}
    # woman .. home in the first document has 7 words between: beyond the gap
    assert got == {("man", "professional", 2), ("woman", "home", 3)}
    row = frame[frame["target"] == "woman"].iloc[0]
    assert row.context[row.target_start : row.target_end] == "woman"
    assert row.context[row.attribute_start : row.attribute_end] == "Home"
    again = sample_pairs(docs, pairs, per_pair=5, seed=1, max_gap=3, window_words=1)
    pd.testing.assert_frame_equal(frame, again)


def test_sample_pairs_under_the_exact_case_policy():
    docs = ["Bill is kind. The bill is KIND. Kind, said Bill."]
    every = sample_pairs(docs, [("Bill", "kind")], per_pair=5, seed=1, max_gap=3)
    exact = sample_pairs(docs, [("Bill", "kind")], per_pair=5, seed=1, max_gap=3, case="exact")
    assert len(every) == 3  # both stimuli must pass: "bill ... KIND" does not
    assert sorted(exact["context"]) == ["Bill is kind", "Kind, said Bill"]  # word windows


def test_multi_word_stimuli_match_only_with_spaces_between_their_words():
    """'a " deaf person' holds the words of "a deaf person" but is not the stimulus: the span
    written to a context must read as the stimulus (an earlier run failed its check)."""
    matcher = StimulusMatcher(["a deaf person", "deaf"])
    text = 'Described as that of a " deaf person, then as a deaf  person.'
    hits = matcher.find(text)
    assert [(s, text[a:b]) for s, a, b in hits] == [
        ("deaf", "deaf"),
        ("a deaf person", "a deaf  person"),
        ("deaf", "deaf"),
    ]
