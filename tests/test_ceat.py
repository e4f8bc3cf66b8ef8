import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.methods.embedding.ceat import ceat
from biasbench.methods.embedding.weat import weat
from biasbench.stats import random_effects


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
    d, v = [], []
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
    return np.array(d), np.array(v)


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
    d, v = _loop_ceat(ctx, 250, 7, 100)
    # the attribute vectors are float32: equal up to their rounding (a bug is off by >> 1e-3)
    np.testing.assert_allclose(res.effect_sizes, d, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        (res.ces, res.se, res.tau_squared, res.p_value), random_effects(d, v), rtol=1e-5
    )
