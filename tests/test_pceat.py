import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from biasbench.errors import EmptySetError
from biasbench.methods.contract import ContextLogProbs, Settings
from biasbench.methods.probability.pceat import P_CEAT
from biasbench.scoring.corpus import context_cells

SETS = {"X": ["x"], "Y": ["y"], "A": ["a1", "a2"], "B": ["b1", "b2"]}


def contexts(cells: dict[tuple[str, str], list[float]]) -> pd.DataFrame:
    """One row per context; the prior is 0, so bs(a) = log-sum-exp of p_t over X minus Y."""
    rows = [(t, a, v, 0.0) for (t, a), values in cells.items() for v in values]
    return pd.DataFrame(rows, columns=["target", "attribute", "log_pt", "log_pp"])


def run(frame, sets=SETS, n=200, seed=0):
    """(score or None when too few attributes remain, the dropped stimuli per role)."""
    inputs = ContextLogProbs(context_cells(frame), {r: tuple(w) for r, w in sets.items()})
    try:
        score = P_CEAT(inputs, Settings(ceat_samples=n), seed)
    except EmptySetError as exc:
        return None, exc.dropped
    return score, {r: list(score.dropped.get(r, [])) for r in "XYAB"}


def test_one_context_per_pair_hand_computed():
    # bs = (2, 1, 0, -1): every sample is the same, so tau^2 = 0 and CES = d
    frame = contexts(
        {("x", "a1"): [2.0], ("x", "a2"): [1.0], ("x", "b1"): [0.0], ("x", "b2"): [-1.0]}
        | {("y", w): [0.0] for w in ("a1", "a2", "b1", "b2")}
    )
    res, dropped = run(frame, n=50)
    var = np.var([2, 1, 0, -1], ddof=1)
    d = 2 / np.sqrt(var)
    se = np.sqrt(var / 50)  # 50 identical samples, each with variance var
    assert res.effect_size == pytest.approx(d) and res.tau_squared == 0
    assert res.se == pytest.approx(se)
    assert res.p_value == pytest.approx(2 * norm.sf(d / se))
    assert dropped == {"X": [], "Y": [], "A": [], "B": []}


def test_attributes_without_both_target_sets_are_dropped():
    frame = contexts(
        {("x", w): [0.0] for w in ("a1", "a2", "b1", "b2")}
        | {("y", w): [1.0] for w in ("a1", "b1", "b2")}  # a2 never meets a Y target
    )
    res, dropped = run(frame)
    assert res is None and dropped["A"] == ["a2"]  # only one A attribute left: n/a


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-30, 0), min_size=16, max_size=16), st.integers(0, 2**31))
def test_swapping_attribute_sets_negates_the_combined_effect(values, seed):
    cells = {}
    for k, (t, a) in enumerate((t, a) for t in "xy" for a in ("a1", "a2", "b1", "b2")):
        cells[(t, a)] = values[2 * k : 2 * k + 2] if t == "x" else [values[k]]
    frame = contexts(cells)
    res, _ = run(frame, seed=seed)
    swapped, _ = run(
        frame, {"X": ["x"], "Y": ["y"], "A": ["b1", "b2"], "B": ["a1", "a2"]}, seed=seed
    )
    if res is None or not np.isfinite(res.effect_size):
        return
    assert swapped.effect_size == pytest.approx(-res.effect_size, abs=1e-9)
    assert swapped.p_value == pytest.approx(res.p_value, rel=1e-6, abs=1e-12)
    assert swapped.p_word == pytest.approx(res.p_word)
    assert res.samples.min() - 1e-9 <= res.effect_size <= res.samples.max() + 1e-9


def dense_reference_bias_scores(frame, sets, n, seed):
    """Eq. 10 per sample over dense (samples, attributes, targets) arrays, -inf where a pair
    has no context, with the same draws (one per cell, cells in word order)."""
    from scipy.special import logsumexp

    targets, attributes = sets["X"] + sets["Y"], sets["A"] + sets["B"]
    pt = np.full((n, len(attributes), len(targets)), -np.inf)
    pp = np.full_like(pt, -np.inf)
    rng = np.random.default_rng(seed)
    cells = frame.groupby(["attribute", "target"], sort=True)
    for (attribute, target), group in cells:
        values = group[["log_pt", "log_pp"]].to_numpy()
        pick = rng.integers(len(values), size=n)
        i, j = attributes.index(attribute), targets.index(target)
        pt[:, i, j], pp[:, i, j] = values[pick, 0], values[pick, 1]
    n_x = len(sets["X"])
    return (logsumexp(pt[:, :, :n_x], axis=2) - logsumexp(pp[:, :, :n_x], axis=2)) - (
        logsumexp(pt[:, :, n_x:], axis=2) - logsumexp(pp[:, :, n_x:], axis=2)
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31))
def test_sparse_sums_equal_the_dense_eq10(seed):
    """Only the pairs with contexts enter the sums: the same effect sizes as dense arrays
    padded with -inf (every attribute keeps some X and some Y target)."""
    gen = np.random.default_rng(seed)
    sets = {"X": ["x1", "x2", "x3"], "Y": ["y1", "y2"], "A": ["a1", "a2", "a3"], "B": ["b1", "b2"]}
    rows = []
    for a in sets["A"] + sets["B"]:
        present = [gen.choice(sets["X"]), gen.choice(sets["Y"])]
        present += [t for t in sets["X"] + sets["Y"] if gen.random() < 0.4]
        for t in dict.fromkeys(present):
            for _ in range(gen.integers(1, 4)):
                rows.append((t, a, gen.uniform(-40, -5), gen.uniform(-20, -2)))
    frame = pd.DataFrame(rows, columns=["target", "attribute", "log_pt", "log_pp"])
    res, _ = run(frame, sets, n=64, seed=seed)
    bs = dense_reference_bias_scores(frame, sets, 64, seed)
    d = (bs[:, :3].mean(axis=1) - bs[:, 3:].mean(axis=1)) / bs.std(axis=1, ddof=1)
    np.testing.assert_allclose(res.samples, d, rtol=1e-9, atol=1e-12)


# --- p_word: the combined effect tested with the attribute word as the unit -----------------


def test_p_word_hand_computed_over_the_six_splits_of_the_attributes():
    # one context per pair: every sample has bs = (2, 1, 0, -1), CES = d = diff / sd. The six
    # splits of (a1, a2 | b1, b2) give mean differences {2,1}-{0,-1} = 2, {2,0}-{1,-1} = 1,
    # {2,-1}-{1,0} = 0, {1,0}-{2,-1} = 0, {1,-1}-{2,0} = -1, {0,-1}-{2,1} = -2 (sd alike):
    # |CES| >= the observed one for 2 of 6
    frame = contexts(
        {("x", "a1"): [2.0], ("x", "a2"): [1.0], ("x", "b1"): [0.0], ("x", "b2"): [-1.0]}
        | {("y", w): [0.0] for w in ("a1", "a2", "b1", "b2")}
    )
    res, _ = run(frame, n=50)
    assert res.p_word == pytest.approx(2 / 6)
    assert res.p_value < 1e-10  # 50 "independent" samples of the same four words


def test_p_word_equals_lpbs_test_with_one_context_per_pair():
    from biasbench.methods.probability.lpbs import lpbs_test

    gen = np.random.default_rng(3)
    sets = {"X": ["x"], "Y": ["y"], "A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"]}
    values = dict(zip(sets["A"] + sets["B"], gen.normal(size=6), strict=True))
    frame = contexts({("x", w): [v] for w, v in values.items()} | {("y", w): [0.0] for w in values})
    res, _ = run(frame, sets, n=30)
    bs = np.array([values[w] for w in sets["A"] + sets["B"]])
    lpbs = lpbs_test(bs[:3], bs[3:], exact_max=10**6, n_samples=100, seed=0)
    assert res.p_word == pytest.approx(lpbs.p_value)


def test_p_word_equals_the_random_effects_model_recomputed_per_split():
    """With several contexts per pair (samples differ, tau^2 > 0 for some splits): p_word is
    the share of the 20 splits of the attributes whose CES, recomputed by the random-effects
    model over the same samples, is at least the observed one in absolute value."""
    import itertools

    from biasbench.methods.probability.pceat import word_level_test
    from biasbench.stats import random_effects

    gen = np.random.default_rng(7)
    for scale in (1.0, 0.01):  # 0.01: small within-sample variances, so tau^2 > 0
        bs = (gen.normal(size=(300, 6)) + gen.normal(size=6)) * scale
        sd = bs.std(axis=1, ddof=1)
        observed = random_effects((bs[:, :3].mean(1) - bs[:, 3:].mean(1)) / sd, sd**2)[0]
        stats = []
        for a in itertools.combinations(range(6), 3):
            b = [j for j in range(6) if j not in a]
            d = (bs[:, list(a)].mean(1) - bs[:, b].mean(1)) / sd
            stats.append(random_effects(d, sd**2)[0])
        expected = np.mean(np.abs(stats) >= abs(observed) - 1e-10)
        got = word_level_test(bs, sd, 3, exact_max=100, n_samples=10, seed=0)
        assert got.exact and got.n_partitions == 20
        assert got.p_value == pytest.approx(expected)


def test_p_word_is_calibrated_where_the_samples_share_their_words():
    """A null with strongly correlated contexts within each word: every attribute has its own
    association u_a with the X target, drawn alike for A and B, and its contexts vary little
    around it. The random-effects p treats the 100 samples as independent and rejects almost
    always; p_word, over the 252 splits of the 10 attribute words, rejects at 5%."""
    from scipy.stats import binom

    sets = {"X": ["x"], "Y": ["y"], "A": [f"a{i}" for i in range(5)]}
    sets["B"] = [f"b{i}" for i in range(5)]
    draws, gen = 300, np.random.default_rng(11)
    p_word, p_value = [], []
    for draw in range(draws):
        u = gen.normal(size=10)
        cells = {}
        for k, w in enumerate(sets["A"] + sets["B"]):
            cells[("x", w)] = list(u[k] + 0.2 * gen.normal(size=4))
            cells[("y", w)] = list(0.2 * gen.normal(size=4))
        res, _ = run(contexts(cells), sets, n=100, seed=draw)
        p_word.append(res.p_word)
        p_value.append(res.p_value)
    low, high = binom.interval(0.95, draws, 0.05)
    assert low <= np.sum(np.array(p_word) < 0.05) <= high
    assert np.mean(np.array(p_value) < 0.05) > 0.5
