import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from biasbench.methods.embedding.weat import association, effect_size, weat


def test_hand_computed_case():
    a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]])
    x = np.array([[1.0, 0.0], [1.0, 1.0]])  # s = 1, 0
    y = np.array([[0.0, 1.0], [3.0, 4.0]])  # s = -1, 3/5 - 4/5 = -0.2
    np.testing.assert_allclose(association(np.vstack([x, y]), a, b), [1, 0, -1, -0.2], atol=1e-12)
    res = weat(x, y, a, b, exact_max=100)
    # mean diff 0.5 - (-0.6) = 1.1; sample sd of (1, 0, -1, -0.2) = sqrt(2.03 / 3)
    assert res.effect_size == pytest.approx(1.1 / np.sqrt(2.03 / 3))
    # partition sums 1, 0, .8, -1, -.2, -1.2: only the observed reaches 1
    assert res.p_value == pytest.approx(1 / 6)
    assert res.exact and res.n_partitions == 6
    assert weat(x, y, a, b, ddof=0).effect_size == pytest.approx(1.1 / np.sqrt(2.03 / 4))


vec = arrays(np.float64, (3,), elements=st.floats(-5, 5)).filter(lambda v: np.linalg.norm(v) > 1e-3)


def sets(n):
    return st.lists(vec, min_size=n, max_size=n).map(np.array)


cases = st.integers(2, 5).flatmap(lambda n: st.tuples(sets(n), sets(n), sets(2), sets(3)))


def _weat(x, y, a, b, **kw):
    try:
        return weat(x, y, a, b, exact_max=1000, **kw)
    except ValueError:  # all associations equal: no effect size, nothing to check
        return None


@settings(max_examples=300, deadline=None)
@given(cases, st.sampled_from(["targets", "attributes"]))
def test_swapping_targets_or_attributes_flips_sign(case, swap):
    x, y, a, b = case
    fwd = _weat(x, y, a, b)
    back = _weat(y, x, a, b) if swap == "targets" else _weat(x, y, b, a)
    if fwd is not None:
        assert back.effect_size == pytest.approx(-fwd.effect_size, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(cases, st.sampled_from([0, 1]))
def test_effect_size_within_two(case, ddof):
    res = _weat(*case, ddof=ddof)
    if res is not None:
        assert -2 - 1e-9 <= res.effect_size <= 2 + 1e-9


@settings(max_examples=50, deadline=None)
@given(cases, st.floats(0.1, 10))
def test_invariant_to_vector_scale(case, scale):
    x, y, a, b = case
    ref = _weat(x, y, a, b)
    if ref is not None:
        assert _weat(x * scale, y, a, b * scale).effect_size == pytest.approx(
            ref.effect_size, rel=1e-6
        )


def test_errors():
    good = np.eye(2)
    with pytest.raises(ValueError, match="set Y is empty"):
        weat(good, np.empty((0, 2)), good, good)
    with pytest.raises(ValueError, match="zero-length"):
        weat(np.zeros((2, 2)), good, good, good)
    with pytest.raises(ValueError, match="undefined"):
        effect_size(np.ones(3), np.ones(3), ddof=1)
