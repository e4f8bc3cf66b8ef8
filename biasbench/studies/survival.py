"""Survival: how many of the cells a paper's test calls significant stay significant under the
word-level test (the stimulus word as the exchangeable unit) and under the word-level test
within word-piece counts; the cells whose design cannot reach alpha are counted apart
(:func:`biasbench.studies.calibration.can_reject`).
"""

from __future__ import annotations

import pandas as pd

from biasbench.studies.calibration import can_reject, p_column

#: the survival table's counts, in order
SURVIVAL = ["tested", "cannot_reject", "significant_paper", "word_cannot_reject", "word_tested"]
SURVIVAL += ["surviving", "strata_tested", "surviving_strata"]


def survival(cells: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Per method: of its cells with a paper p-value (``tested``), how many cannot reach
    alpha whatever the model (``cannot_reject``: the design's floor), how many the paper's
    test calls significant (p_value < alpha), how many of those have a word-level p-value
    whose design cannot reach alpha (``word_cannot_reject``, left out of the share) or can
    (``word_tested``), how many of those remain significant under it (p_word < alpha,
    ``surviving``) and that share of ``word_tested`` (NaN without one); the same under the
    word-level test within word-piece counts (``strata_tested``, ``surviving_strata``)."""
    paper, word = p_column(cells, "p_value"), p_column(cells, "p_word")
    strata = p_column(cells, "p_word_strata")
    significant = paper < alpha
    word_able = can_reject(cells, "p_word", alpha)
    strata_able = can_reject(cells, "p_word_strata", alpha)
    frame = pd.DataFrame(
        {
            "method": cells["method"],
            "tested": paper.notna(),
            "cannot_reject": paper.notna() & ~can_reject(cells, "p_value", alpha),
            "significant_paper": significant,
            "word_cannot_reject": significant & word.notna() & ~word_able,
            "word_tested": significant & word.notna() & word_able,
            "surviving": significant & word_able & (word < alpha),
            "strata_tested": significant & strata.notna() & strata_able,
            "surviving_strata": significant & strata_able & (strata < alpha),
        }
    )
    frame = frame[frame["tested"]]
    out = frame.groupby("method", sort=True)[SURVIVAL].sum().astype(int)
    out["survival_share"] = survival_share(out)
    return out.reset_index().reindex(columns=["method", *SURVIVAL, "survival_share"])


def survival_share(counts: pd.DataFrame) -> pd.Series:
    """surviving / word_tested per row of survival counts (NaN without a word-tested cell)."""
    return (counts["surviving"] / counts["word_tested"]).where(counts["word_tested"] > 0)
