"""BEC-Pro: the mean paired difference and its Wilcoxon test by hand."""

import numpy as np
import pytest
from scipy.stats import wilcoxon

from biasbench.methods.contract import Associations, Settings
from biasbench.methods.probability.becpro import BEC_PRO


def test_hand_computed():
    male, female = np.array([0.5, 1.0, -0.2, 0.9]), np.array([0.1, 0.2, -0.4, 1.0])
    res = BEC_PRO(Associations(male, female), Settings(), 0)
    assert res.effect_size == pytest.approx(np.mean([0.4, 0.8, 0.2, -0.1]))
    assert res.p_value == pytest.approx(wilcoxon([0.4, 0.8, 0.2, -0.1]).pvalue)
    swapped = BEC_PRO(Associations(male, female).swapped(), Settings(), 0)
    assert swapped.effect_size == pytest.approx(-res.effect_size)
