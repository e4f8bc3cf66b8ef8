"""Settings are part of every score row's provenance: a row records the settings its method
reads and the biasbench version, and its signature covers them. Changing one scoring setting
changes exactly the rows whose method reads it, on the real scoring functions; every other
row stays byte for byte as it was."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from biasbench import __version__
from biasbench.data.pairsets import SentencePair
from biasbench.data.wordsets import LpbsSpec
from biasbench.encodings import SENT_ENCODINGS, WORD_ENCODINGS
from biasbench.methods.contract import SETTING_KEYS
from biasbench.methods.registry import get
from biasbench.rows import KEY_COLUMNS, parse_settings
from biasbench.scoring import datasets
from biasbench.scoring.corpus import probability_ceat_rows
from biasbench.scoring.embeddings import score_file
from biasbench.scoring.settings import ScoreSettings
from biasbench.scoring.templates import lpbs_rows
from biasbench.studies import bommasani2022 as study

from .test_scoring_templates import TEMPLATES, fake_log_probs, wordset

BASE = ScoreSettings(exact_max=50, n_samples=200, ceat_samples=40, same_samples=150, seed=3)
STIMULI = {"X": ["x1", "x2", "x3"], "Y": ["y1", "y2", "y3"], "A": ["a1", "a2"], "B": ["b1", "b2"]}

WEAT_LIKE = {"WEAT", "s-SEAT", "w-SEAT"}
TESTED = WEAT_LIKE | {"SAME", "SAME skew", "RIPA", "RND"}  # the permutation-tested methods
BY_UNIT = TESTED | {"MAC", "Direct Bias", "SAME stereotype"}
#: setting -> (a second value, the methods on context vectors whose rows it moves on templates
#: and words, and on a corpus)
CHANGES = {
    "ddof": (0, WEAT_LIKE, WEAT_LIKE),
    "exact_max": (60, TESTED, TESTED),
    "n_samples": (300, TESTED, TESTED),
    "same_samples": (160, {"SAME", "SAME skew"}, {"SAME", "SAME skew"}),
    "ceat_samples": (50, {"CEAT"}, {"CEAT"}),
    "unit": ("stimulus", BY_UNIT, set()),
    "corpus_unit": ("context", set(), BY_UNIT),
    "max_drop_share": (0.5, BY_UNIT | {"CEAT"}, BY_UNIT | {"CEAT"}),
}
#: (source, model kind): static vectors on words, a transformer on templates and on a corpus
SOURCES = [("words", "static"), ("templates", "transformer"), ("reddit", "transformer")]


def embedding_rows(settings: ScoreSettings, source: str, kind: str) -> pd.DataFrame:
    """Every method on context vectors, on two contexts per stimulus of a small hand-built
    set where X and A point one way and Y and B another."""
    rng = np.random.default_rng(0)
    rows = [(role, s) for role, words in STIMULI.items() for s in words for _ in range(2)]
    frame = pd.DataFrame(rows, columns=["role", "stimulus"])
    vectors = rng.normal(scale=0.3, size=(len(frame), 5)).astype(np.float32)
    vectors[frame["role"].isin(["X", "A"]).to_numpy(), 0] += 1
    vectors[frame["role"].isin(["Y", "B"]).to_numpy(), 1] += 1
    arrays = {e: vectors for e in (*SENT_ENCODINGS, *WORD_ENCODINGS)}
    return score_file(
        frame,
        {**arrays, "valid": np.ones(len(frame), bool)},
        model="m",
        kind=kind,
        is_decoder=False,
        source=source,
        test="T",
        descriptor="d",
        settings=settings,
        signature="inputs",
        pairs=list(zip(STIMULI["A"], STIMULI["B"], strict=True)),
    )


def moved(before: pd.DataFrame, after: pd.DataFrame) -> pd.Series:
    """Per row (by key), whether its signature changed; every other column of a row whose
    signature stayed must have stayed too."""
    before, after = before.set_index(KEY_COLUMNS), after.set_index(KEY_COLUMNS)
    assert before.index.equals(after.index)
    changed = before["signature"] != after["signature"]
    pd.testing.assert_frame_equal(before[~changed], after[~changed])
    return changed


@pytest.mark.parametrize("name", CHANGES)
@pytest.mark.parametrize("source, kind", SOURCES)
def test_a_setting_moves_exactly_the_rows_whose_method_reads_it(name, source, kind):
    value, on_templates, on_corpus = CHANGES[name]
    before = embedding_rows(BASE, source, kind)
    after = embedding_rows(replace(BASE, **{name: value}), source, kind)
    changed = moved(before, after)
    expected = on_templates if source in ("templates", "words") else on_corpus
    by_method = changed.groupby(level="method").agg(["all", "any"])
    assert set(by_method.index[by_method["any"]]) == expected & set(before["method"])
    assert (by_method["all"] == by_method["any"]).all()  # every row of a method, or none


@pytest.mark.parametrize("source, kind", SOURCES)
def test_the_settings_column_decodes_to_what_was_used(source, kind):
    used = BASE.for_source(source)
    for _, row in embedding_rows(BASE, source, kind).iterrows():
        method = get(row["method"])
        expected = {SETTING_KEYS[n]: str(getattr(used, n)) for n in method.reads}
        assert parse_settings(row["settings"]) == expected | {"drop": "0.2", "v": __version__}
        decoded = parse_settings(row["settings"])
        if "unit" in decoded:
            assert row["unit"] == decoded["unit"]
        if method.name == "CEAT":
            assert row["n_partitions"] == int(decoded["ceat"])
        elif "samples" in decoded and not row["exact"]:  # SAME: the fewer of its two caps
            cap = min(int(decoded["samples"]), int(decoded.get("same", decoded["samples"])))
            assert row["n_partitions"] == cap


def test_weat_rows_read_as_sacrebleu_signatures():
    row = embedding_rows(BASE, "words", "static").query("method == 'WEAT'").iloc[0]
    assert row["settings"] == f"ddof:1|drop:0.2|exact:50|samples:200|unit:context|v:{__version__}"
    assert len(row["signature"]) == 12


def lpbs(settings: ScoreSettings) -> pd.DataFrame:
    return lpbs_rows(
        fake_log_probs,
        lambda w: w != "ys",
        {"terms": wordset(x=("x", "x2"), y=("ys", "y2"))},
        LpbsSpec("T", {"terms": "basic"}, frozenset({"ys"}), None),
        TEMPLATES,
        model="m",
        encoding="causal",
        settings=settings.for_source("templates"),
        seed=0,
        signature="inputs",
    )


def pceat(settings: ScoreSettings, max_gap: int = 18) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(1)
    rows = [
        (t, a, gap, lp, lp - rng.uniform(0, 2))
        for t in STIMULI["X"] + STIMULI["Y"]
        for a in STIMULI["A"] + STIMULI["B"]
        for gap, lp in zip((2, 12), rng.normal(-10, 2, 2), strict=True)
    ]
    contexts = pd.DataFrame(rows, columns=["target", "attribute", "gap", "log_pt", "log_pp"])
    scored, sweep, _ = probability_ceat_rows(
        contexts,
        {"d": wordset(*(tuple(STIMULI[r]) for r in "XY"))},
        lambda w: True,
        model="m",
        corpus="reddit",
        test="T",
        encoding="mlm",
        max_gap=max_gap,
        windows=[5],
        primary_descriptor="d",
        settings=settings.for_source("reddit"),
        seed=0,
        signature="inputs",
    )
    return scored, sweep


def crows(settings: ScoreSettings) -> pd.DataFrame:
    class Causal:
        """A causal LM that likes the first of each pair."""

        masked = False

        def sentence_tokens(self, sentences):
            scores = [-1.0 if s.startswith("s") else -2.0 for s in sentences]
            return [[0, 1]] * len(sentences), [np.array([s, 0.0]) for s in scores]

        def shared(self, a, b):
            return [1], [1]

    pairs = [SentencePair(f"s{i}", f"a{i}", True, "race") for i in range(3)]
    return datasets.crows_pairs(
        Causal(),
        pairs,
        model="m",
        settings=settings.for_source("templates"),
        seed=1,
        signature="inputs",
    )


@pytest.mark.parametrize("name", CHANGES)
def test_lpbs_pceat_and_data_set_rows_move_only_with_what_they_read(name):
    changed = replace(BASE, **{name: CHANGES[name][0]})
    assert set(moved(lpbs(BASE), lpbs(changed))) == {name in ("exact_max", "n_samples")}
    # p-CEAT's word-level test splits the attribute words as the permutation tests do
    pceat_reads = ("ceat_samples", "exact_max", "n_samples")
    assert set(moved(pceat(BASE)[0], pceat(changed)[0])) == {name in pceat_reads}
    assert not moved(crows(BASE), crows(changed)).any()


def test_lpbs_pceat_and_data_set_rows_decode_to_what_was_used():
    for _, row in lpbs(BASE).iterrows():
        assert parse_settings(row["settings"]) == {"exact": "50", "samples": "200"} | {
            "v": __version__
        }
    scored, sweep = pceat(BASE, max_gap=12)
    for frame, gap in ((scored, 12), (sweep, 5)):
        expected = f"ceat:40|exact:50|gap:{gap}|samples:200|v:{__version__}"
        assert set(frame["settings"]) == {expected}
    assert (scored["n_partitions"] <= 40).all()
    assert set(moved(scored, pceat(BASE, max_gap=18)[0])) == {True}
    assert set(crows(BASE)["settings"]) == {f"v:{__version__}"}


def test_divdist_rows_record_the_negative_rule():
    data = study.StudyData(("nurse", "pilot"), {"gender": {"female": ["she"], "male": ["he"]}}, {})
    strengths = pd.DataFrame(
        [
            ("embedding", "m", "", 0, "gender", "paper", p, g, s)
            for p, g, s in [
                ("nurse", "female", 0.5),
                ("nurse", "male", -0.1),
                ("pilot", "female", 0.1),
                ("pilot", "male", 0.4),
            ]
        ],
        columns=study.STRENGTH_COLUMNS,
    )
    clip = study.score_rows(strengths, data, "clip", 0, "inputs")
    shift = study.score_rows(strengths, data, "shift", 0, "inputs")
    assert set(clip["settings"]) == {f"negative:clip|v:{__version__}"}
    assert not set(clip["signature"]) & set(shift["signature"])
