import numpy as np
import pandas as pd
import pytest

from biasbench.encodings import available_encodings
from biasbench.errors import InputError
from biasbench.methods.registry import get
from biasbench.rows import COLUMNS
from biasbench.scoring.embeddings import score_file
from biasbench.scoring.settings import ScoreSettings
from biasbench.stats import derived_seed

STIMULI = {"X": ["x1", "x2", "x3"], "Y": ["y1", "y2", "y3"], "A": ["a1", "a2"], "B": ["b1", "b2"]}


#: a contextual model's templates file, as the scoring stage describes it
CONTEXTUAL = dict(
    model="m",
    kind="transformer",
    is_decoder=False,
    source="templates",
    test="T",
    descriptor="names",
    signature="sig",
)


def frame_and_arrays(n_ctx=2, seed=0):
    rng = np.random.default_rng(seed)
    rows = [(role, s) for role, words in STIMULI.items() for s in words for _ in range(n_ctx)]
    frame = pd.DataFrame(rows, columns=["role", "stimulus"])
    frame["context_id"] = range(len(frame))
    vecs = rng.normal(scale=0.1, size=(len(frame), 4)).astype(np.float32)
    vecs[frame["role"].isin(["X", "A"]).to_numpy(), 0] += 1  # X and A point one way,
    vecs[frame["role"].isin(["Y", "B"]).to_numpy(), 1] += 1  # Y and B another
    return frame, {"word/mean": vecs, "valid": np.ones(len(frame), bool)}


def score(frame, arrays, undefined_as_na=False, **kw):
    settings = ScoreSettings(**{"exact_max": 10**6, "n_samples": 1000, **kw})
    return score_file(
        frame,
        arrays,
        model="m",
        kind="static",
        is_decoder=False,
        source="words",
        test="T",
        descriptor="names",
        settings=settings,
        signature="sig",
        undefined_as_na=undefined_as_na,
    )


def test_static_scores_and_units():
    frame, arrays = frame_and_arrays()
    by_context = score(frame, arrays).iloc[0]
    by_stimulus = score(frame, arrays, unit="stimulus").iloc[0]
    assert by_context["method"] == "WEAT" and by_context["n_x"] == 6 and by_stimulus["n_x"] == 3
    assert by_context["effect_size"] > 1 and by_stimulus["effect_size"] > 1
    assert by_stimulus["exact"] and by_stimulus["n_partitions"] == 20
    assert by_stimulus["p_value"] == pytest.approx(1 / 20)


def test_oov_stimuli_are_dropped_and_counted():
    frame, arrays = frame_and_arrays(n_ctx=1)
    arrays["valid"][frame.index[frame["stimulus"] == "b2"]] = False
    row = score(frame, arrays, max_drop_share=0.5).iloc[0]
    assert row["dropped_B"] == 1 and row["n_b"] == 1 and row["dropped"] == "B:b2"
    assert np.isfinite(row["effect_size"]) and row["note"] == ""
    # beyond the drop policy: no score, and a note that says why
    row = score(frame, arrays, max_drop_share=0.2).iloc[0]
    assert np.isnan(row["effect_size"]) and np.isnan(row["p_value"])
    assert row["note"] == ("coverage: set B lost 1 of 2 stimuli (50% > max_drop_share 20%): ['b2']")
    assert list(score(frame, arrays).columns) == COLUMNS


def test_same_settings_same_bytes():
    frame, arrays = frame_and_arrays()
    a = score(frame, arrays, exact_max=1).to_csv()
    b = score(frame, arrays, exact_max=1).to_csv()
    assert a == b
    assert derived_seed(1, "m", "T") != derived_seed(2, "m", "T")


def test_primary_encodings_follow_what_the_model_provides():
    s_seat = get("s-SEAT")
    assert s_seat.encodings_for(available_encodings("transformer", False))[0] == "sent/cls"
    assert s_seat.encodings_for(available_encodings("transformer", True))[0] == "sent/last"
    assert "sent/cls" not in available_encodings("transformer", True)
    assert available_encodings("static", False) == ("word/mean",)


def test_bad_unit():
    frame, arrays = frame_and_arrays()
    with pytest.raises(InputError, match="scoring.unit"):
        score(frame, arrays, unit="sentence")


def test_contextual_models_get_ceat_rows():
    frame, arrays = frame_and_arrays(n_ctx=3)
    for key in ("sent/cls", "sent/last", "sent/mean", "word/first", "word/last"):
        arrays[key] = arrays["word/mean"]
    out = score_file(
        frame,
        arrays,
        settings=ScoreSettings(exact_max=10**6, n_samples=500, ceat_samples=300),
        **CONTEXTUAL,
    )
    ceat_rows = out[out["method"] == "CEAT"]
    assert len(ceat_rows) == 6 and (ceat_rows["n_x"] == 3).all()  # no tokenizer: no reduced
    assert ceat_rows.loc[ceat_rows["primary"], "encoding"].tolist() == ["word/mean"]
    assert (ceat_rows["effect_size"] > 1).all() and (ceat_rows["p_value"] < 0.01).all()
    assert ceat_rows["se"].notna().all() and out.loc[out["method"] != "CEAT", "se"].isna().all()


def test_reduced_ceat_equals_ceat_on_the_reduced_word_set():
    """CEAT on targets reduced to the vocabulary = CEAT on a table without the others."""
    frame, arrays = frame_and_arrays(n_ctx=3)
    arrays = (
        {e: arrays["word/mean"] for e in ("sent/cls", "sent/last", "sent/mean")}
        | {e: arrays["word/mean"] for e in ("word/mean", "word/first", "word/last")}
        | {"valid": arrays["valid"]}
    )
    settings = ScoreSettings(exact_max=10**6, n_samples=1000, ceat_samples=200)
    common = dict(
        model="m",
        kind="transformer",
        is_decoder=False,
        source="templates",
        test="T",
        descriptor="names",
        settings=settings,
        signature="s",
    )
    samples = {}
    single = set(frame["stimulus"]) - {"x3"}
    rows = score_file(frame, arrays, single_token=single, samples=samples, **common)
    reduced = rows.set_index(["method", "encoding", "variant"]).loc[
        ("CEAT", "word/mean", "reduced")
    ]
    keep = (frame["stimulus"] != "x3").to_numpy()
    direct = (
        score_file(
            frame[keep].reset_index(drop=True), {k: v[keep] for k, v in arrays.items()}, **common
        )
        .set_index(["method", "encoding", "variant"])
        .loc[("CEAT", "word/mean", "full")]
    )
    assert reduced["effect_size"] == pytest.approx(direct["effect_size"])
    assert (
        reduced["n_x"] == 2 and reduced["dropped"] == "" and reduced["p_value"] == direct["p_value"]
    )
    assert samples["CEAT|names|word/mean|reduced"].shape == (200,)


def test_definitional_pairs_keep_their_partners_when_a_word_is_dropped():
    """The pairs are matched by word, not by position: a2 unusable takes b2 with it, and
    (a1, b1) stays a pair even though B's contexts come in another order."""
    from biasbench.scoring.embeddings import definitional_pairs

    frame, arrays = frame_and_arrays(n_ctx=1)
    frame = pd.concat([frame[frame["role"] != "B"], frame[frame["role"] == "B"][::-1]])
    arrays = {k: v[frame.index.to_numpy()] for k, v in arrays.items()}
    frame = frame.reset_index(drop=True)
    valid = arrays["valid"].copy()
    valid[frame.index[frame["stimulus"] == "a2"]] = False
    pairs = definitional_pairs(frame, arrays["word/mean"], valid, [("a1", "b1"), ("a2", "b2")])
    assert len(pairs) == 1
    a1 = arrays["word/mean"][frame.index[frame["stimulus"] == "a1"]]
    b1 = arrays["word/mean"][frame.index[frame["stimulus"] == "b1"]]
    np.testing.assert_array_equal(pairs[0][0], a1)
    np.testing.assert_array_equal(pairs[0][1], b1)
    settings = ScoreSettings(exact_max=10**6, n_samples=1000)
    common = dict(model="m", kind="static", is_decoder=False, source="words", test="T")
    rows = score_file(
        frame,
        arrays,
        descriptor="names",
        settings=settings,
        signature="s",
        **common,
        pairs=[("a1", "b1"), ("a2", "b2")],
    ).set_index("method")
    assert rows.loc["Direct Bias", "n_a"] == 2 and np.isfinite(rows.loc["RIPA", "effect_size"])
    unpaired = score(frame, arrays).set_index("method")
    assert np.isnan(unpaired.loc["Direct Bias", "effect_size"])
    assert "declares no definitional pairs" in unpaired.loc["RIPA", "note"]


def test_primary_only_gives_the_primary_rows_unchanged():
    frame, arrays = frame_and_arrays(n_ctx=3)
    for key in ("sent/cls", "sent/last", "sent/mean", "word/first", "word/last"):
        arrays[key] = arrays["word/mean"] + 0.01 * len(key)  # each encoding its own vectors
    common = dict(
        CONTEXTUAL,
        settings=ScoreSettings(exact_max=10**6, n_samples=500, ceat_samples=300),
        single_token=set(frame["stimulus"]) - {"x3"},
    )
    everything = score_file(frame, arrays, **common)
    primary = score_file(frame, arrays, primary_only=True, **common)
    assert len(everything) > len(primary) == everything["method"].nunique()
    assert primary["primary"].all()
    pd.testing.assert_frame_equal(
        primary.reset_index(drop=True),
        everything[everything["primary"]].reset_index(drop=True),
    )


def test_a_word_in_a_target_and_an_attribute_set_is_noted_in_the_rows():
    """Legal, but the word's similarity to itself enters the score: WEAT's d was 1.08 with
    no note. Methods reading no attribute set get none; the stimuli without the word none."""
    frame, arrays = frame_and_arrays()
    frame.loc[frame["stimulus"] == "a1", "stimulus"] = "x1"  # x1 is in X and in A
    expected = {**STIMULI, "A": ["x1", "a2"]}
    settings = ScoreSettings(exact_max=10**6, n_samples=1000)
    rows = score_file(
        frame,
        arrays,
        model="m",
        kind="static",
        is_decoder=False,
        source="words",
        test="T",
        descriptor="names",
        settings=settings,
        signature="sig",
        expected=expected,
    ).set_index("method")
    note = "a word in a target and an attribute set: 'x1' (X and A)"
    assert note in rows.loc["WEAT", "note"]
    assert rows.loc["WEAT", "effect_size"] == rows.loc["WEAT", "effect_size"]  # still scored
    for method in rows.index:
        reads = set(get(method).roles)
        assert (note in rows.loc[method, "note"]) == ({"X", "A"} <= reads), method
    plain = score_file(
        *frame_and_arrays(),
        model="m",
        kind="static",
        is_decoder=False,
        source="words",
        test="T",
        descriptor="names",
        settings=settings,
        signature="sig",
        expected=STIMULI,
    )
    assert not plain["note"].str.contains("a target and an attribute").any()


def test_a_method_undefined_on_the_vectors_stops_a_model_and_is_na_on_a_null_copy():
    frame, arrays = frame_and_arrays()
    arrays["word/mean"][:] = 1.0  # every stimulus the same vector: no spread, no direction
    with pytest.raises(InputError, match="T/names on m, WEAT word/mean: all values are equal"):
        score(frame, arrays)
    rows = score(frame, arrays, undefined_as_na=True)
    undefined = rows[rows["note"].str.startswith("undefined on these vectors: ")]
    assert {"WEAT", "SAME"} <= set(undefined["method"])
    assert undefined["effect_size"].isna().all() and undefined["p_value"].isna().all()
    weat = rows[rows["method"] == "WEAT"]
    assert weat["note"].str.contains("all values are equal: the effect size is undefined").all()
    # the methods defined on equal vectors keep their scores
    assert rows["effect_size"].notna().any()
