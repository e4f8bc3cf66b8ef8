"""The cells every comparison across the four papers stands on.

A *cell* is one (model, test, descriptor) of a method's primary rows (its default encoding and
variant); where a method has primary rows on several context sources for one cell, the source
its paper's tables show (the registry's ``context``) is taken, else the first. Across models, a
method's cell is its mean primary score per model (:func:`model_cells`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

CELL = ["model", "test", "descriptor"]
MIN_CELLS = 4  # fewer shared cells: no correlation


def primary_cells(scores: pd.DataFrame, context: Mapping[str, str]) -> pd.DataFrame:
    """One row per (method, cell): the primary score, on the method's own context source
    where it has one; rows without an effect size are left out."""
    rows = scores[scores["primary"].astype(bool) & scores["effect_size"].notna()].copy()
    rows[CELL] = rows[CELL].astype(object).fillna("")  # an empty descriptor reads back as NaN
    rows["own"] = rows["method"].map(context).eq(rows["source"])
    rows = rows.sort_values(
        ["method", *CELL, "own", "source"], ascending=[True] * 4 + [False, True]
    )
    return rows.drop_duplicates(["method", *CELL]).drop(columns="own").reset_index(drop=True)


def model_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """One cell per (method, model): the mean primary effect size over the model's tests (the
    data-set measures: their overall row), for agreement across models."""
    overall = cells[(cells["family"] != "probability") | (cells["descriptor"] == "all")]
    mean = overall.groupby(["method", "model"], as_index=False)["effect_size"].mean()
    return mean.assign(test="(mean over tests)", descriptor="", p_value=np.nan)
