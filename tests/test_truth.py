"""Every registered method declares the injected quantity its construct measures (its
``Method.truth``), as the table the study first held them in did; the quantities of one model
by hand."""

import numpy as np
import pytest

from biasbench.methods.contract import (
    ON_DATA_SET,
    ON_STUDY,
    QUANTITIES,
    ContextVectors,
    Method,
    Truth,
)
from biasbench.methods.registry import REGISTRY
from biasbench.studies.groundtruth.data import male_probabilities
from biasbench.studies.groundtruth.truth import injected_bias, truth_of

#: (quantity, where, reads the filter) of each method as ``groundtruth.truth.TRUTH`` held them
#: before each method declared its own (the declarations were checked equal to it, reasons
#: included, when they replaced it): a method's truth moves only on purpose
HELD = {
    "WEAT": ("difference", ON_STUDY, False),
    "s-SEAT": ("difference", ON_STUDY, False),
    "w-SEAT": ("difference", ON_STUDY, False),
    "CEAT": ("difference", ON_STUDY, False),
    "RIPA": ("difference", ON_STUDY, False),
    "RND": ("difference", ON_STUDY, False),
    "MAC": ("magnitude", ON_STUDY, False),
    "Direct Bias": ("magnitude", ON_STUDY, False),
    "SAME": ("magnitude", ON_STUDY, False),
    "DivDist": ("magnitude", ON_STUDY, False),
    "SAME skew": ("direction", ON_STUDY, False),
    "SAME stereotype": ("spread", ON_STUDY, False),
    "LPBS": ("difference", ON_STUDY, True),
    "LPBS he/she": ("direction", ON_DATA_SET, True),
    "p-CEAT": ("difference", ON_STUDY, True),
    "CrowS-Pairs": ("stereotype", ON_DATA_SET, False),
    "AUL": ("stereotype", ON_DATA_SET, False),
    "StereoSet SS": ("stereotype", ON_DATA_SET, False),
    "BEC-Pro": ("direction", ON_DATA_SET, False),
    "WinoBias F1 gap": ("stereotype", ON_DATA_SET, False),
    "WinoBias stereotype": ("stereotype", ON_DATA_SET, False),
    "WinoBias skew": ("magnitude", ON_DATA_SET, False),
    "DisCo": ("magnitude", ON_DATA_SET, False),
    "StereoSet LMS": (None, ON_DATA_SET, False),
    "StereoSet ICAT": (None, ON_DATA_SET, False),
}


def test_every_registered_method_declares_a_truth():
    for method in REGISTRY:
        truth = method.truth
        assert isinstance(truth, Truth), method.name
        assert truth.quantity is None or truth.quantity in QUANTITIES, method.name
        assert truth.why
        assert truth_of(method.name) is truth  # the lookup the league and the study use


def test_the_declared_truths_are_the_ones_the_study_held():
    declared = {m.name: (m.truth.quantity, m.truth.where, m.truth.reads_filter) for m in REGISTRY}
    assert {name: declared[name] for name in HELD} == HELD


def test_a_truth_names_a_known_quantity_and_place():
    with pytest.raises(ValueError, match="unknown quantity"):
        Truth("loudness", ON_STUDY, "why")
    with pytest.raises(ValueError, match="bad place"):
        Truth("difference", "elsewhere", "why")
    with pytest.raises(TypeError, match="truth"):  # a declaration without one is refused
        Method("M", "p", "embedding", ContextVectors, len, encodings=("e",))


def test_a_method_not_registered_fails_naming_it():
    with pytest.raises(KeyError, match="new method"):
        truth_of("new method")


def test_truths_follow_the_methods_swap_behaviour():
    """A test of X against Y (its sign turns with the sets) on the study's test follows the
    difference; a score that keeps its value under the swap never does."""
    for method in REGISTRY:
        truth = method.truth
        if method.swap == "negates" and truth.where == ON_STUDY:
            assert truth.quantity == "difference", method.name
        if method.swap == "keeps":
            assert truth.quantity != "difference", method.name
    filtered = {m.name for m in REGISTRY if m.truth.reads_filter}
    assert filtered == {"LPBS", "LPBS he/she", "p-CEAT"}


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
