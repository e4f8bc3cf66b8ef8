"""The word-level test within word-piece counts as every target-exchanging method's named
variant (``p_word_strata``): each stimulus' stratum read from the pieces the extraction
pooled, the methods' stratified p equal to the library's test on a hand case, equal to the
plain word test where every word has the same count, at its floor of 1 where the counts
split X from Y, and absent where there are no pieces (static vectors)."""

import numpy as np
import pandas as pd
import pytest

from biasbench.inference import word_permutation_tests_mean_difference
from biasbench.methods.contract import ContextVectors
from biasbench.methods.embedding.vectors import target_words
from biasbench.methods.registry import get
from biasbench.scoring.embeddings import score_file, stimulus_groups, stimulus_strata
from biasbench.scoring.settings import ScoreSettings
from biasbench.stats import derived_seed

STIMULI = {
    "X": ["x1", "x2", "x3", "x4"],
    "Y": ["y1", "y2", "y3", "y4"],
    "A": ["a1", "a2", "a3"],
    "B": ["b1", "b2", "b3"],
}
SETTINGS = ScoreSettings(seed=2, exact_max=10**4, n_samples=500, ceat_samples=200)


def _frame_and_arrays(pieces_of, n_ctx=3, seed=0):
    """Contexts of every stimulus, X and A vectors one way, Y and B another; ``pieces_of``:
    stimulus -> the pieces of each of its contexts."""
    rng = np.random.default_rng(seed)
    rows = [(role, s) for role, words in STIMULI.items() for s in words for _ in range(n_ctx)]
    frame = pd.DataFrame(rows, columns=["role", "stimulus"])
    frame["context_id"] = range(len(frame))
    vecs = rng.normal(scale=0.3, size=(len(frame), 6)).astype(np.float32)
    vecs[frame["role"].isin(["X", "A"]).to_numpy(), 0] += 1
    vecs[frame["role"].isin(["Y", "B"]).to_numpy(), 1] += 1
    arrays = {e: vecs for e in ("word/mean", "word/first", "word/last", "sent/cls")}
    arrays |= {"sent/last": vecs, "sent/mean": vecs, "valid": np.ones(len(frame), bool)}
    if pieces_of is not None:
        counts = [pieces_of(s, i % n_ctx) for i, s in enumerate(frame["stimulus"])]
        arrays["pieces"] = np.array(counts, np.int32)
    return frame, arrays


def _rows(pieces_of, kind="transformer"):
    frame, arrays = _frame_and_arrays(pieces_of)
    if kind == "static":
        frame = frame.drop_duplicates("stimulus").reset_index(drop=True)
        arrays = {
            "word/mean": arrays["word/mean"][: len(frame)],
            "valid": np.ones(len(frame), bool),
        }
    out = score_file(
        frame,
        arrays,
        model="m",
        kind=kind,
        is_decoder=False,
        source="templates" if kind != "static" else "words",
        test="T",
        descriptor="names",
        settings=SETTINGS,
        signature="s",
        expected=STIMULI,
        primary_only=True,
    )
    return out.set_index("method")


def test_a_stimulus_stratum_is_the_count_most_of_its_usable_contexts_give():
    frame = pd.DataFrame(
        {
            "role": ["X", "X", "X", "X", "X", "Y", "Y"],
            "stimulus": ["b", "b", "a", "a", "b", "c", "c"],
        }
    )
    pieces = np.array([2, 2, 1, 3, 1, 2, 4])
    valid = np.array([True, True, True, True, True, False, True])
    groups, _ = stimulus_groups(frame, np.ones((7, 2)), valid)
    strata = stimulus_strata(frame, pieces, valid, groups)
    # b: 2, 2, 1 -> 2; a: 1, 3 (a tie) -> 1; c: its one usable context -> 4
    assert strata["X"] == [2, 1] and strata["Y"] == [4]
    assert [len(g) for g in groups["X"]] == [3, 2]  # the same order as the groups


def test_swapping_the_targets_swaps_their_strata():
    inputs = ContextVectors({"X": [1], "Y": [2]}, strata={"X": [1], "Y": [2]})
    assert inputs.swapped().strata == {"X": [2], "Y": [1]}


def test_the_stratified_p_is_the_librarys_test_on_the_same_words():
    """x1, x2, y1, y2 have one piece, the others two: the methods' p_word_strata equals the
    word test with those strata called directly on WEAT's per-context associations."""
    one_piece = {"x1", "x2", "y1", "y2"}
    rows = _rows(lambda s, _i: 1 if s in one_piece else 2)
    s_seat = get("s-SEAT")
    frame, arrays = _frame_and_arrays(lambda s, _i: 1 if s in one_piece else 2)
    groups, _ = stimulus_groups(frame, arrays["sent/cls"], arrays["valid"], STIMULI)
    strata = stimulus_strata(frame, arrays["pieces"], arrays["valid"], groups)
    seed = derived_seed(SETTINGS.seed, "m", "templates", "T", "names")
    score = s_seat(ContextVectors(groups, None, strata), SETTINGS.for_source("templates"), seed)
    from biasbench.methods.embedding.weat import weat

    items = {r: np.concatenate(groups[r]) for r in "XYAB"}
    res = weat(*(items[r] for r in "XYAB"), exact_max=10**4, n_samples=500, seed=seed)
    (direct,) = word_permutation_tests_mean_difference(
        res.s,
        target_words(groups["X"], groups["Y"]),
        range(4),
        ("greater",),
        exact_max=10**4,
        n_samples=500,
        seed=derived_seed(seed, "p_word_strata"),
        stratum_of=dict(enumerate([*strata["X"], *strata["Y"]])),
    )
    assert score.p_word_strata == pytest.approx(direct.p_value)
    assert rows.loc["s-SEAT", "p_word_strata"] == pytest.approx(direct.p_value)
    # C(2,2)... each stratum of 2 X and 2 Y words: 6 x 6 = 36 splits, the observed one extreme
    assert direct.p_value == pytest.approx(1 / 36) and direct.floor == pytest.approx(1 / 36)
    assert score.p_word == pytest.approx(1 / 70)  # the plain test: C(8, 4) splits


@pytest.mark.parametrize("method", ["s-SEAT", "w-SEAT", "RND", "CEAT"])
def test_one_piece_count_for_every_word_gives_the_plain_word_test(method):
    rows = _rows(lambda _s, _i: 1)
    assert rows.loc[method, "p_word_strata"] == pytest.approx(rows.loc[method, "p_word"])
    assert rows.loc[method, "p_word_strata_floor"] == pytest.approx(
        rows.loc[method, "p_word_floor"]
    )


@pytest.mark.parametrize("method", ["s-SEAT", "RND", "CEAT"])
def test_counts_that_split_x_from_y_leave_nothing_to_exchange(method):
    """Every X word one piece, every Y word two: each stratum is one-sided, the design has
    the observed split alone, p = floor = 1 (the data cannot speak for the targets), where
    the plain word test rejects."""
    rows = _rows(lambda s, _i: 1 if s.startswith("x") else 2)
    assert rows.loc[method, "p_word_strata"] == 1 and rows.loc[method, "p_word_strata_floor"] == 1
    assert rows.loc[method, "p_word"] < 0.05


def test_no_pieces_no_stratified_test():
    for rows in (_rows(None), _rows(None, kind="static")):
        tested = rows[rows["p_word"].notna()]
        assert len(tested) and tested["p_word_strata"].isna().all()


def test_attribute_exchanging_methods_have_no_stratified_test():
    rows = _rows(lambda _s, _i: 1)
    assert np.isnan(rows.loc["SAME", "p_word_strata"])
