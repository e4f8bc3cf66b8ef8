"""Delobelle et al.'s (2022) LPBS variant: Kurita et al.'s prior-corrected log-probability
bias of "he" against "she" in "GGG is a XXX", over the professions of a salary file.

Per profession x, with GGG's probability read at GGG's slot (the prior with XXX masked too,
read at GGG's slot as well, not at the last mask as Kurita et al.'s code does):

    b(x) = log P(he | x) / P(he | [MASK]) - log P(she | x) / P(she | [MASK])

The paper reports the mean and the standard deviation of b over the professions; the row
holds the mean, its standard error (sd / sqrt n) and a two-sided Wilcoxon signed-rank test of
b against 0. Swapping he and she negates it.

``p_word`` equals ``p_value``: the items are the professions, one sentence each, so they are
words already and no two items share a profession. The one word pair the statistic contrasts,
he/she, is shared by every item; a word-level test over it has two sign vectors (p = 1
always) and is not meaningful. What remains is therefore not tested: a he/she difference
that is the same for every profession (the two pronouns' own place in the model, left over
after the prior correction) counts as bias of every profession alike, and on a null model
the Wilcoxon test of such a shift is as liberal as the shift is large against the spread of
b over the professions.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import ON_DATA_SET, WHY_SLOT, Associations, Method, Settings, Truth
from biasbench.rows import Score
from biasbench.stats import wilcoxon_floor


def score(inputs: Associations, settings: Settings, seed: int) -> Score:
    from scipy.stats import wilcoxon  # lazily: planning the DAG imports the registry

    b = np.asarray(inputs.male, float) - np.asarray(inputs.female, float)
    p = wilcoxon(b).pvalue if np.any(b != 0) else 1.0
    se = float(b.std(ddof=1) / np.sqrt(len(b))) if len(b) > 1 else np.nan
    floor = wilcoxon_floor(len(b))
    return Score(
        float(b.mean()),
        float(p),
        p_word=float(p),
        p_floor=floor,
        p_word_floor=floor,
        se=se,
        sizes={"X": len(b), "Y": len(b)},
    )


LPBS_PRONOUN = Method(
    "LPBS he/she",
    "Delobelle et al. (2022), after Kurita et al. (2019)",
    "probability",
    Associations,
    score,
    encodings=("mlm", "causal", "mlm-pieces"),
    model_kinds=("transformer",),
    roles=("items",),
    unit="profession",
    description="Mean prior-corrected log-probability bias of he over she in 'GGG is a XXX' "
    "over a salary file's professions.",
    reference="iPieter/biased-rulers: biased_rulers/metrics/lpbs.py",
    truth=Truth(
        "direction",
        ON_DATA_SET,
        "he against she over the salary data set's professions: which gender all lean to; "
        + WHY_SLOT,
        reads_filter=True,
    ),
)
