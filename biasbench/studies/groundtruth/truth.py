"""What each method's score should follow on the ground-truth study's models: one injected
quantity per construct, declared for every registered method with the reason (:data:`TRUTH`),
and the quantities of one model from its occupations' male shares (:func:`injected_bias`).

A league of correlations is a ranking only when each method is held against the quantity its
construct measures: a test of X against Y against the difference it contrasts, a magnitude
against a magnitude, a data set's stereotype share against the stereotype-consistent share of
the injection, on the category that was injected (gender). ``tests/test_truth.py`` fails when
a registered method has no entry.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import ON_DATA_SET, ON_STUDY, QUANTITIES, Truth

__all__ = ["ON_DATA_SET", "ON_STUDY", "QUANTITIES", "TRUTH", "Truth", "injected_bias", "truth_of"]

#: the category of a data set's items the study's injection is on
INJECTED_CATEGORY = "gender"

_TEST = "a test of X against Y: its sign turns with the sets, so it follows their difference"
_MAGNITUDE = "a magnitude (its value keeps when X and Y swap): it follows |p - 1/2|, not a side"
_SLOT = "LPBS's log-probabilities of he and she at the slot, the filter's own quantity"
_SHARE = "the share of items where the model prefers the stereotype: stereotype-consistent share"

TRUTH: dict[str, Truth] = {
    "WEAT": Truth("difference", ON_STUDY, _TEST),
    "s-SEAT": Truth("difference", ON_STUDY, _TEST),
    "w-SEAT": Truth("difference", ON_STUDY, _TEST),
    "CEAT": Truth("difference", ON_STUDY, _TEST),
    "RIPA": Truth("difference", ON_STUDY, _TEST),
    "RND": Truth("difference", ON_STUDY, _TEST),
    "MAC": Truth("magnitude", ON_STUDY, _MAGNITUDE),
    "Direct Bias": Truth("magnitude", ON_STUDY, _MAGNITUDE),
    "SAME": Truth("magnitude", ON_STUDY, _MAGNITUDE),
    "DivDist": Truth(
        "magnitude", ON_STUDY, "distance of the occupations' associations from uniform"
    ),
    "SAME skew": Truth(
        "direction", ON_STUDY, "the signed mean association: which gender all lean to"
    ),
    "SAME stereotype": Truth(
        "spread", ON_STUDY, "how far the words' associations differ from each other"
    ),
    "LPBS": Truth("difference", ON_STUDY, f"{_TEST}; {_SLOT}", reads_filter=True),
    "LPBS he/she": Truth(
        "direction",
        ON_DATA_SET,
        f"he against she over the salary data set's professions: which gender all lean to; {_SLOT}",
        reads_filter=True,
    ),
    "p-CEAT": Truth("difference", ON_STUDY, f"{_TEST}; {_SLOT}", reads_filter=True),
    "CrowS-Pairs": Truth("stereotype", ON_DATA_SET, _SHARE),
    "AUL": Truth("stereotype", ON_DATA_SET, _SHARE),
    "StereoSet SS": Truth("stereotype", ON_DATA_SET, _SHARE),
    "BEC-Pro": Truth(
        "direction",
        ON_DATA_SET,
        "male minus female association over every profession group: which gender all lean to",
    ),
    "WinoBias F1 gap": Truth(
        "stereotype", ON_DATA_SET, "pro- minus anti-stereotypical resolution: the stereotype share"
    ),
    "WinoBias stereotype": Truth(
        "stereotype",
        ON_DATA_SET,
        "the pro/anti gap per pronoun: rises with the share of stereotype-consistent resolutions",
    ),
    "WinoBias skew": Truth(
        "magnitude", ON_DATA_SET, "the male/female gap whatever its side: a magnitude"
    ),
    "DisCo": Truth(
        "magnitude",
        ON_DATA_SET,
        "completions that differ between male and female names, whichever way: a magnitude",
    ),
    "StereoSet LMS": Truth(None, ON_DATA_SET, "language-modelling quality, not a bias"),
    "StereoSet ICAT": Truth(
        None, ON_DATA_SET, "quality times closeness to no preference: no one injected quantity"
    ),
}


def truth_of(method: str) -> Truth:
    """The declared truth of a registered method (a KeyError names a method without one)."""
    try:
        return TRUTH[method]
    except KeyError as missing:
        where = "biasbench.studies.groundtruth.truth.TRUTH"
        raise KeyError(f"method {method}: no entry in {where}") from missing


def injected_bias(male_share: np.ndarray, stereotype: np.ndarray) -> dict[str, float]:
    """The injected quantities of one model from its occupations' male shares (the training
    bias; NaN for an occupation without a training sentence) and debiaswe's stereotypes."""
    x, y, rated = stereotype > 0, stereotype < 0, stereotype != 0
    p = male_share[rated]
    consistent = np.where(stereotype[rated] > 0, p, 1 - p)
    return {
        "difference": float(np.nanmean(male_share[x]) - np.nanmean(male_share[y])),
        "direction": float(np.nanmean(p) - 0.5),
        "spread": float(np.nanstd(p)),
        "magnitude": float(np.nanmean(np.abs(p - 0.5))),
        "stereotype": float(np.nanmean(consistent)),
    }
