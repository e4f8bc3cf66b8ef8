"""What each method's score should follow on the ground-truth study's models, and the
injected quantities of one model from its occupations' male shares (:func:`injected_bias`).

Each method declares its truth with itself (``Method.truth``, a
:class:`~biasbench.methods.contract.Truth`: one injected quantity per construct, with the
reason); :func:`truth_of` looks a registered method's up by name. A league of correlations is
a ranking only when each method is held against the quantity its construct measures: a test
of X against Y against the difference it contrasts, a magnitude against a magnitude, a data
set's stereotype share against the stereotype-consistent share of the injection, on the
category that was injected (gender).
"""

from __future__ import annotations

import numpy as np

from biasbench.methods import registry
from biasbench.methods.contract import Truth

#: the category of a data set's items the study's injection is on (a data set's rows are held
#: against their truth on the items of this category alone)
INJECTED_CATEGORY = "gender"


def truth_of(method: str) -> Truth:
    """The truth a registered method declares (a KeyError names a method not registered)."""
    return registry.get(method).truth


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
