"""Every registered method declares the injected quantity its construct measures; the
quantities of one model by hand."""

import numpy as np
import pytest

from biasbench.methods.registry import REGISTRY
from biasbench.studies.groundtruth.data import male_probabilities
from biasbench.studies.groundtruth.truth import (
    ON_STUDY,
    QUANTITIES,
    TRUTH,
    injected_bias,
    truth_of,
)


def test_every_registered_method_has_a_truth():
    missing = [m.name for m in REGISTRY if m.name not in TRUTH]
    assert not missing, f"add these methods to groundtruth.truth.TRUTH: {missing}"
    assert set(TRUTH) == {m.name for m in REGISTRY}  # and no stale entry
    for name, truth in TRUTH.items():
        assert truth.quantity is None or truth.quantity in QUANTITIES, name
        assert truth.why


def test_each_method_declares_the_truth_the_table_held():
    """A method's declaration (``Method.truth``) holds what ``TRUTH`` held for it, field by
    field: the quantity, where it is held against it, why, and whether it reads the filter."""
    assert {m.name: m.truth for m in REGISTRY} == TRUTH


def test_a_method_without_an_entry_fails_naming_it():
    with pytest.raises(KeyError, match="new method"):
        truth_of("new method")


def test_truths_follow_the_methods_swap_behaviour():
    """A test of X against Y (its sign turns with the sets) on the study's test follows the
    difference; a score that keeps its value under the swap never does."""
    for method in REGISTRY:
        truth = TRUTH[method.name]
        if method.swap == "negates" and truth.where == ON_STUDY:
            assert truth.quantity == "difference", method.name
        if method.swap == "keeps":
            assert truth.quantity != "difference", method.name
    assert {m for m, t in TRUTH.items() if t.reads_filter} == {"LPBS", "LPBS he/she", "p-CEAT"}


def test_injected_quantities_by_hand():
    p = np.array([0.9, 0.7, 0.2, 0.5])
    s = np.array([0.5, 0.3, -0.4, 0.0])  # X: 0, 1; Y: 2; the last unrated
    out = injected_bias(p, s)
    assert out["difference"] == pytest.approx(0.8 - 0.2)
    assert out["direction"] == pytest.approx(0.6 - 0.5)
    assert out["magnitude"] == pytest.approx((0.4 + 0.2 + 0.3) / 3)
    assert out["stereotype"] == pytest.approx((0.9 + 0.7 + 0.8) / 3)


def test_alignment_moves_the_stereotyped_occupations_apart():
    """At alignment a the X-Y difference moves by a x (mean s of X - mean s of Y) in
    expectation; at 0 it is noise; each repeat is its own draw."""
    s = np.repeat([0.6, -0.6], 500)
    flat = male_probabilities(s, 0.5, 0.05, 0.0, 0, seed=1)
    aligned = male_probabilities(s, 0.5, 0.05, 0.2, 0, seed=1)
    assert flat[:500].mean() - flat[500:].mean() == pytest.approx(0.0, abs=0.02)
    assert aligned[:500].mean() - aligned[500:].mean() == pytest.approx(0.24, abs=0.02)
    again = male_probabilities(s, 0.5, 0.05, 0.0, 1, seed=1)
    assert not np.allclose(flat, again)
    assert np.array_equal(flat, male_probabilities(s, 0.5, 0.05, 0.0, 0, seed=1))
