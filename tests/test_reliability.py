"""Split-half reliability, Spearman-Brown and the correction for attenuation on hand cases."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from biasbench.studies import reliability as rel


def test_spearman_brown_by_hand():
    assert rel.spearman_brown(0.5) == pytest.approx(2 / 3)  # 2 * 0.5 / 1.5
    assert rel.spearman_brown(0.6, k=3) == pytest.approx(1.8 / 2.2)
    assert rel.spearman_brown(1.0) == 1.0 and rel.spearman_brown(0.0) == 0.0
    assert np.isnan(rel.spearman_brown(-1.0))  # 1 + r = 0


@given(st.floats(0.0, 1.0))
def test_a_longer_measure_is_at_least_as_reliable(r):
    assert r - 1e-12 <= rel.spearman_brown(r) <= 1 + 1e-12


def test_the_d_study_by_hand():
    """Spearman-Brown solved for the length: a reliability of 0.5 needs 4x the words for 0.8
    (0.8 x 0.5 / (0.5 x 0.2)); 0.9 needs 0.8 x 0.1 / (0.9 x 0.2) = 0.444x, less than it has;
    exactly 0.8 needs 1x; 0 no length; unknown stays unknown."""
    assert rel.length_needed(0.5) == pytest.approx(4.0)
    assert rel.length_needed(0.9) == pytest.approx(4 / 9)
    assert rel.length_needed(0.8) == pytest.approx(1.0)
    assert rel.length_needed(0.6, target=0.9) == pytest.approx(6.0)  # 0.9 x 0.4 / (0.6 x 0.1)
    assert rel.length_needed(0.0) == float("inf")
    assert np.isnan(rel.length_needed(float("nan"))) and np.isnan(rel.length_needed(1.2))


@given(st.floats(0.01, 0.99), st.floats(0.05, 0.95))
def test_the_length_the_d_study_names_reaches_the_target(r, target):
    """Its inverse: stepping the measure up by the named multiple gives the target back."""
    k = rel.length_needed(r, target)
    assert rel.spearman_brown(r, k) == pytest.approx(target, abs=1e-9)


def test_disattenuation_by_hand():
    """Spearman's correction as computed, two different reliabilities included; beyond
    [-1, 1] it is printed as it is and flagged, never clipped to a correlation it is not."""
    assert rel.disattenuate(0.3, 0.5, 0.8) == pytest.approx(0.3 / np.sqrt(0.4))  # 0.474
    assert rel.disattenuate(0.45, 0.3, 0.5) == pytest.approx(1.1619, abs=1e-4)
    assert rel.disattenuate(0.96, 0.9, 0.9) == pytest.approx(1.0667, abs=1e-4)
    assert rel.disattenuate(-0.9, 0.5, 0.5) == pytest.approx(-1.8)
    assert rel.disattenuate(0.5, 1.0, 1.0) == 0.5  # perfectly reliable: nothing to correct
    assert [rel.beyond_one(v) for v in (1.1619, -1.8, 1.0, -0.99, float("nan"))] == [
        True,
        True,
        False,
        False,
        False,
    ]
    for zero in ((0.3, 0.0, 0.8), (0.3, 0.8, 0.0), (0.3, -0.2, 0.8)):  # undefined, not inf
        assert np.isnan(rel.disattenuate(*zero))
    assert np.isnan(rel.disattenuate(float("nan"), 0.5, 0.5))


@given(
    st.floats(-1.0, 1.0),
    st.floats(0.01, 1.0),
    st.floats(0.01, 1.0),
)
def test_the_correction_only_grows_a_correlation_and_keeps_its_sign(r, ra, rb):
    corrected = rel.disattenuate(r, ra, rb)
    assert abs(corrected) >= abs(r) - 1e-12 and np.sign(corrected) == np.sign(r)
    assert rel.beyond_one(corrected) == (abs(r) > np.sqrt(ra * rb) * (1 + 1e-12)) or np.isclose(
        abs(r), np.sqrt(ra * rb)
    )


def _halves(method: str, facet: str, first, second) -> pd.DataFrame:
    """One split's two halves of one method and facet, model i scoring first[i], second[i]."""
    n = len(first)
    return pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(n)] * 2,
            "method": method,
            "resample": facet,
            "split": 0,
            "half": [0] * n + [1] * n,
            "effect_size": np.concatenate([first, second]),
        }
    )


def test_split_half_by_hand():
    """Five models; half 1 = half 0 + a fixed wobble: r computed by numpy, SB by hand."""
    h0 = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    h1 = np.array([1.5, 1.5, 3.5, 3.5, 5.5])
    halves = _halves("SAME", "words", h0, h1)
    table = rel.split_half(halves).set_index(["method", "facet"])
    r = np.corrcoef(h0, h1)[0, 1]
    assert table.loc[("SAME", "words"), "half_r"] == pytest.approx(r)
    assert table.loc[("SAME", "words"), "reliability"] == pytest.approx(2 * r / (1 + r))
    wide = rel.by_method(rel.split_half(halves)).set_index("method")
    assert wide.loc["SAME", "reliability"] == pytest.approx(2 * r / (1 + r))
    assert np.isnan(wide.loc["SAME", "reliability_items"])


def test_reliability_recovers_a_known_one_by_simulation():
    """Scores = true + error with var(true) = 1 and a half's error variance 1: a half's
    reliability is 1/2, the full score's 2/3; over 200 models the estimate lands near it."""
    rng = np.random.default_rng(0)
    true = rng.normal(size=200)
    rows = [
        {"model": i, "method": "x", "resample": "items", "split": 0, "half": h, "effect_size": v}
        for h in (0, 1)
        for i, v in enumerate(true + rng.normal(size=200))
    ]
    table = rel.split_half(pd.DataFrame(rows))
    assert table.loc[0, "reliability"] == pytest.approx(2 / 3, abs=0.06)


def test_halves_that_correlate_negatively_have_no_reliability():
    halves = _halves("x", "items", [1.0, 2.0, 3.0, 4.0, 5.0], [5.0, 4.0, 3.0, 2.0, 1.5])
    table = rel.split_half(halves)
    assert table.loc[0, "half_r"] < 0 and table.loc[0, "reliability"] == 0.0


def test_test_retest_by_hand():
    """var(1..5) = 2.5; pairs (1, 2) and (3, 2): mean squared difference 1, error 1/2."""
    scores = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    assert rel.test_retest(scores, np.array([1.0, 3.0]), np.array([2.0, 2.0])) == 0.8
    assert rel.test_retest(scores, np.array([1.0, 3.0]), np.array([1.0, 3.0])) == 1.0
    assert rel.test_retest(scores, np.array([1.0, 5.0]), np.array([9.0, -3.0])) == 0.0  # clip
    assert np.isnan(rel.test_retest(scores, np.array([1.0]), np.array([2.0])))  # one pair


def test_test_retest_recovers_a_known_one_by_simulation():
    """30 models, 15 of them fitted twice (the default run's refits), score = true (var 1) +
    seed error (var 1/4): the reliability is 1 / 1.25 = 0.8; the median estimate over 400
    studies lands near it, and it orders a reliable measure above an unreliable one (0.31)
    in about 19 studies of 20; with 5 pairs in about 9 of 10."""
    rng = np.random.default_rng(3)

    def study(error_sd, pairs):
        true = rng.normal(size=30)
        first = true + rng.normal(scale=error_sd, size=30)
        again = true[:pairs] + rng.normal(scale=error_sd, size=pairs)
        return rel.test_retest(first, first[:pairs], again)

    ordered = {}
    for pairs in (15, 5):
        reliable = np.array([study(0.5, pairs) for _ in range(400)])
        assert np.median(reliable) == pytest.approx(0.8, abs=0.04)
        unreliable = np.array([study(1.5, pairs) for _ in range(400)])  # 1 / (1 + 2.25)
        assert np.median(unreliable) == pytest.approx(1 / 3.25, abs=0.08)
        ordered[pairs] = np.mean(reliable > unreliable)
    assert ordered[15] >= 0.94 and 0.85 <= ordered[5] < 0.94


def test_the_fit_facet_reads_refitted_pairs():
    """Every model's score as half 0, two refits as half 1: models = the pairs, the
    test-retest reliability, no half_r; by_method takes the lowest facet."""
    scores = [1.0, 2.0, 3.0, 4.0, 5.0]
    rows = [
        {"model": f"m{i}", "method": "x", "resample": "fit", "split": 0, "half": 0}
        | {"effect_size": v}
        for i, v in enumerate(scores)
    ] + [
        {"model": m, "method": "x", "resample": "fit", "split": 0, "half": 1, "effect_size": v}
        for m, v in (("m0", 2.0), ("m2", 2.0))
    ]
    table = rel.split_half(pd.DataFrame(rows))
    assert table.loc[0, "facet"] == "fit" and table.loc[0, "models"] == 2
    assert np.isnan(table.loc[0, "half_r"]) and table.loc[0, "reliability"] == 0.8
    wide = rel.by_method(table).set_index("method")
    assert wide.loc["x", "reliability_fit"] == wide.loc["x", "reliability"] == 0.8


def test_several_splits_average_their_half_correlations_and_two_facets_combine():
    """Two splits of the words (r1, r2): half_r is their mean, the reliability its
    Spearman-Brown step-up; with a templates facet beside it, the method's reliability is the
    generalizability coefficient over both and its D-study lengthens the words."""
    h0 = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    first = _halves("SAME", "words", h0, h0 + np.array([0.5, -0.5, 0.5, -0.5, 0.5]))
    second = _halves("SAME", "words", h0, h0 + np.array([1.5, -1.5, 0.0, 1.5, -1.5]))
    second["split"] = 1
    templates = _halves("SAME", "templates", h0, h0 + 0.01 * h0**2)
    table = rel.split_half(pd.concat([first, second, templates], ignore_index=True))
    table = table.set_index(["method", "facet"])
    r1 = np.corrcoef(h0, h0 + np.array([0.5, -0.5, 0.5, -0.5, 0.5]))[0, 1]
    r2 = np.corrcoef(h0, h0 + np.array([1.5, -1.5, 0.0, 1.5, -1.5]))[0, 1]
    words = table.loc[("SAME", "words")]
    assert words["half_r"] == pytest.approx((r1 + r2) / 2)
    assert words["reliability"] == pytest.approx(rel.spearman_brown((r1 + r2) / 2))
    wide = rel.by_method(table.reset_index()).set_index("method")
    assert table.loc[("SAME", "templates"), "reliability"] > words["reliability"]
    both = {"words": words["reliability"], "templates": table.loc[("SAME", "templates")]}
    both["templates"] = both["templates"]["reliability"]
    assert wide.loc["SAME", "reliability"] == pytest.approx(rel.generalizability(both))
    assert wide.loc["SAME", "length_facet"] == "words"
    assert wide.loc["SAME", "length_for_target"] == pytest.approx(
        rel.facet_length_needed(both, "words")
    )


def test_the_generalizability_coefficient_and_its_d_study_by_hand():
    """Three facets at 0.9: error shares 0.1 each, the coefficient 1 - 0.3 = 0.7 (their
    minimum, 0.9, counts one facet's error alone). Lengthening the words k times:
    0.7 / (0.7 + 0.2 + 0.1 / k) stays under 0.7 / 0.9: no length of the words alone reaches
    0.8. Words at 0.8 and templates at 0.9: 0.7 / (0.7 + 0.1 + 0.2 / k) = 0.8 at k = 8/3."""
    three = {"words": 0.9, "templates": 0.9, "fit": 0.9}
    assert rel.generalizability(three) == pytest.approx(0.7)
    assert rel.facet_length_needed(three, "words") == float("inf")
    two = {"words": 0.8, "templates": 0.9}
    assert rel.generalizability(two) == pytest.approx(0.7)
    k = rel.facet_length_needed(two, "words")
    assert k == pytest.approx(0.2 / (0.7 * 0.25 - 0.1)) == pytest.approx(8 / 3)
    assert 0.7 / (0.7 + 0.1 + 0.2 / k) == pytest.approx(0.8)
    # the templates' error alone (0.2) leaves 0.7 / 0.9 < 0.8 however long the words are
    assert rel.facet_length_needed({"words": 0.9, "templates": 0.8}, "words") == float("inf")
    assert rel.generalizability({"words": 0.5, "templates": 0.4}) == 0.0  # clipped
    assert np.isnan(rel.generalizability({})) and np.isnan(rel.generalizability({"w": np.nan}))
    assert np.isnan(rel.facet_length_needed(two, "items"))


@given(st.floats(0.01, 0.99), st.floats(0.5, 0.95))
def test_one_facet_s_d_study_is_spearman_brown_s(r, target):
    assert rel.facet_length_needed({"items": r}, "items", target) == pytest.approx(
        rel.length_needed(r, target)
    )


def _studies(studies: int, models: int, shares: dict[str, float], rng, refits: int = 0):
    """Halves of ``studies`` simulated studies (one method each) whose full score carries
    each facet's error at the share ``shares[facet]`` of its variance (the facet's
    reliability 1 - share): a split facet's halves share the true score and the other
    facets' errors and carry their own at twice the full score's variance; the ``fit``
    facet's first ``refits`` models are fitted again, every error the same but the seed's."""
    frames = []

    def rows(study, facet, half, values, n=models):
        return pd.DataFrame(
            {
                "model": np.arange(n),
                "method": f"m{study}",
                "resample": facet,
                "split": 0,
                "half": half,
                "effect_size": values,
            }
        )

    for study in range(studies):
        true = rng.normal(scale=np.sqrt(1 - sum(shares.values())), size=models)
        errors = {f: rng.normal(scale=np.sqrt(v), size=models) for f, v in shares.items()}
        for facet in shares:
            others = true + sum(errors[g] for g in shares if g != facet)
            if facet == "fit":
                again = others[:refits] + rng.normal(scale=np.sqrt(shares[facet]), size=refits)
                frames += [rows(study, facet, 0, others + errors[facet])]
                frames += [rows(study, facet, 1, again, refits)]
                continue
            for half in (0, 1):
                own = rng.normal(scale=np.sqrt(2 * shares[facet]), size=models)
                frames.append(rows(study, facet, half, others + own))
    return pd.concat(frames, ignore_index=True)


def test_the_coefficient_is_nearly_unbiased_where_the_minimum_is_not():
    """1,000 studies of 30 models, three facets each at 0.90 (the coefficient 0.70): the
    mean estimate is within 0.02 of 0.70; the minimum of the three facets' estimates, read
    as each facet's 0.90, sits below it (median ~0.87), and would stand 0.17 above the
    coefficient it stood in for."""
    rng = np.random.default_rng(11)
    facets = dict.fromkeys(("words", "templates", "items"), 0.1)
    table = rel.split_half(_studies(1000, 30, facets, rng))
    wide = rel.by_method(table)
    assert abs(wide["reliability"].mean() - 0.7) <= 0.02
    lowest = table.groupby("method")["reliability"].min()
    assert 0.85 <= lowest.median() <= 0.89


def test_a_facets_interval_by_hand():
    """Split halves, r 0.5 over 30 models at 90%: z = atanh 0.5 = 0.5493, se 1 / sqrt(27) =
    0.19245, z +- 1.6449 se = 0.2327, 0.8659, r 0.2286, 0.6993, stepped up 0.3721, 0.8230.
    Refits: R = 0.1 over 15 pairs and 30 scores, 1 - R / F(15, 29) at its 5% and 95%."""
    from scipy import stats

    row = pd.Series({"facet": "words", "models": 30, "half_r": 0.5})
    low, high = rel.facet_interval(row, 0.90)
    assert (low, high) == pytest.approx((0.3721, 0.8230), abs=1e-4)
    fit = {"facet": "fit", "models": 15, "scored": 30, "error_ratio": 0.1}
    f_low, f_high = stats.f.ppf([0.05, 0.95], 15, 29)
    ends = rel.facet_interval(pd.Series(fit), 0.90)
    assert ends == pytest.approx((1 - 0.1 / f_low, 1 - 0.1 / f_high))
    assert rel.facet_interval(pd.Series(fit | {"error_ratio": 0.9}), 0.90)[0] == 0.0  # clipped
    few = {"facet": "items", "models": 3, "half_r": 0.5}
    assert all(np.isnan(rel.facet_interval(pd.Series(few), 0.9)))


@given(
    st.floats(0.05, 0.95),
    st.floats(0.05, 0.95),
    st.floats(0.0, 0.4),
    st.integers(8, 60),
)
def test_the_ends_hold_the_estimate_between_them(half_r, other_r, ratio, models):
    """Each facet's interval holds its estimate, so the box's corners hold the method's
    coefficient and its D-study length (both monotone in every facet's reliability)."""
    table = pd.DataFrame(
        [
            ("m", "items", models, models, half_r, np.nan),
            ("m", "templates", models, models, other_r, np.nan),
            ("m", "fit", models // 2, models, np.nan, ratio),
        ],
        columns=["method", "facet", "models", "scored", "half_r", "error_ratio"],
    )
    table["reliability"] = [
        rel.spearman_brown(half_r),
        rel.spearman_brown(other_r),
        1 - ratio,
    ]
    row = rel.by_method(table).iloc[0]
    assert row["reliability_low"] <= row["reliability"] <= row["reliability_high"]
    assert row["length_low"] <= row["length_for_target"] <= row["length_high"]


def _coverage(wide: pd.DataFrame, shares: dict[str, float]) -> float:
    truth = {facet: 1 - share for facet, share in shares.items()}
    facet = next(f for f in rel.LENGTH_FACETS if f in truth)
    length = rel.facet_length_needed(truth, facet)
    return float(((wide["length_low"] <= length) & (length <= wide["length_high"])).mean())


@pytest.mark.parametrize(
    "shares",
    [{"items": 0.5, "fit": 0.05}, {"words": 0.05, "templates": 0.05, "fit": 0.05}],
    ids=["data set", "embedding"],
)
def test_the_d_study_interval_covers_at_least_its_level(shares):
    """1,000 simulated studies of the default's 30 models and 15 refits, the facets of a
    data-set measure (items needs 8x its length) or of an embedding measure (words
    0.44x): the 90% interval of the length needed holds the true one in at least 90% of
    them (an interval that held it in 88% fails here with probability 0.99)."""
    rng = np.random.default_rng(5)
    wide = rel.by_method(rel.split_half(_studies(1000, 30, shares, rng, refits=15)))
    assert _coverage(wide, shares) >= rel.LEVEL


def test_one_facets_interval_is_exact_and_a_narrower_one_is_caught():
    """One facet (reliability 0.7, 1.71x the length for 0.8) over 2,000 studies: its interval
    is Fisher's, nominal, so its coverage is 90% up to chance (within 2.33 standard errors);
    the same interval a sixth narrower, as a percentile bootstrap of 30 models is, covers
    about 85% and fails the same check."""
    rng = np.random.default_rng(6)
    shares = {"items": 0.3}
    table = rel.split_half(_studies(2000, 30, shares, rng))
    floor = rel.LEVEL - 2.33 * np.sqrt(rel.LEVEL * (1 - rel.LEVEL) / len(table))
    assert _coverage(rel.by_method(table), shares) >= floor
    narrower = table.assign(models=(table["models"] - 3) * 1.44 + 3)
    assert _coverage(rel.by_method(narrower), shares) < floor


def test_the_units_needed_and_whether_a_data_set_holds_them():
    """CrowS-Pairs' case: 6.4x its 60 study pairs is 384, more than the 262 gender pairs
    it holds; 1.5x is 90, which it holds; no length (inf) is never reachable."""
    assert rel.items_needed(6.4, 60) == 384 and rel.items_needed(1.51, 60) == 91
    assert rel.reach(rel.items_needed(6.4, 60), 262) == "not with this data set"
    assert rel.reach(rel.items_needed(1.5, 60), 262) == "yes"
    assert rel.reach(rel.items_needed(float("inf"), 60), 262) == "not with this data set"
    assert np.isnan(rel.items_needed(float("nan"), 60)) and np.isnan(rel.items_needed(2.0, np.nan))
    assert rel.reach(float("nan"), 262) == rel.reach(90.0, float("nan")) == "n/a"
