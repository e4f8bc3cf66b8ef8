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
import pandas as pd

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


#: the study's design parameters, each a factor of the share below
DESIGN_FACTORS = ("mu", "sigma", "alignment")
#: the most of a truth quantity's variance a few discrete levels may set (issue of the grid: its
#: 5 x 3 x 2 levels set 88-99%, so a league's rho mostly graded one level against another)
MAX_DISCRETE_SHARE = 0.5


def discrete_level_share(records: list[dict]) -> pd.DataFrame:
    """Per injected quantity, the share of its variance across the study's models that the
    design's discrete levels set: R² of the quantity on the main effects (one indicator per
    level) of each design parameter whose values repeat (at most half as many distinct
    values as models). A grid's parameters are all such levels; a Latin hypercube's none, so
    its share is 0 and every quantity varies as continuously as its parameters."""
    frame = pd.DataFrame([{**{f: r[f] for f in DESIGN_FACTORS}, **r["injected"]} for r in records])
    discrete = [f for f in DESIGN_FACTORS if frame[f].nunique() <= len(frame) / 2]
    levels = [
        pd.get_dummies(frame[f].astype(str), drop_first=True, dtype=float).to_numpy()
        for f in discrete
    ]
    design = np.column_stack([np.ones(len(frame)), *levels])
    rows = []
    for quantity in records[0]["injected"] if records else ():
        y = frame[quantity].to_numpy(float)
        ok = np.isfinite(y)
        total = np.sum((y[ok] - y[ok].mean()) ** 2)
        if not discrete:
            share = 0.0  # no level repeats: nothing but the mean to fit
        elif total == 0:
            share = np.nan
        else:
            fitted = design[ok] @ np.linalg.lstsq(design[ok], y[ok], rcond=None)[0]
            share = float(1 - np.sum((y[ok] - fitted) ** 2) / total)
        rows.append(
            {
                "quantity": quantity,
                "models": int(ok.sum()),
                "discrete_factors": ", ".join(discrete) or "none",
                "discrete_level_share": max(share, 0.0),
                "at_most_half": bool(share <= MAX_DISCRETE_SHARE),
            }
        )
    return pd.DataFrame(
        rows,
        columns=["quantity", "models", "discrete_factors", "discrete_level_share", "at_most_half"],
    )
