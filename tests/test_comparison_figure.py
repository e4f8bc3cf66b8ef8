"""The comparison's figure: a panel per family the table holds, in the card's order, a row
per measure with its interval, filled only where the difference is found."""

import numpy as np
import pandas as pd

from biasbench.reports.comparison_figure import comparison_figure
from biasbench.reports.figures import pyplot


def table() -> pd.DataFrame:
    rows = [
        ("embedding", "C6/names", "s-SEAT", "sent/last", -0.5, -0.9, -0.1, True),
        ("data set", "crows_pairs", "CrowS-Pairs", "mlm-pll", 1.0, -2.0, 4.0, False),
        ("embedding", "C6/names", "RND", "word/mean", 0.01, -0.02, 0.04, False),
    ]
    frame = pd.DataFrame(
        rows,
        columns=[
            "family",
            "dataset",
            "method",
            "encoding",
            "difference",
            "low",
            "high",
            "significant",
        ],
    )
    return frame.assign(base="base", against="debiased")


def test_a_panel_per_family_a_row_per_measure_filled_where_found():
    fig = comparison_figure(table(), 0.01)
    data_set, embedding = fig.axes
    assert [t.get_text() for t in data_set.get_yticklabels()] == [
        "crows_pairs · CrowS-Pairs (mlm-pll)"
    ]
    # the table's first embedding row on top
    assert [t.get_text() for t in embedding.get_yticklabels()] == [
        "C6/names · RND (word/mean)",
        "C6/names · s-SEAT (sent/last)",
    ]
    assert "points" in data_set.get_xlabel() and "effect-size units" in embedding.get_xlabel()
    found, not_found = embedding.collections[1:3]  # after the intervals' line collection
    assert np.allclose(found.get_offsets(), [[-0.5, 1]])
    assert np.allclose(not_found.get_offsets(), [[0.01, 0]])
    (segments,) = [c.get_segments() for c in embedding.collections[:1]]
    assert np.allclose(segments[1], [[-0.9, 1], [-0.1, 1]])
    assert fig._suptitle.get_text() == "debiased minus base, 95% intervals; Holm over 3 measures"
    pyplot().close(fig)
