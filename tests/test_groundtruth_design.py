"""The ground-truth study's design: a Latin hypercube places one model in each stratum of each
parameter, seeded, the jobs' models one design; and the share of each truth quantity's variance
a design's discrete levels set, by hand and on drawn parameters (a grid's levels set most of it,
the default design's none)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.studies.groundtruth.data import (
    design_points,
    grid,
    latin_hypercube,
    male_probabilities,
    mean_strata,
)
from biasbench.studies.groundtruth.truth import (
    MAX_DISCRETE_SHARE,
    discrete_level_share,
    injected_bias,
)

from .test_plan_isolation import default_config

MUS, SIGMAS, ALIGNMENTS = [0.3, 0.4, 0.5, 0.6, 0.7], [0.1, 0.2, 0.3], [0.0, 0.2]


def strata_of(values, low, high, n):
    return np.floor((np.asarray(values) - low) / (high - low) * n).astype(int)


def test_mean_strata_cut_halfway_between_the_planned_means():
    def edges(mus):
        return np.ravel(mean_strata(mus))

    assert edges([0.5, 0.3, 0.4]) == pytest.approx([0.25, 0.35, 0.35, 0.45, 0.45, 0.55])
    assert edges([0.1, 0.3]) == pytest.approx([0.0, 0.2, 0.2, 0.4])
    assert edges([0.05, 0.95]) == pytest.approx([0.0, 0.5, 0.5, 1.0])  # within [0, 1]
    assert mean_strata([0.4]) == [(0.4, 0.4)]


@settings(max_examples=40, deadline=None)
@given(
    mus=st.lists(
        st.sampled_from([0.2, 0.3, 0.45, 0.5, 0.6, 0.8]), min_size=2, max_size=5, unique=True
    ),
    sigmas=st.lists(st.floats(0.05, 0.4), min_size=2, max_size=3, unique=True),
    repeats=st.integers(1, 3),
    seed=st.integers(0, 1000),
)
def test_a_latin_hypercube_puts_one_model_in_each_stratum_of_each_parameter(
    mus, sigmas, repeats, seed
):
    jobs = latin_hypercube(mus, sigmas, repeats, ALIGNMENTS, seed)
    strata = mean_strata(mus)
    per_job = len(sigmas) * len(ALIGNMENTS) * repeats
    assert list(jobs) == sorted(set(mus)) and all(len(p) == per_job for p in jobs.values())
    points = [p for job in jobs.values() for p in job]
    n = len(points)
    for column, levels in ((1, sigmas), (2, ALIGNMENTS)):
        values = [p[column] for p in points]
        assert sorted(strata_of(values, min(levels), max(levels), n)) == list(range(n))
    for (low, high), job in zip(strata, jobs.values(), strict=True):
        means = [p[0] for p in job]
        assert sorted(strata_of(means, low, high, per_job)) == list(range(per_job))
        assert [p[3] for p in job] == list(range(per_job))  # a model's sub-stratum
    assert jobs == latin_hypercube(mus, sigmas, repeats, ALIGNMENTS, seed)  # seeded
    assert jobs != latin_hypercube(mus, sigmas, repeats, ALIGNMENTS, seed + 1)


def test_a_jobs_points_are_its_share_of_one_design():
    study = {"design": "latin-hypercube", "mu": MUS, "sigma": SIGMAS, "alignment": ALIGNMENTS}
    study["repeats"] = 1
    whole = latin_hypercube(MUS, SIGMAS, 1, ALIGNMENTS, 7)
    assert [design_points(study, mu, 7) for mu in MUS] == list(whole.values())
    assert design_points(study | {"design": "grid"}, 0.4, 7) == grid([0.4], SIGMAS, 1, ALIGNMENTS)


def record(mu, sigma, alignment, **injected):
    return {"mu": mu, "sigma": sigma, "alignment": alignment, "injected": injected}


def test_the_discrete_level_share_by_hand():
    # mu repeats (2 values for 4 models: levels), sigma does not, alignment is one level:
    # the level means of x are 2 and 7, residuals 1, 1, 2, 2, so R² = 1 - 10 / 35
    records = [
        record(0.3, 0.1, 0.0, x=1.0, y=5.0),
        record(0.3, 0.2, 0.0, x=3.0, y=5.0),
        record(0.7, 0.3, 0.0, x=5.0, y=1.0),
        record(0.7, 0.4, 0.0, x=9.0, y=1.0),
    ]
    table = discrete_level_share(records).set_index("quantity")
    assert table.loc["x", "discrete_factors"] == "mu, alignment"
    assert table.loc["x", "discrete_level_share"] == pytest.approx(1 - 10 / 35)
    assert table.loc["y", "discrete_level_share"] == pytest.approx(1.0)
    assert not table["at_most_half"].any()
    drawn = [r | {"mu": r["sigma"] + 0.5} for r in records]  # every value its own
    table = discrete_level_share(drawn).set_index("quantity")
    assert (table["discrete_factors"] == "alignment").all()  # one level: nothing to set
    assert (table["discrete_level_share"] == 0).all()


def drawn_truths(points, seed=3):
    """Each model's injected quantities from its drawn male probabilities (before training)
    on a stereotype vector like debiaswe's (a third of the occupations unrated)."""
    rng = np.random.default_rng(seed)
    stereotype = np.where(rng.random(80) < 1 / 3, 0.0, rng.normal(0, 0.3, 80))
    return [
        record(mu, sigma, alignment, **injected_bias(p, stereotype))
        for mu, sigma, alignment, repeat in points
        for p in [male_probabilities(stereotype, mu, sigma, alignment, repeat, seed)]
    ]


def test_the_grid_sets_most_of_a_truth_and_the_default_design_none():
    shares = discrete_level_share(drawn_truths(grid(MUS, SIGMAS, 1, ALIGNMENTS)))
    assert shares["discrete_level_share"].max() > 0.9  # the check can fail
    assert shares["discrete_level_share"].min() > MAX_DISCRETE_SHARE
    study = default_config()["groundtruth"]
    assert study["design"] == "latin-hypercube"
    jobs = latin_hypercube(study["mu"], study["sigma"], study["repeats"], study["alignment"], 0)
    points = [p for job in jobs.values() for p in job]
    assert len(points) == len(
        grid(study["mu"], study["sigma"], study["repeats"], study["alignment"])
    )
    shares = discrete_level_share(drawn_truths(points))
    assert (shares["discrete_factors"] == "none").all() and shares["at_most_half"].all()
    assert (shares["discrete_level_share"] <= MAX_DISCRETE_SHARE).all()
