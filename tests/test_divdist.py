"""DivDist and its sources of association: hand-computed cases and the invariants of Bommasani
& Liang (2022) as properties."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from biasbench.methods.contract import GroupAssociations, Settings
from biasbench.methods.distribution import association as soa
from biasbench.methods.distribution import divdist as dd
from biasbench.methods.embedding.mac import mac_word
from biasbench.methods.registry import get

strengths = st.lists(st.floats(0, 100, allow_nan=False), min_size=2, max_size=6).filter(
    lambda s: sum(s) > 1e-6
)


def test_binary_l1_by_hand_and_tv_is_half():
    assert dd.divdist([3, 1]) == pytest.approx(abs(3 - 1) / (3 + 1))
    assert dd.divdist([3, 1], kind="tv") == pytest.approx(0.25)
    # census reference (0.8 female, 0.2 male) against p = (0.75, 0.25)
    assert dd.divdist([3, 1], [0.8, 0.2]) == pytest.approx(0.1)
    assert dd.divdist([1, 1, 2], kind="kl") == pytest.approx(
        0.25 * np.log(0.75) * 2 + 0.5 * np.log(1.5)
    )


@given(strengths, st.floats(1e-3, 1e3))
def test_scaling_every_strength_leaves_the_bias(s, c):
    assert dd.divdist(np.array(s) * c) == pytest.approx(dd.divdist(s), abs=1e-9)


@given(strengths, st.randoms())
def test_permuting_groups_with_the_reference_leaves_the_bias(s, rnd):
    p0 = np.arange(1, len(s) + 1, dtype=float)
    p0 /= p0.sum()
    order = list(range(len(s)))
    rnd.shuffle(order)
    for kind in dd.DISTANCES:
        assert dd.divdist(np.array(s)[order], p0[order], kind) == pytest.approx(
            dd.divdist(s, p0, kind), abs=1e-9
        )


@given(strengths)
def test_zero_exactly_at_the_reference_and_bounded_by_the_one_hot(s):
    s = np.array(s)
    k = len(s)
    p = s / s.sum()
    assert dd.divdist(s, p) == pytest.approx(0, abs=1e-12)
    assert 0 <= dd.divdist(s) <= dd.maximum(k) + 1e-12
    one_hot = np.eye(k)[0] * 5
    assert dd.divdist(one_hot) == pytest.approx(dd.maximum(k))
    if dd.divdist(s) < 1e-12:
        np.testing.assert_allclose(p, 1 / k)


def test_undefined_without_association_and_negative_policies():
    assert np.isnan(dd.divdist([0, 0]))
    with pytest.raises(ValueError, match="associations >= 0"):
        dd.divdist([0.3, -0.1])
    assert dd.divdist([0.3, -0.1], negative="clip") == pytest.approx(1.0)
    # shift: (1.3, 0.9), p = (0.65, 0.45) / 1.1
    assert dd.divdist([0.3, -0.1], negative="shift") == pytest.approx(0.4 / 2.2)
    assert dd.divdist([0.3, 0.1, -0.1], negative="shift") == pytest.approx(
        dd.divdist([1.3, 1.1, 0.9])
    )


def test_set_score_is_the_mean_over_defined_targets_and_has_no_test():
    method = get("DivDist")
    inputs = GroupAssociations(np.array([[3.0, 1.0], [0.0, 0.0], [1.0, 1.0]]))
    score = method(inputs, Settings(), seed=0)
    assert score.effect_size == pytest.approx((0.5 + 0.0) / 2)
    assert np.isnan(score.p_value) and "2 of 3 targets" in score.note
    assert method(inputs.swapped(), Settings(), 0).effect_size == score.effect_size


def test_an_infinite_kl_makes_the_set_score_na_with_the_reason():
    """KL(p || p0) is infinite where p0 gives a group share 0 that p does not: the mean over
    targets is infinite, not the mean over the finite ones."""
    inputs = GroupAssociations(
        np.array([[3.0, 1.0], [1.0, 1.0]]), reference=np.array([1.0, 0.0]), distance="kl"
    )
    score = get("DivDist")(inputs, Settings(), seed=0)
    assert np.isnan(score.effect_size) and "infinite for 2 of 2 targets" in score.note
    finite = GroupAssociations(np.array([[3.0, 0.0], [1.0, 1.0]]), np.array([0.5, 0.5]), "kl")
    expected = (np.log(2) + 0.0) / 2  # one-hot vs uniform: log 2; uniform: 0
    assert get("DivDist")(finite, Settings(), 0).effect_size == pytest.approx(expected)


def test_a_context_mentioning_two_groups_counts_for_neither():
    contexts = [
        ["the", "nurse", "and", "her", "sister"],  # female only
        ["the", "nurse", "saw", "him", "and", "her"],  # both: neither (paper)
        ["a", "nurse", "nurse", "he"],  # male only
        ["the", "doctor", "said", "he"],
        ["nothing", "here", "she"],
    ]
    groups = {"female": ["her", "sister", "she"], "male": ["he", "him"]}
    counts = soa.text_counts(contexts, ["nurse", "doctor"], groups)
    np.testing.assert_array_equal(counts, [[1, 1], [0, 1]])
    helm = soa.text_counts(contexts, ["nurse", "doctor"], groups, exclusive=False)
    # nurse: ctx1 1x2 female; ctx2 1x1 female, 1x1 male; ctx3 2x1 male -> /3 and /2
    np.testing.assert_allclose(helm, [[3 / 3, 3 / 2], [0, 1 / 2]])


def test_embedding_association_by_hand_and_reduction_of_one_context():
    t = np.array([[1.0, 0.0], [1.0, 1.0]])
    female = np.array([[0.0, 2.0], [0.0, 4.0]])
    male = np.array([[3.0, 0.0]])
    s = soa.embedding_association(t, [female, male])
    np.testing.assert_allclose(s, [[0, 1], [np.sqrt(0.5), np.sqrt(0.5)]])
    # a word seen in one context reduces to that context's vector
    contexts = [np.array([[1.0, 0.0]]), np.array([[1.0, 1.0]])]
    np.testing.assert_allclose(soa.reduce_contexts(contexts), t)
    reduced = soa.reduce_contexts(contexts)
    np.testing.assert_allclose(soa.embedding_association(reduced, [female, male]), s)


def test_mac_and_divdist_disagree_on_an_equidistant_word():
    """The paper's MAC counterexample: a word equally close to both groups has no DivDist
    bias, but MAC (a mean distance, not a difference) is not at its 'no bias' value 1."""
    w = np.array([[1.0, 1.0]])
    man, woman = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    s = soa.embedding_association(w, [man, woman])
    assert dd.divdist(s[0]) == pytest.approx(0)
    mac = mac_word(w, [man, woman])[0]
    assert mac == pytest.approx(1 - np.sqrt(0.5))


def test_probe_recovers_separable_labels_and_counts_held_out_contexts():
    rng = np.random.default_rng(0)
    centres = np.array([[4.0, 0.0], [-4.0, 0.0], [0.0, 4.0]])  # female, male, none
    labels = np.repeat([0, 1, 2], 40)
    x = centres[labels] + rng.normal(0, 0.5, (120, 2))
    target_of = np.tile([0, 1], 60)
    counts, accuracy = soa.probe_counts(x, labels, target_of, 2, 2, seed=1)
    assert accuracy == 1.0
    assert counts.sum() == 80  # every held-out context of a group, none of "none"
    np.testing.assert_array_equal(counts.sum(axis=0), [40, 40])


@given(arrays(np.float64, (6, 3), elements=st.floats(-3, 3)))
def test_softmax_fit_is_deterministic(x):
    y = np.array([0, 1, 2, 0, 1, 2])
    w1, b1 = soa.fit_softmax(x, y, 3)
    w2, b2 = soa.fit_softmax(x, y, 3)
    np.testing.assert_array_equal(w1, w2)
    np.testing.assert_array_equal(b1, b2)


def test_a_word_that_is_target_and_group_word_counts_in_both_roles_for_helm():
    from biasbench.methods.distribution.association import text_counts

    groups = {"f": ["mother", "she"], "m": ["he"]}
    contexts = [["mother", "he"]]
    helm = text_counts(contexts, ["mother"], groups, exclusive=False)
    np.testing.assert_allclose(helm, [[1 / 2, 1 / 1]])  # mother x (mother, he) / list lengths
    paper = text_counts(contexts, ["mother"], groups, exclusive=True)
    np.testing.assert_allclose(paper, [[0.0, 1.0]])  # as the target only: one group, "m"
