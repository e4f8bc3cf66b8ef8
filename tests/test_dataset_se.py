"""Every data-set score carries a standard error by resampling its units (seeded): near the
binomial's for CrowS-Pairs' share, larger where StereoSet's items cluster by target term (the
terms are resampled, as its score is a mean over terms), none for DisCo's counts."""

import numpy as np
import pytest

from biasbench.methods.contract import FillCounts, PairScores, Settings, TripleScores
from biasbench.methods.registry import get
from biasbench.scoring.datasets import bootstrap_se


def _pairs(n=400, share=0.6, seed=0):
    rng = np.random.default_rng(seed)
    preferred = rng.random(n) < share
    more = np.where(preferred, 1.0, -1.0)
    return PairScores(more, np.zeros(n), np.ones(n, bool), np.array(["gender"] * n))


def test_crows_pairs_se_is_the_binomials():
    inputs = _pairs()
    score = get("CrowS-Pairs")(inputs, Settings(), 0).effect_size / 100
    se = bootstrap_se(get("CrowS-Pairs"), inputs, Settings(), seed=1)
    assert se == pytest.approx(100 * np.sqrt(score * (1 - score) / 400), rel=0.1)
    assert se == bootstrap_se(get("CrowS-Pairs"), inputs, Settings(), seed=1)  # seeded


def test_stereoset_se_resamples_terms():
    """20 terms of 10 identical items each: resampling items would count 200 independent
    units; the terms are the 20 that vary, and the SE is that of 20."""
    rng = np.random.default_rng(2)
    per_term = rng.random(20) < 0.5
    stereo = np.repeat(np.where(per_term, 1.0, 0.0), 10)
    terms = np.repeat(np.array([f"t{i}" for i in range(20)]), 10)
    inputs = TripleScores(stereo, 1 - stereo, np.full(200, -5.0), terms)
    se = bootstrap_se(get("StereoSet SS"), inputs, Settings(), seed=0)
    share = per_term.mean()
    assert se == pytest.approx(100 * np.sqrt(share * (1 - share) / 20), rel=0.15)
    itemwise = TripleScores(stereo, 1 - stereo, np.full(200, -5.0), None)
    assert bootstrap_se(get("StereoSet SS"), itemwise, Settings(), seed=0) < se / 2


def test_counts_without_items_have_no_se():
    counts = FillCounts([{"nurse": (1, 3)}, {"doctor": (2, 0)}])
    assert np.isnan(bootstrap_se(get("DisCo"), counts, Settings(), seed=0))


def test_the_se_interval_covers_the_true_share_by_simulation():
    """600 simulated CrowS-Pairs runs of 200 pairs with a true preference of 0.6: the score
    +- 1.96 bootstrap SE covers 60 in about 95% of them (at least 92.5%, at most 97.5%). At
    600 runs a true 88% coverage passes with probability ~3e-4 (at 200 runs and a 91% bar:
    11%); a true 95% fails with ~0.3%."""
    covered = 0
    runs = 600
    for seed in range(runs):
        inputs = _pairs(n=200, share=0.6, seed=100 + seed)
        score = get("CrowS-Pairs")(inputs, Settings(), 0).effect_size
        se = bootstrap_se(get("CrowS-Pairs"), inputs, Settings(), seed=seed, resamples=200)
        covered += abs(score - 60.0) <= 1.96 * se
    assert 0.925 <= covered / runs <= 0.975, covered / runs
