"""WinoBias F1 gap, skew and stereotype on hand-counted cases, and their invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.methods.contract import Resolutions, Settings
from biasbench.methods.extrinsic.winobias import WINOBIAS_GAP, WINOBIAS_SKEW, WINOBIAS_STEREOTYPE


def items(groups):
    """Resolutions from {(pro, male): [correct, ...]}."""
    correct, pro, male = [], [], []
    for (p, m), answers in groups.items():
        correct += answers
        pro += [p] * len(answers)
        male += [m] * len(answers)
    return Resolutions(np.array(correct), np.array(pro), np.array(male))


def test_hand_counted_case():
    # F1: male pro 4/4 = 100, female pro 3/4 = 75, male anti 2/4 = 50, female anti 1/4 = 25
    case = items(
        {
            (True, True): [1, 1, 1, 1],
            (True, False): [1, 1, 1, 0],
            (False, True): [1, 1, 0, 0],
            (False, False): [1, 0, 0, 0],
        }
    )
    s = Settings()
    assert WINOBIAS_GAP(case, s, 0).effect_size == pytest.approx(87.5 - 37.5)
    assert WINOBIAS_SKEW(case, s, 0).effect_size == pytest.approx((25 + 25) / 2)
    assert WINOBIAS_STEREOTYPE(case, s, 0).effect_size == pytest.approx((50 + 50) / 2)
    # Fisher exact on [[7, 1], [3, 5]]: p = 0.1189 (hypergeometric tails, hand-summed)
    assert WINOBIAS_GAP(case, s, 0).p_value == pytest.approx(0.118881, abs=1e-5)


def test_an_unbiased_resolver_scores_zero():
    answers = [1, 0, 1, 1]
    case = items({(p, m): answers for p in (True, False) for m in (True, False)})
    for method in (WINOBIAS_GAP, WINOBIAS_SKEW, WINOBIAS_STEREOTYPE):
        assert method(case, Settings(), 0).effect_size == 0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=8, max_size=60))
def test_bounds_and_gender_swap(triples):
    correct, pro, male = (np.array(v) for v in zip(*triples, strict=True))
    pro[:4], male[:4] = [True, True, False, False], [True, False, True, False]
    case = Resolutions(correct, pro, male)
    s = Settings()
    assert -100 <= WINOBIAS_GAP(case, s, 0).effect_size <= 100
    for method in (WINOBIAS_SKEW, WINOBIAS_STEREOTYPE):
        assert 0 <= method(case, s, 0).effect_size <= 100
    # exchanging the pronoun genders changes none of the three
    flipped = Resolutions(correct, pro, ~male)
    for method in (WINOBIAS_GAP, WINOBIAS_SKEW, WINOBIAS_STEREOTYPE):
        assert method(flipped, s, 0).effect_size == pytest.approx(method(case, s, 0).effect_size)
