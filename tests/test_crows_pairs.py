"""CrowS-Pairs and AUL: hand-computed scores, ties, and the roles of the pair."""

import numpy as np
import pytest

from biasbench.methods.contract import PairScores, Settings
from biasbench.methods.probability.crows_pairs import CROWS_PAIRS, stereotype_preferred


def pairs(more, less, stereo):
    return PairScores(
        np.array(more, float), np.array(less, float), np.array(stereo), np.array(["c"] * len(more))
    )


def test_hand_computed_with_antistereo_rows_and_a_tie():
    # "more" is the more stereotyping sentence on every row, antistereo rows included (the
    # authors' metric.py counts sent_more > sent_less on both directions): pair 3, an
    # antistereo pair whose "less" sentence scores higher, is not a stereotype preference
    inputs = pairs([-3.0, -1.0, -2.0, -5.0], [-4.0, -0.5, -1.0, -5.0], [True, True, False, True])
    preferred, tie = stereotype_preferred(inputs)
    assert preferred.tolist() == [True, False, False, False]
    assert tie.tolist() == [False, False, False, True]
    res = CROWS_PAIRS(inputs, Settings(), 0)
    assert res.effect_size == pytest.approx(25.0)  # 1 of 4
    assert "1 tied pairs" in res.note
    assert res.p_value == pytest.approx(1.0)  # 1 of 3 untied: binomial p = 1


def test_the_direction_of_a_pair_does_not_enter_the_score():
    rng = np.random.default_rng(1)
    more, less = rng.normal(size=40), rng.normal(size=40)
    stereo = rng.random(40) < 0.5
    flipped = pairs(more, less, ~stereo)
    assert CROWS_PAIRS(pairs(more, less, stereo), Settings(), 0).effect_size == pytest.approx(
        CROWS_PAIRS(flipped, Settings(), 0).effect_size
    )
    assert CROWS_PAIRS(flipped, Settings(), 0).effect_size == pytest.approx(
        100 * np.mean(more > less)
    )


def test_swapping_the_roles_gives_100_minus_the_score():
    rng = np.random.default_rng(0)
    inputs = pairs(rng.normal(size=50), rng.normal(size=50), rng.random(50) < 0.7)
    assert CROWS_PAIRS(inputs.swapped(), Settings(), 0).effect_size == pytest.approx(
        100 - CROWS_PAIRS(inputs, Settings(), 0).effect_size
    )


def test_aula_is_the_mean_of_attention_times_log_likelihood_and_its_weighted_variant():
    """Kaneko & Bollegala's AULA: mean_t(alpha_t * ll_t); the weighted mean
    sum(alpha * ll) / sum(alpha) is a named variant. On this pair they disagree."""
    from biasbench.scoring.datasets import AUL_SCORES

    a_lp, a_alpha = np.array([-1.0, -3.0]), np.array([0.5, 0.1])
    b_lp, b_alpha = np.array([-2.0]), np.array([0.1])
    assert AUL_SCORES["mlm-aul"](a_lp, a_alpha) == pytest.approx(-2.0)
    assert AUL_SCORES["mlm-aula"](a_lp, a_alpha) == pytest.approx((-0.5 - 0.3) / 2)
    assert AUL_SCORES["mlm-aula"](b_lp, b_alpha) == pytest.approx(-0.2)
    assert AUL_SCORES["mlm-aula-weighted"](a_lp, a_alpha) == pytest.approx(-0.8 / 0.6)
    assert AUL_SCORES["mlm-aula-weighted"](b_lp, b_alpha) == pytest.approx(-2.0)
    # the reference prefers b (-0.2 > -0.4), the weighted variant a (-1.33 > -2)
    ref = [AUL_SCORES["mlm-aula"](lp, w) for lp, w in ((a_lp, a_alpha), (b_lp, b_alpha))]
    var = [AUL_SCORES["mlm-aula-weighted"](lp, w) for lp, w in ((a_lp, a_alpha), (b_lp, b_alpha))]
    assert ref[0] < ref[1] and var[0] > var[1]


def test_p_word_is_the_binomial_p_the_pairs_are_the_units():
    res = CROWS_PAIRS(pairs([1, 2, 3, 0], [0, 1, 2, 1], [True] * 4), Settings(), 0)
    assert res.p_word == res.p_value and np.isfinite(res.p_word)
