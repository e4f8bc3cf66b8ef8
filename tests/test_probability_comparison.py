"""LPBS and p-CEAT of two models compared on the attribute word: the exchange test by hand,
each model's score the method's own, the interval on a shift every word shares, p-CEAT with one
context per pair equal to LPBS on one template, level, power and coverage by simulation, and
models that read different contexts, or probabilities of another kind, not compared."""

import numpy as np
import pandas as pd
import pytest

from biasbench.methods.contract import Settings, TemplateLogProbs
from biasbench.methods.registry import get
from biasbench.studies.probability_comparison import (
    AttributeScores,
    attribute_measure,
    lpbs_scores,
    lpbs_template_rows,
    not_comparable,
    pceat_rows,
)


def one_template(bs, encoding="mlm") -> dict[str, np.ndarray]:
    """A model's LPBS arrays of one template, one X and one Y target whose bias scores are
    ``bs``: log p_t(X) = bs, every other log-probability 0."""
    bs = np.asarray(bs, float)
    log_pt = np.zeros((1, len(bs), 2))
    log_pt[0, :, 0] = bs
    return {
        "names|log_pt": log_pt,
        "names|log_pp": np.zeros_like(log_pt),
        **words_of(2, len(bs)),
        "encoding": np.array(encoding),
    }


def words_of(n_targets: int, n_attributes: int) -> dict[str, np.ndarray]:
    """The names an LPBS array file keeps beside its log-probabilities."""
    return {
        "names|targets": np.array([f"t{i}" for i in range(n_targets)]),
        "names|attributes": np.array([f"a{i}" for i in range(n_attributes)]),
    }


def test_lpbs_exchange_test_by_hand():
    # base scores A = (1, 2), B = (-1, -2): d = 3 / sd(1, 2, -1, -2) = 3 / 1.826 = 1.643; the
    # other model A = (1, 2), B = (1, 2): d = 0, difference -1.643. The A words agree, so
    # their exchange changes nothing; exchanging one B word gives d 1.155 and 0.707 (|.| 0.448),
    # none or both the full 1.643: 8 of the 16 arrangements, p 1/2, floor 2/16
    base = lpbs_scores(one_template([1, 2, -1, -2]), "names", n_x=1, n_a=2)
    against = lpbs_scores(one_template([1, 2, 1, 2]), "names", n_x=1, n_a=2)
    row = attribute_measure("LPBS", base, against, seed=1)
    assert row["base_score"] == pytest.approx(3 / np.sqrt(10 / 3))
    assert row["against_score"] == 0
    assert row["difference"] == pytest.approx(-3 / np.sqrt(10 / 3))
    assert (row["p_value"], row["p_floor"], row["units"], row["items"]) == (0.5, 0.125, 4, 4)


def test_each_models_lpbs_is_the_methods_own_score():
    # three templates, two targets a side: the comparison's score of each model is what LPBS
    # itself gives on the same log-probabilities
    rng = np.random.default_rng(4)
    arrays = {
        "names|log_pt": rng.normal(size=(3, 6, 4)),
        "names|log_pp": rng.normal(size=(3, 6, 4)),
        **words_of(4, 6),
        "encoding": np.array("mlm"),
    }
    other = {**arrays, "names|log_pt": arrays["names|log_pt"] + rng.normal(size=(3, 6, 4))}
    row = attribute_measure(
        "LPBS", *(lpbs_scores(a, "names", n_x=2, n_a=3) for a in (arrays, other)), seed=2
    )
    own = get("LPBS")
    for model, key in ((arrays, "base_score"), (other, "against_score")):
        inputs = TemplateLogProbs(model["names|log_pt"], model["names|log_pp"], 2, 3)
        assert row[key] == pytest.approx(own(inputs, Settings(), 1).effect_size)


def test_a_shift_every_word_shares_gives_a_zero_interval():
    # the other model's log p_t raised by 5 beside every attribute: its bias scores are the
    # base's plus 5, and LPBS' d (a difference over a spread) is the same on every draw that
    # resamples the words for both models alike: difference 0, interval [0, 0], p 1
    scores = [1.0, 2.5, 0.3, -1.0, -2.0, 0.4]
    base = lpbs_scores(one_template(scores), "names", n_x=1, n_a=3)
    shifted = lpbs_scores(one_template(np.add(scores, 5)), "names", n_x=1, n_a=3)
    row = attribute_measure("LPBS", base, shifted, seed=5, n_boot=300)
    assert row["difference"] == pytest.approx(0, abs=1e-12)
    assert (row["low"], row["high"]) == (pytest.approx(0, abs=1e-12), pytest.approx(0, abs=1e-12))
    assert row["p_value"] == 1.0


def test_a_masked_and_a_causal_lm_are_not_compared():
    rows, left = lpbs_template_rows(
        one_template([1, 2, -1, -2]),
        one_template([1, 2, 1, 2], encoding="causal"),
        {"names": _Words(SETS)},
        test="T",
        names=("b", "a"),
        seed=1,
    )
    assert rows == [] and "one model's probabilities are mlm, the other's causal" in left[0]["why"]


def contexts_of(bs: dict[str, float]) -> pd.DataFrame:
    """One context per (target, attribute) pair: log p_t of the X target is the attribute's
    bias score, everything else 0 (so each sample's bias scores are ``bs``)."""
    rows = [(t, w, 1, value if t == "x" else 0.0, 0.0) for w, value in bs.items() for t in "xy"]
    return pd.DataFrame(rows, columns=["target", "attribute", "gap", "log_pt", "log_pp"])


def arrays_of(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    return {k: frame[k].to_numpy() for k in frame} | {"encoding": np.array("mlm")}


class _Words:
    def __init__(self, sets):
        self.sets = sets


SETS = {"X": ("x",), "Y": ("y",), "A": ("a1", "a2"), "B": ("b1", "b2")}


def pceat_of(base: pd.DataFrame, against: pd.DataFrame):
    """p-CEAT's comparison of two models' contexts of SETS in a corpus, within 5 words."""
    return pceat_rows(
        arrays_of(base),
        arrays_of(against),
        {"names": _Words(SETS)},
        corpus="toy",
        test="T",
        max_gap=5,
        ceat_samples=50,
        names=("b", "a"),
        seed=3,
    )


def test_pceat_with_one_context_per_pair_is_lpbs_on_one_template():
    # every sample draws the one context of each pair: every d_i is LPBS' d, so the CES is it
    base = contexts_of({"a1": 1, "a2": 2, "b1": -1, "b2": -2})
    against = contexts_of({"a1": 1, "a2": 2, "b1": 1, "b2": 2})
    rows, left = pceat_of(base, against)
    assert left == []
    (row,) = rows
    assert row["dataset"] == "T/names (toy)" and row["method"] == "p-CEAT"
    assert row["difference"] == pytest.approx(-3 / np.sqrt(10 / 3))
    assert (row["p_value"], row["p_floor"], row["units"], row["items"]) == (0.5, 0.125, 4, 8)
    # a context beyond max_gap is left out of both
    far = pd.concat([base, base.iloc[:1].assign(gap=9, log_pt=50.0)], ignore_index=True)
    again, _ = pceat_of(
        far, pd.concat([against, against.iloc[:1].assign(gap=9)], ignore_index=True)
    )
    assert again[0]["difference"] == row["difference"]


def test_models_that_read_different_contexts_or_words_are_not_compared():
    base = contexts_of({"a1": 1, "a2": 2, "b1": -1, "b2": -2})
    # the same pairs, one of them read in a context of another gap: other contexts
    other = contexts_of({"a1": 1, "a2": 2, "b1": 1, "b2": 2}).assign(gap=[1] * 7 + [2])
    rows, left = pceat_of(base, other)
    assert rows == [] and "read different templates, contexts or words" in left[0]["why"]
    three = AttributeScores(np.zeros((1, 4)), 3, (), 4, "mlm")
    # words alike, another count of A words: refused too
    assert "read different templates, contexts or words" in not_comparable(
        AttributeScores(np.zeros((1, 4)), 2, (), 4, "mlm"), three
    )


def test_lpbs_template_rows_read_each_descriptor_from_the_arrays():
    arrays = [one_template(bs, encoding="causal") for bs in ([1, 2, -1, -2], [1, 2, 1, 2])]
    rows, left = lpbs_template_rows(
        *arrays, {"names": _Words(SETS)}, test="T", names=("b", "a"), seed=1
    )
    assert left == [] and rows[0]["encoding"] == "causal" and rows[0]["variant"] == "full"
    assert rows[0]["p_value"] == 0.5


def _word_scores(rng, n_words, shift=0.0, scale=1.0):
    """Two models' bias scores by attribute word: each word a shared value (A words higher),
    plus a value per model and word; ``shift`` moves the second model's A words."""
    a = np.r_[np.ones(n_words), np.zeros(n_words)]
    shared = rng.normal(size=2 * n_words) + a
    first = shared + scale * rng.normal(size=2 * n_words)
    second = shared + scale * rng.normal(size=2 * n_words) + shift * a
    return (AttributeScores(s[None, :], n_words, (), 2 * n_words, "mlm") for s in (first, second))


def test_the_exchange_test_holds_its_level_and_finds_a_moved_word_set():
    # 400 null pairs: ~5% rejected at 0.05 (standard error 1.1 points); a second model whose
    # A words fell by 1.5 is found in most draws
    rng = np.random.default_rng(20261206)
    draws, n_words = 400, 10
    null = sum(
        attribute_measure("LPBS", *_word_scores(rng, n_words), i, 199, 2)["p_value"] < 0.05
        for i in range(draws)
    )
    assert null / draws <= 0.08
    moved = sum(
        attribute_measure("LPBS", *_word_scores(rng, n_words, -1.5, 0.3), i, 199, 2)["p_value"]
        < 0.05
        for i in range(100)
    )
    assert moved >= 80


def test_the_interval_covers_the_difference_by_simulation():
    # LPBS' d of a word population with A ~ N(1, 1), B ~ N(-1, 1) is 2 / sqrt(2); the other
    # model's A ~ N(0.5, 1), B ~ N(-0.5, 1) (the words' values shared with noise) has
    # 1 / sqrt(1.25): the difference -0.520 is covered in ~95% of 300 draws of 15 words a set
    rng = np.random.default_rng(7)
    truth = 1 / np.sqrt(1.25) - 2 / np.sqrt(2)
    n, draws, covered = 15, 300, 0
    sign = np.r_[np.ones(n), -np.ones(n)]
    for i in range(draws):
        shared = rng.normal(size=2 * n)
        first = sign + 0.6 * shared + 0.8 * rng.normal(size=2 * n)
        second = 0.5 * sign + 0.6 * shared + 0.8 * rng.normal(size=2 * n)
        row = attribute_measure(
            "LPBS",
            AttributeScores(first[None, :], n, (), 2 * n, "mlm"),
            AttributeScores(second[None, :], n, (), 2 * n, "mlm"),
            i,
            1,
            400,
        )
        covered += row["low"] <= truth <= row["high"]
    assert covered / draws >= 0.90
