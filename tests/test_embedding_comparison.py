"""Two models' embedding measures compared on a test's units: the exchange test and the
interval by hand, their level and coverage by simulation, a planted direction found where it
was projected out, and the measures that cannot be compared said so."""

import numpy as np
import pandas as pd
import pytest

from biasbench.encodings import available_encodings
from biasbench.methods.contract import (
    ON_STUDY,
    WHY_TEST,
    ContextVectors,
    Method,
    Settings,
    Truth,
)
from biasbench.rows import Score
from biasbench.studies.embedding_comparison import (
    ModelVectors,
    embedding_rows,
    paired_measure,
    stimulus_units,
)
from biasbench.studies.model_comparison import compare_models


def _first_coordinate(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    """The mean first coordinate of X's contexts minus Y's: a statistic checked by hand."""
    x = np.concatenate(inputs.groups["X"])[:, 0].mean()
    y = np.concatenate(inputs.groups["Y"])[:, 0].mean()
    return Score(float(x - y), 1.0)


TOY = Method(
    "toy",
    "",
    "embedding",
    ContextVectors,
    _first_coordinate,
    ("word/mean",),
    roles=("X", "Y"),
    truth=Truth("difference", ON_STUDY, WHY_TEST),
)


def contexts(words: dict[str, int], per_word: int = 1) -> pd.DataFrame:
    """A test's contexts: per role, its words, each with ``per_word`` contexts."""
    rows = [
        (role, f"{role}{w}") for role, n in words.items() for w in range(n) for _ in range(per_word)
    ]
    return pd.DataFrame(rows, columns=["role", "stimulus"])


def column(values) -> np.ndarray:
    """Per-row vectors whose first coordinate is ``values`` (a second, constant, beside it)."""
    return np.stack([np.asarray(values, float), np.ones(len(values))], axis=1)


def test_the_exchange_test_by_hand():
    # X1 = 2, X2 = 1, Y1 = 0 on the base model, 0 everywhere on the other: difference -1.5.
    # Exchanging X1 (f1) and X2 (f2) gives (4 f1 + 2 f2 - 3) / 2: |.| >= 1.5 in 2 of 4, Y1's
    # exchange changes nothing: 4 of the 8 arrangements, p 1/2; floor 2/8 (mirror ties)
    ctx = contexts({"X": 2, "Y": 1})
    units = stimulus_units(ctx, np.ones(3, bool), ("X", "Y"), None)
    assert units.kinds == ["X", "X", "Y"]
    row = paired_measure(TOY, units, column([2, 1, 0]), column([0, 0, 0]), Settings(), seed=1)
    assert (row["base_score"], row["against_score"], row["difference"]) == (1.5, 0.0, -1.5)
    assert (row["p_value"], row["p_floor"], row["units"], row["items"]) == (0.5, 0.25, 3, 3)


def test_a_words_contexts_move_together_and_a_pair_is_one_unit():
    # two contexts per word: 3 units, not 6 contexts; a declared pair (A0, B0) is one unit
    ctx = contexts({"X": 2, "Y": 1}, per_word=2)
    units = stimulus_units(ctx, np.ones(6, bool), ("X", "Y"), None)
    row = paired_measure(
        TOY, units, column([2, 2, 1, 1, 0, 0]), column([0] * 6), Settings(), seed=1
    )
    assert (row["p_value"], row["p_floor"], row["units"], row["items"]) == (0.5, 0.25, 3, 6)
    ctx = contexts({"X": 1, "Y": 1, "A": 2, "B": 2})
    units = stimulus_units(ctx, np.ones(6, bool), "XYAB", [("A0", "B0"), ("A1", "B9")])
    # B9 has no contexts: A1 and B1 are units of their own, A0 and B0 one
    assert units.kinds == ["pair", "X", "Y", "A", "B"]
    assert units.members[0] == [("A", 0), ("B", 0)]


def test_the_interval_resamples_units_for_both_models_alike():
    # every X word moved by exactly -1 on the other model: each bootstrap draw, the same words
    # for both, gives a difference of exactly -1, whatever it draws
    rng = np.random.default_rng(0)
    base = rng.normal(size=12)
    against = base - np.r_[np.ones(6), np.zeros(6)]
    units = stimulus_units(contexts({"X": 6, "Y": 6}), np.ones(12, bool), ("X", "Y"), None)
    row = paired_measure(TOY, units, column(base), column(against), Settings(), 3, 99, 200)
    assert row["difference"] == pytest.approx(-1)
    assert (row["low"], row["high"]) == (pytest.approx(-1), pytest.approx(-1))
    assert row["stderr"] == pytest.approx(0, abs=1e-12)


def _null_pair(rng, n_words, per_word, shift=0.0):
    """Two models of one test: each word a shared value, plus a value per model and word
    (shared by its contexts), plus noise per context; ``shift`` moves the second model's X."""
    words = 2 * n_words
    shared = rng.normal(size=words)
    own = [rng.normal(size=words) for _ in range(2)]
    unit = np.repeat(np.arange(words), per_word)
    x = (unit < n_words).astype(float)
    first = shared[unit] + own[0][unit] + 0.3 * rng.normal(size=len(unit))
    second = shared[unit] + own[1][unit] + 0.3 * rng.normal(size=len(unit)) + shift * x
    return first, second


def test_the_exchange_test_holds_its_level_where_a_context_exchange_does_not():
    # 400 null pairs of models whose contexts share their word's model-specific value: the
    # unit test rejects ~5% at 0.05 (standard error 1.1 points); exchanging contexts one by
    # one, as if independent, rejects far more often
    rng = np.random.default_rng(20261206)
    n_words, per_word, draws = 8, 4, 400
    ctx = contexts({"X": n_words, "Y": n_words}, per_word)
    by_word = stimulus_units(ctx, np.ones(len(ctx), bool), ("X", "Y"), None)
    by_context = stimulus_units(
        ctx.assign(stimulus=[f"c{i}" for i in range(len(ctx))]),
        np.ones(len(ctx), bool),
        ("X", "Y"),
        None,
    )
    rejects = {"word": 0, "context": 0}
    for i in range(draws):
        first, second = _null_pair(rng, n_words, per_word)
        for name, units in (("word", by_word), ("context", by_context)):
            row = paired_measure(TOY, units, column(first), column(second), Settings(), i, 99, 2)
            rejects[name] += row["p_value"] < 0.05
    assert rejects["word"] / draws <= 0.08
    assert rejects["context"] / draws >= 0.20


def test_the_interval_covers_the_shift_by_simulation():
    # the second model's X words moved by 0.8: the 95% interval over the units covers it in
    # ~95% of 300 draws (standard error 1.3 points); 90% fails an interval that ignores the
    # units' own spread
    rng = np.random.default_rng(7)
    n_words, per_word, draws = 15, 3, 300
    ctx = contexts({"X": n_words, "Y": n_words}, per_word)
    units = stimulus_units(ctx, np.ones(len(ctx), bool), ("X", "Y"), None)
    covered = 0
    for i in range(draws):
        first, second = _null_pair(rng, n_words, per_word, shift=0.8)
        row = paired_measure(TOY, units, column(first), column(second), Settings(), i, 1, 400)
        covered += row["low"] <= 0.8 <= row["high"]
    assert covered / draws >= 0.90


def _planted_test(rng, dim=24, n=8, per_word=3):
    """A test's contexts and a model with a direction planted on it (+ on X and A, - on Y and
    B), the same model with that direction projected out, and its twin without the plant."""
    ctx = contexts({"X": n, "Y": n, "A": n, "B": n}, per_word)
    word = {s: rng.normal(size=dim) for s in ctx["stimulus"].unique()}
    noise = 0.2 * rng.normal(size=(len(ctx), dim))
    twin = np.stack([word[s] for s in ctx["stimulus"]]) + noise
    direction = np.eye(dim)[0]
    sign = ctx["role"].map({"X": 1, "A": 1, "Y": -1, "B": -1}).to_numpy()[:, None]
    planted = twin + 4.0 * sign * direction
    projected = planted - np.outer(planted @ direction, direction)
    return ctx, twin, planted, projected


def _vectors(ctx, vectors):
    available = available_encodings("transformer", False)
    arrays = {e: vectors for e in available} | {"valid": np.ones(len(ctx), bool)}
    return ModelVectors(ctx, arrays, "transformer", available)


def test_a_planted_direction_projected_out_is_found_on_every_family_twins_differ_nowhere():
    ctx, twin, planted, projected = _planted_test(np.random.default_rng(11))
    pairs = [(f"A{i}", f"B{i}") for i in range(8)]
    settings = Settings(ceat_samples=100)

    def compare(first, second, names):
        rows, left_out = embedding_rows(
            _vectors(ctx, first),
            _vectors(ctx, second),
            test="toy",
            names=names,
            pairs=pairs,
            settings=settings,
            seed=5,
            n_perm=1999,
            n_boot=100,
        )
        assert left_out == []
        return compare_models({}, names=names, seed=5, alpha=0.01, embedding=rows)

    moved = compare(planted, projected, ("planted", "projected")).set_index("method")
    # every measure that reads the planted direction falls, found at 0.01 after Holm
    for method in ("s-SEAT", "w-SEAT", "CEAT", "RND", "RIPA", "SAME", "Direct Bias"):
        assert moved.loc[method, "significant"], method
        assert moved.loc[method, "high"] < 0, method
    same = compare(twin, twin.copy(), ("twin", "twin copy"))
    assert (same["difference"] == 0).all() and (same["p_value"] == 1).all()
    assert not same["significant"].any()


def test_models_of_two_dimensions_are_not_compared_and_the_reason_is_kept():
    ctx, twin, planted, _ = _planted_test(np.random.default_rng(2))
    rows, left_out = embedding_rows(
        _vectors(ctx, twin),
        _vectors(ctx, planted[:, :10]),
        test="toy",
        names=("a", "b"),
        pairs=None,
        settings=Settings(),
        seed=0,
    )
    assert rows == []
    assert {item["method"] for item in left_out} >= {"s-SEAT", "RND", "CEAT"}
    assert all("differ in dimension (24 and 10)" in item["why"] for item in left_out)
    other = _vectors(ctx.assign(stimulus=ctx["stimulus"][::-1].to_numpy()), twin)
    rows, left_out = embedding_rows(
        _vectors(ctx, twin),
        other,
        test="toy",
        names=("a", "b"),
        pairs=None,
        settings=Settings(),
        seed=0,
    )
    assert rows == [] and "different contexts" in left_out[0]["why"]


def test_sampled_arrangements_stop_at_twenty_that_reach_the_observed_difference():
    # 14 units (sampled, not enumerated); the two models' X means are equal, so the observed
    # difference is 0 and every arrangement reaches it: Besag & Clifford's p is 20 / 20
    ctx = contexts({"X": 7, "Y": 7})
    units = stimulus_units(ctx, np.ones(14, bool), ("X", "Y"), None)
    base = column([1, 0, 1, 0, 1, 0, 1] + [0] * 7)
    against = column([0, 1, 0, 1, 0, 1, 1] + [0] * 7)
    row = paired_measure(TOY, units, base, against, Settings(), seed=2, n_perm=999, n_boot=2)
    assert row["difference"] == 0
    assert (row["p_value"], row["p_floor"]) == (1.0, pytest.approx(1 / 1000))


def test_rnds_exchange_test_and_interval_by_hand():
    # v_A = (1, 0), v_B = (0, 1) on both models; rnd((1, 0)) = sqrt 2, rnd((0, 1)) = -sqrt 2.
    # The base puts X at (1, 0), Y at (0, 1): 2 sqrt 2; the other the reverse: -2 sqrt 2.
    # Exchanging X's unit alone (or Y's alone) gives both models 0, both or neither keep
    # |4 sqrt 2|: 2 of 4 arrangements of X and Y, A's and B's exchange changes nothing:
    # 8 of 16, p 1/2 (floor 2/16). One unit a role: every resample is the observed one.
    from biasbench.methods.embedding.rnd import RND

    ctx = contexts({"X": 1, "Y": 1, "A": 1, "B": 1})
    units = stimulus_units(ctx, np.ones(4, bool), "XYAB", None)
    base = np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]])
    against = np.array([[0.0, 1], [1, 0], [1, 0], [0, 1]])
    row = paired_measure(RND, units, base, against, Settings(), seed=0, n_boot=50)
    root2 = np.sqrt(2)
    assert row["base_score"] == pytest.approx(2 * root2)
    assert row["against_score"] == pytest.approx(-2 * root2)
    assert (row["p_value"], row["p_floor"]) == (0.5, 2 / 16)
    assert (row["low"], row["high"]) == (pytest.approx(-4 * root2), pytest.approx(-4 * root2))
