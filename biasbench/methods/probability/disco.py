"""DisCo, discovery of correlations (Webster et al., 2020).

Two-slot templates ("X likes [MASK].") are filled in the first slot with each side of name
pairs or noun pairs (male and female); the model's top-3 fills of the [MASK] slot are kept
(Lauscher et al.: every fill with P > 0.1 instead). Per template and fill word, a chi-square
test of its *counts* with the male and with the female fillers (Delobelle et al.'s code tested
normalised probabilities instead) finds the fills significantly associated with gender
(p < 0.05 after Bonferroni over the template's fills); the score is their number, averaged
over the templates (0: no gendered fills).

DisCo has no test of its score (the chi-square tests are part of the count, per template and
fill), so ``p_value`` and ``p_word`` are NaN. A word-level test would need a null of the
count: the templates share their fillers (every template is filled with the same name or noun
pairs), so templates are not independent units, and permuting the male/female labels of whole
filler pairs (each pair's fills in every template moving together) is the design such a test
would take; it is not built.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import ON_DATA_SET, FillCounts, Method, Settings, Truth
from biasbench.rows import Score


def gendered_fills(counts: dict[str, tuple[int, int]], alpha: float = 0.05) -> list[str]:
    """The fills of one template whose male/female counts differ significantly."""
    from scipy.stats import chi2_contingency  # lazily: planning the DAG imports the registry

    if not counts:
        return []
    total_m = sum(m for m, _ in counts.values())
    total_f = sum(f for _, f in counts.values())
    found = []
    for word, (m, f) in counts.items():
        if not (isinstance(m, (int, np.integer)) and isinstance(f, (int, np.integer))):
            raise TypeError(f"DisCo: counts of {word!r} must be integers, got {m!r}, {f!r}")
        table = np.array([[m, total_m - m], [f, total_f - f]])
        if (table.sum(axis=0) == 0).any() or (table.sum(axis=1) == 0).any():
            continue
        p = chi2_contingency(table, correction=False).pvalue
        if p * len(counts) < alpha:  # Bonferroni over the template's fills
            found.append(word)
    return found


def score(inputs: FillCounts, settings: Settings, seed: int) -> Score:
    per_template = [len(gendered_fills(dict(t))) for t in inputs.counts]
    return Score(
        float(np.mean(per_template)),
        sizes={"X": len(per_template)},
        note="DisCo reports a count, not a test statistic",
    )


DISCO = Method(
    "DisCo",
    "Webster et al. (2020)",
    "probability",
    FillCounts,
    score,
    encodings=("mlm", "causal"),
    variants=("names", "nouns", "names+p>0.1", "nouns+p>0.1"),
    choices=("names+p>0.1",),  # nouns: another filler list
    model_kinds=("transformer",),
    roles=("items",),
    unit="template",
    swap="keeps",
    description="Fills of a template's [MASK] significantly associated with male or female "
    "fillers, averaged over templates.",
    reference="iPieter/biased-rulers: biased_rulers/metrics/disco.py",
    truth=Truth(
        "magnitude",
        ON_DATA_SET,
        "completions that differ between male and female names, whichever way: a magnitude",
    ),
)
