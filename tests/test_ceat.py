import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from biasbench.inference import word_permutation_tests
from biasbench.methods.contract import ContextVectors, Settings
from biasbench.methods.embedding.ceat import CEAT, WORD_SPLITS, ceat
from biasbench.methods.embedding.weat import association, weat
from biasbench.stats import derived_seed, permutation_test_mean_difference, random_effects


def test_random_effects_hand_computed():
    # homogeneous: Q = 5 - 9/2 = 0.5 < df = 1 -> tau^2 = 0; CES 1.5, SE sqrt(1/2)
    ces, se, tau2, p = random_effects(np.array([1.0, 2.0]), np.array([1.0, 1.0]))
    assert (ces, tau2) == (1.5, 0.0) and se == pytest.approx(np.sqrt(0.5))
    assert p == pytest.approx(0.033895, abs=1e-6)  # 2 * (1 - Phi(2.1213))
    # heterogeneous: Q = 16 - 8 = 8, c = 2 - 1 = 1 -> tau^2 = 7; w* = 1/8; CES 2, SE 2
    ces, se, tau2, p = random_effects(np.array([0.0, 4.0]), np.array([1.0, 1.0]))
    assert (ces, se, tau2) == (2.0, 2.0, 7.0)
    assert p == pytest.approx(0.317311, abs=1e-6)  # 2 * (1 - Phi(1))


def _stimuli(rng, n, k, shift=0.0):
    return [rng.normal(size=(k, 5)) + shift for _ in range(n)]


def test_single_context_equals_weat():
    rng = np.random.default_rng(0)
    ctx = {r: _stimuli(rng, 4, 1) for r in "XYAB"}
    res = ceat(ctx, n_samples=50, seed=1)
    ref = weat(*(np.concatenate(ctx[r]) for r in "XYAB"))
    np.testing.assert_allclose(res.effect_sizes, ref.effect_size)
    assert res.ces == pytest.approx(ref.effect_size) and res.tau_squared == 0


def test_samples_gather_the_right_contexts():
    rng = np.random.default_rng(2)
    ctx = {r: _stimuli(rng, 3, 1) for r in "XYAB"}
    ctx["X"][0] = rng.normal(size=(2, 5))  # one stimulus with two contexts
    res = ceat(ctx, n_samples=2000, seed=3)
    expected = []
    for row in range(2):
        x = np.concatenate([ctx["X"][0][row : row + 1], *ctx["X"][1:]])
        expected.append(weat(x, *(np.concatenate(ctx[r]) for r in "YAB")).effect_size)
    values, counts = np.unique(np.round(res.effect_sizes, 10), return_counts=True)
    np.testing.assert_allclose(sorted(values), sorted(expected), atol=1e-9)
    assert abs(counts[0] - 1000) < 150  # each context drawn about half the time


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 3))
def test_swapping_targets_flips_ces(seed, k):
    rng = np.random.default_rng(seed)
    ctx = {r: _stimuli(rng, 3, k) for r in "XYAB"}
    fwd = ceat(ctx, n_samples=400, seed=seed)
    back = ceat({**ctx, "X": ctx["Y"], "Y": ctx["X"]}, n_samples=400, seed=seed)
    assert 0 <= fwd.p_value <= 1
    if k == 1:  # one context per stimulus: every sample is the same WEAT, exactly mirrored
        assert back.ces == pytest.approx(-fwd.ces, abs=1e-9)
        assert back.p_value == pytest.approx(fwd.p_value, abs=1e-9)
    else:  # the swap reassigns random draws: mirrored up to sampling error
        assert abs(back.ces + fwd.ces) < 4 * (fwd.se + back.se) + 0.05


def test_strong_bias_is_significant_and_seeded():
    rng = np.random.default_rng(4)
    ctx = {
        "X": _stimuli(rng, 5, 4, 1.0),
        "A": _stimuli(rng, 5, 4, 1.0),
        "Y": _stimuli(rng, 5, 4, -1.0),
        "B": _stimuli(rng, 5, 4, -1.0),
    }
    a = ceat(ctx, n_samples=1000, seed=9)
    assert a.ces > 1 and a.p_value < 1e-6
    assert ceat(ctx, n_samples=1000, seed=9).effect_sizes.tobytes() == a.effect_sizes.tobytes()


def test_missing_set():
    with pytest.raises(ValueError, match="set B has no stimulus"):
        ceat({"X": [np.ones((1, 2))], "Y": [np.ones((1, 2))], "A": [np.ones((1, 2))], "B": []})


def _loop_ceat(ctx, n_samples, seed, chunk):
    """CEAT written out sample by sample, cosine by cosine, with the same draws: per chunk,
    one uniform number per target stimulus (X then Y), then one per attribute stimulus."""
    targets, attributes = ctx["X"] + ctx["Y"], ctx["A"] + ctx["B"]
    n_x, n_a = len(ctx["X"]), len(ctx["A"])
    rng = np.random.default_rng(seed)
    d, v, s_all = [], [], []
    for start in range(0, n_samples, chunk):
        m = min(chunk, n_samples - start)
        u_t, u_a = rng.random((m, len(targets))), rng.random((m, len(attributes)))
        for i in range(m):
            t = [c[int(u * len(c))] for c, u in zip(targets, u_t[i], strict=True)]
            a = [c[int(u * len(c))] for c, u in zip(attributes, u_a[i], strict=True)]
            s = []
            for w in t:
                cos = [w @ x / np.linalg.norm(w) / np.linalg.norm(x) for x in a]
                s.append(np.mean(cos[:n_a]) - np.mean(cos[n_a:]))
            d.append((np.mean(s[:n_x]) - np.mean(s[n_x:])) / np.std(s, ddof=1))
            v.append(np.var(s, ddof=1))
            s_all.append(s)
    return np.array(d), np.array(v), np.array(s_all)


@pytest.mark.parametrize("block_bytes", [1, 3000, None])
def test_vectorised_equals_loop(monkeypatch, block_bytes):
    import biasbench.methods.embedding.ceat as ceat_module

    if block_bytes is not None:  # 1: one sample per block; 3000: blocks with a remainder
        monkeypatch.setattr(ceat_module, "_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(5)
    ctx = {
        r: [rng.normal(size=(rng.integers(1, 5), 6)) for _ in range(n)]
        for r, n in zip("XYAB", (3, 4, 5, 2), strict=True)
    }
    res = ceat(ctx, n_samples=250, seed=7, chunk=100)
    d, v, _ = _loop_ceat(ctx, 250, 7, 100)
    # the attribute vectors are float32: equal up to their rounding (a bug is off by >> 1e-3)
    np.testing.assert_allclose(res.effect_sizes, d, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        (res.ces, res.se, res.tau_squared, res.p_value), random_effects(d, v), rtol=1e-5
    )


# --- p_word: the combined effect tested with the target word as the unit ---------------------


def test_p_word_hand_computed():
    # one context per word: every sample is the same WEAT, tau^2 = 0 and the CES is its d,
    # the mean difference of s = cos(w, e1) - cos(w, e2) over one pooled sd: x1 (1,0) 1,
    # x2 (1,1) 0, y1 (0,1) -1, y2 (4,3) 0.2. The C(4, 2) = 6 word splits, X side -> mean
    # difference: {x1, x2} 0.9 (observed), {x1, y1} -0.1, {x1, y2} 1.1, {x2, y1} -1.1,
    # {x2, y2} 0.1, {y1, y2} -0.9; |.| >= 0.9: 4 of 6. CEAT's own p takes the 200 identical
    # samples for 200 studies: SE = sd / sqrt(200), p ~ 1e-68
    ctx = {
        "X": [np.array([[1.0, 0]]), np.array([[1.0, 1]])],
        "Y": [np.array([[0.0, 1]]), np.array([[4.0, 3]])],
        "A": [np.array([[1.0, 0]])],
        "B": [np.array([[0.0, 1]])],
    }
    res = CEAT(ContextVectors(ctx), Settings(ceat_samples=200), 0)
    sd = np.std([1, 0, -1, 0.2], ddof=1)
    assert res.effect_size == pytest.approx(0.9 / sd) and res.tau_squared == 0
    assert res.p_word == pytest.approx(4 / 6)
    assert res.p_value < 1e-50


def test_p_word_with_one_context_per_word_is_weats_two_sided_p():
    """One context per word: the CES is WEAT's d, so the word-level p is WEAT's two-sided
    permutation p (CEAT's own p is not a permutation p: it tends to 0 as the samples grow)."""
    rng = np.random.default_rng(6)
    ctx = {r: _stimuli(rng, n, 1) for r, n in zip("XYAB", (4, 5, 3, 3), strict=True)}
    res = ceat(ctx, n_samples=100, seed=2, word_splits=1000)  # C(9, 4) = 126: every split
    s = np.concatenate(ctx["X"] + ctx["Y"])
    values = association(s, np.concatenate(ctx["A"]), np.concatenate(ctx["B"]))
    ref = permutation_test_mean_difference(
        values, 4, exact_max=1000, n_samples=10, seed=0, alternative="two-sided"
    )
    assert res.p_word == pytest.approx(ref.p_value)


@pytest.mark.parametrize("splits", [1000, 40])  # C(9, 4) = 126: all splits, or 40 sampled
def test_p_word_equals_random_effects_split_by_split(splits):
    """The vectorised test against one random-effects meta-analysis per split, on the
    per-sample associations of the sample-by-sample reference (the same draws)."""
    rng = np.random.default_rng(8)
    ctx = {
        r: [rng.normal(size=(rng.integers(1, 5), 6)) for _ in range(n)]
        for r, n in zip("XYAB", (4, 5, 3, 2), strict=True)
    }
    res = ceat(ctx, n_samples=150, seed=3, word_splits=splits)
    _, v, s = _loop_ceat(ctx, 150, 3, 1000)
    z = s / s.std(axis=1, ddof=1, keepdims=True)

    def ces(x, y):  # rows: words, columns: samples
        return random_effects(x.mean(axis=0) - y.mean(axis=0), v)[0]

    kw = {"exact_max": splits, "n_samples": splits, "seed": derived_seed(3, "p_word")}
    (ref,) = word_permutation_tests(ces, z.T, range(9), range(4), ("two-sided",), **kw)
    assert ref.exact == (splits == 1000)
    assert res.p_word == pytest.approx(ref.p_value)
    assert np.isnan(ceat(ctx, n_samples=150, seed=3).p_word)  # not asked for


def _null_words(rng, n_words, dim=8, contexts=(3, 8), spread=0.1):
    """Words drawn alike, each a random centre with its contexts close around it."""
    return [
        rng.normal(size=dim) + spread * rng.normal(size=(int(rng.integers(*contexts)), dim))
        for _ in range(n_words)
    ]


def test_p_word_calibrated_where_p_value_is_not():
    """No bias, each target word's contexts close together: the word-level p rejects at the
    nominal rate (5 vs 5 words, 252 splits), CEAT's random-effects p far more often
    (observed: 0.053 and 0.95 over 300 draws)."""
    rng = np.random.default_rng(14)
    draws, alpha = 300, 0.05
    assert WORD_SPLITS >= 252
    word = context = 0
    for i in range(draws):
        ctx = {r: _null_words(rng, n) for r, n in zip("XYAB", (5, 5, 4, 4), strict=True)}
        res = CEAT(ContextVectors(ctx), Settings(ceat_samples=100), i)
        word += res.p_word <= alpha
        context += res.p_value <= alpha
    ci = binomtest(int(word), draws).proportion_ci(0.95)
    print(f"\nCEAT null: p_word rejects {word / draws:.3f}, p_value {context / draws:.3f}")
    assert ci.low <= alpha <= ci.high
    assert context / draws > 0.25
