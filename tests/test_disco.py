"""DisCo: the chi-square runs on integer counts, identical fills give 0, a strongly gendered
fill is found (and Bonferroni is over a template's fills)."""

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from biasbench.methods.contract import FillCounts, Settings
from biasbench.methods.probability.disco import DISCO, gendered_fills


def test_identical_fills_give_zero():
    same = {"books": (10, 10), "music": (5, 5), "sport": (3, 3)}
    assert DISCO(FillCounts([same, same]), Settings(), 0).effect_size == 0


def test_a_gendered_fill_by_hand():
    counts = {"football": (30, 2), "dancing": (2, 30), "books": (10, 10)}
    assert sorted(gendered_fills(counts)) == ["dancing", "football"]
    table = np.array([[30, 12], [2, 40]])
    assert chi2_contingency(table, correction=False).pvalue * 3 < 0.05
    assert DISCO(
        FillCounts([counts, {"books": (10, 10)}]), Settings(), 0
    ).effect_size == pytest.approx(1.0)


def test_the_input_is_counts_not_probabilities():
    """The authors' code ran the test on normalised top-3 probabilities; here that fails."""
    with pytest.raises(TypeError, match="integers"):
        gendered_fills({"books": (0.6, 0.4), "music": (0.4, 0.6)})


def test_disco_has_no_test_so_no_p_word():
    res = DISCO(FillCounts([{"a": (3, 0), "b": (0, 3)}]), Settings(), 0)
    assert np.isnan(res.p_value) and np.isnan(res.p_word)
