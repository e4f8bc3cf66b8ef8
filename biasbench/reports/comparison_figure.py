"""The paired comparison's figure: every measure's difference (against minus base) with its
95% interval over the units, one panel per family in the card's order (their units differ:
points for a data set, effect-size units otherwise), filled where the difference is found at
alpha after Holm, hollow where it is not."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from biasbench.reports.comparison_card import FAMILIES
from biasbench.reports.figures import pyplot

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def measure_label(row: dict) -> str:
    """A row's name on the figure: where it was measured, the measure and its encoding."""
    return f"{row['dataset']} · {row['method']} ({row['encoding']})"


def comparison_figure(table: pd.DataFrame, alpha: float) -> Figure:
    """The comparison's table (``studies.model_comparison.COLUMNS``) as a forest plot."""
    base, against = table["base"].iloc[0], table["against"].iloc[0]
    panels = [(f, spec) for f, spec in FAMILIES.items() if (table["family"] == f).any()]
    sizes = [int((table["family"] == f).sum()) for f, _spec in panels]
    fig, axes = pyplot().subplots(
        len(panels),
        1,
        figsize=(8, 1.2 + 0.28 * sum(sizes) + 0.6 * len(panels)),
        gridspec_kw={"height_ratios": [max(1, n) for n in sizes]},
        squeeze=False,
    )
    for k, (ax, (family, (heading, unit, _how))) in enumerate(zip(axes[:, 0], panels, strict=True)):
        rows = table[table["family"] == family].iloc[::-1]  # the table's first row on top
        y = np.arange(len(rows))
        found = rows["significant"].astype(bool).to_numpy()
        difference = rows["difference"].to_numpy(float)
        low, high = rows["low"].to_numpy(float), rows["high"].to_numpy(float)
        ax.hlines(y, low, high, color="C0", lw=1.5)
        ax.scatter(difference[found], y[found], color="C3", zorder=3, label=f"found at {alpha:g}")
        ax.scatter(
            difference[~found],
            y[~found],
            facecolors="white",
            edgecolors="C0",
            zorder=3,
            label="not found",
        )
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks(y, [measure_label(r) for r in rows.to_dict("records")], fontsize=7)
        ax.set_xlabel(f"{heading}: difference in {unit}", fontsize=8)
        if k == 0:
            ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(
        f"{against} minus {base}, 95% intervals; Holm over {len(table)} measures", fontsize=10
    )
    return fig
