"""Paired comparisons of two models on the same units (biasbench.studies.paired): McNemar's
exact and mid-p forms, the sign test and the sign-flip permutation test on hand cases, their
level by simulation, and the paired interval's coverage when items share a term (resampling
the term, not the item)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from biasbench.studies import paired


def test_mcnemar_by_hand():
    # b = 8, c = 2 of 10 discordant: P(X <= 2) = (1 + 10 + 45) / 1024, doubled
    assert paired.mcnemar(8, 2) == pytest.approx(112 / 1024)
    # mid-p: the observed count's probability (45 / 1024) counted half
    assert paired.mcnemar(8, 2, mid_p=True) == pytest.approx(2 * (56 - 22.5) / 1024)
    assert paired.mcnemar(10, 0) == pytest.approx(2 / 1024)
    assert paired.mcnemar(5, 5) == 1.0 and paired.mcnemar(0, 0) == 1.0
    with pytest.raises(ValueError, match="counts"):
        paired.mcnemar(-1, 3)


@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_is_symmetric_and_mid_p_never_above_exact(b, c):
    p = paired.mcnemar(b, c)
    assert p == paired.mcnemar(c, b) and 0 < p <= 1
    assert paired.mcnemar(b, c, mid_p=True) <= p + 1e-12


def test_discordant_counts_and_the_sign_test_by_hand():
    first = np.array([1, 1, 0, 1, 0, 1], bool)
    second = np.array([0, 1, 1, 0, 0, 0], bool)
    assert paired.discordant(first, second) == (3, 1)
    # 3 positive, 1 negative, one tie dropped: 2 x P(X <= 1 | 4) = 2 x 5 / 16
    assert paired.sign_test(np.array([1.0, 2.0, -1.0, 3.0, 0.0])) == pytest.approx(10 / 16)
    with pytest.raises(ValueError, match="different lengths"):
        paired.discordant(first, second[:3])


def test_the_sign_flip_test_by_hand():
    """[1, 2, 3]: of the 8 flips only all + and all - reach |mean| 2: p = 2 / 8, the floor;
    [1, -1]: the observed mean 0 is reached by every flip: p = 1."""
    assert paired.paired_permutation(np.array([1.0, 2.0, 3.0])) == (0.25, 0.25)
    assert paired.paired_permutation(np.array([1.0, -1.0]))[0] == 1.0
    many = np.full(40, 1.0)  # beyond the enumerated sizes: drawn flips, the floor 1 / (n + 1)
    p, floor = paired.paired_permutation(many, n_perm=999)
    assert floor == pytest.approx(1 / 1000) and p == pytest.approx(1 / 1000)
    # items that share a unit flip together: [1, 2] of one term and [3] of another are two
    # units of sums 3 and 3, so 2 of the 4 flips reach |6|
    assert paired.paired_permutation(np.array([1.0, 2.0, 3.0]), ["a", "a", "b"]) == (0.5, 0.5)


def test_the_paired_tests_hold_their_level_by_simulation():
    """Two exchangeable models (per-unit differences symmetric about 0): over 400 seeded
    studies the sign-flip test, the sign test and McNemar reject at about 5% (each within
    the binomial band that a 5% test leaves at 400 draws, the discrete tests at most)."""
    rng = np.random.default_rng(3)
    flips = signs = mcnemars = 0
    for i in range(400):
        shared = rng.normal(size=30)  # each unit's difficulty, the same for both models
        first = shared + rng.normal(size=30)
        second = shared + rng.normal(size=30)
        flips += paired.paired_permutation(first - second, seed=i, n_perm=499)[0] < 0.05
        signs += paired.sign_test(first - second) < 0.05
        mcnemars += paired.mcnemar(*paired.discordant(first > 0.5, second > 0.5)) < 0.05
    assert 0.025 <= flips / 400 <= 0.075
    assert signs / 400 <= 0.075 and mcnemars / 400 <= 0.075


def _terms_study(rng, terms=40, per_term=5, shift=0.3):
    """Items that share a target term: each term's difficulty (both models) and its own
    change between the models (the debiasing works more on some terms) are shared by its
    items; the true difference of the means is ``shift``."""
    units = np.repeat(np.arange(terms), per_term)
    difficulty = np.repeat(rng.normal(size=terms), per_term)
    change = np.repeat(rng.normal(loc=shift, scale=0.6, size=terms), per_term)
    first = difficulty + change + rng.normal(scale=0.3, size=len(units))
    second = difficulty + rng.normal(scale=0.3, size=len(units))
    return first, second, units


def test_the_paired_interval_covers_when_it_resamples_the_term_not_the_item():
    """400 seeded studies of 40 terms x 5 items: the interval that draws whole terms covers
    the true difference in at least 93%, the one that draws items as if independent in
    under 90% (the items of a term share its change)."""
    rng = np.random.default_rng(11)
    by_term = by_item = 0
    for _ in range(400):
        first, second, units = _terms_study(rng)
        _d, low, high = paired.paired_interval(first, second, units, np.mean, rng, n_boot=300)
        by_term += low <= 0.3 <= high
        _d, low, high = paired.paired_interval(
            first, second, np.arange(len(units)), np.mean, rng, n_boot=300
        )
        by_item += low <= 0.3 <= high
    assert by_term / 400 >= 0.93
    assert by_item / 400 < 0.90


def test_the_paired_interval_by_hand_and_its_edges():
    first, second = np.array([1.0, 2.0, 3.0]), np.array([0.0, 2.0, 2.0])
    d, low, high = paired.paired_interval(
        first, second, ["a", "a", "a"], np.mean, np.random.default_rng(0)
    )
    assert d == pytest.approx(2 / 3) and np.isnan(low) and np.isnan(high)  # one unit
    d, low, high = paired.paired_interval(
        first, second, ["a", "b", "c"], np.mean, np.random.default_rng(0), n_boot=500
    )
    assert low <= d <= high and low >= 0.0 and high == pytest.approx(1.0)  # differences 1, 0, 1
    with pytest.raises(ValueError, match="one entry per item"):
        paired.paired_interval(first, second[:2], ["a", "b"], np.mean, np.random.default_rng(0))


def test_the_detectable_difference_by_hand():
    # sd 1 over 100 units at 0.05: (1.960 + 0.842) / 10
    assert paired.detectable_difference(1.0, 100, 0.05) == pytest.approx(0.2802, abs=1e-4)
    assert np.isnan(paired.detectable_difference(1.0, 1, 0.05))
