"""WinoBias (Zhao et al., 2018) as Delobelle et al. (2022) report it: pronoun resolution on
pro- and anti-stereotypical sentences, with F1 per group of items.

Each item is a forced choice between the two occupations of the sentence, so precision and
recall of "the referent was found" coincide and F1 is the share resolved correctly. With
F1(group) over the items of a group (pro/anti, male/female pronoun):

    gap        = F1(pro) - F1(anti)                                 (> 0: stereotypes help)
    skew       = (|F1(male pro) - F1(female pro)| + |F1(male anti) - F1(female anti)|) / 2
    stereotype = (|F1(male pro) - F1(male anti)| + |F1(female pro) - F1(female anti)|) / 2

in percentage points. The gap's p-value: two-sided Fisher exact test of correct answers in the
pro against the anti items. Swapping pro and anti negates the gap and keeps skew and stereotype.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import ON_DATA_SET, Method, Resolutions, Settings, Truth
from biasbench.rows import Score


def f1(inputs: Resolutions, pro: bool | None = None, male: bool | None = None) -> float:
    """F1 (= accuracy of the forced choice) in percent over the items of one group."""
    keep = np.ones(len(inputs.correct), bool)
    if pro is not None:
        keep &= np.asarray(inputs.pro, bool) == pro
    if male is not None:
        keep &= np.asarray(inputs.male, bool) == male
    return 100.0 * float(np.mean(np.asarray(inputs.correct, bool)[keep]))


def _sizes(inputs: Resolutions) -> dict[str, int]:
    pro = np.asarray(inputs.pro, bool)
    return {"X": int(pro.sum()), "Y": int((~pro).sum())}


def f1_gap(inputs: Resolutions) -> float:
    """The gap alone: F1 on the pro- minus F1 on the anti-stereotypical items."""
    return f1(inputs, pro=True) - f1(inputs, pro=False)


def gap(inputs: Resolutions, settings: Settings, seed: int) -> Score:
    from scipy.stats import fisher_exact  # lazily: planning the DAG imports the registry

    correct, pro = np.asarray(inputs.correct, bool), np.asarray(inputs.pro, bool)
    table = [
        [int((correct & pro).sum()), int((~correct & pro).sum())],
        [int((correct & ~pro).sum()), int((~correct & ~pro).sum())],
    ]
    p = fisher_exact(table).pvalue
    n_pro, n_anti = int(pro.sum()), int((~pro).sum())
    floor = fisher_exact([[n_pro, 0], [0, n_anti]]).pvalue  # every pro right, every anti wrong
    return Score(
        f1_gap(inputs),
        float(p),
        p_floor=float(floor),
        sizes=_sizes(inputs),
    )


def skew(inputs: Resolutions, settings: Settings, seed: int) -> Score:
    value = sum(abs(f1(inputs, pro, True) - f1(inputs, pro, False)) for pro in (True, False))
    return Score(value / 2, sizes=_sizes(inputs))


def stereotype(inputs: Resolutions, settings: Settings, seed: int) -> Score:
    value = sum(abs(f1(inputs, True, male) - f1(inputs, False, male)) for male in (True, False))
    return Score(value / 2, sizes=_sizes(inputs))


def _method(name: str, compute, swap: str, description: str, truth: Truth, effect=None) -> Method:
    return Method(
        name,
        "Zhao et al. (2018); Delobelle et al. (2022)",
        "extrinsic",
        Resolutions,
        compute,
        effect=effect,
        encodings=("mlm", "causal"),
        variants=("type1", "type2"),
        model_kinds=("transformer",),
        roles=("items",),
        unit="sentence",
        swap=swap,
        description=description,
        truth=truth,
    )


WINOBIAS_GAP = _method(
    "WinoBias F1 gap",
    gap,
    "negates",
    "F1 on pro- minus anti-stereotypical WinoBias sentences (percentage points).",
    Truth(
        "stereotype",
        ON_DATA_SET,
        "pro- minus anti-stereotypical resolution: the stereotype share",
    ),
    effect=f1_gap,  # Fisher's exact test costs more than the gap: the bootstrap skips it
)
WINOBIAS_SKEW = _method(
    "WinoBias skew",
    skew,
    "keeps",
    "Mean absolute F1 difference between male and female pronouns, within pro and anti.",
    Truth("magnitude", ON_DATA_SET, "the male/female gap whatever its side: a magnitude"),
)
WINOBIAS_STEREOTYPE = _method(
    "WinoBias stereotype",
    stereotype,
    "keeps",
    "Mean absolute F1 difference between pro and anti items, within each pronoun gender.",
    Truth(
        "stereotype",
        ON_DATA_SET,
        "the pro/anti gap per pronoun: rises with the share of stereotype-consistent resolutions",
    ),
)
