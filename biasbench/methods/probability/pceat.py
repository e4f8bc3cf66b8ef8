"""Probability-based CEAT (Husse & Spitz 2022, Table 14): LPBS on natural contexts, combined
as in CEAT.

Sample i picks one context per (attribute, target) pair that has any, computes LPBS' bias
score per attribute over those contexts (eq. 10, log space) and the effect size d_i (eq. 11)
with v_i = the sample variance of the bias scores, and the samples are combined by CEAT's
random-effects model (``biasbench.stats.random_effects``). An attribute needs a context with
some X and some Y target; a set with fewer than two such attributes has no score (as in the
paper). Samples whose bias scores are all equal (no spread, no effect size) are left out of
the combination.
"""

from __future__ import annotations

import itertools

import numpy as np

from biasbench.errors import EmptySetError
from biasbench.methods.contract import ContextLogProbs, Method, Settings
from biasbench.rows import Score
from biasbench.stats import random_effects


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    """log(sum(exp(a))) along an axis of finite values, shifted by their maximum (scipy's
    general version is several times slower on the (samples, targets) draws here)."""
    top = a.max(axis=axis, keepdims=True)
    return np.log(np.exp(a - top).sum(axis=axis)) + np.squeeze(top, axis=axis)


def score(inputs: ContextLogProbs, settings: Settings, seed: int) -> Score:
    """Probability-based CEAT (see module doc). Attributes and targets without usable
    contexts are dropped and reported; too few usable attributes raise EmptySetError."""
    x, y, a, b = (list(inputs.sets[r]) for r in "XYAB")
    targets, attributes = x + y, a + b
    t_index = {t: j for j, t in enumerate(targets)}
    a_index = {w: i for i, w in enumerate(attributes)}
    cells = {
        (a_index[w], t_index[t]): np.asarray(values, np.float64)
        for (t, w), values in sorted(inputs.cells.items())
        if t in t_index and w in a_index and len(values)
    }
    n_x = len(x)
    has = np.zeros((len(attributes), len(targets)), bool)
    for i, j in cells:
        has[i, j] = True
    usable = has[:, :n_x].any(axis=1) & has[:, n_x:].any(axis=1)
    keep_a = [i for i in range(len(a)) if usable[i]]
    keep_b = [i for i in range(len(a), len(attributes)) if usable[i]]
    used_targets = has[usable].any(axis=0)
    dropped = {
        "X": [t for j, t in enumerate(x) if not used_targets[j]],
        "Y": [t for j, t in enumerate(y) if not used_targets[n_x + j]],
        "A": [attributes[i] for i in range(len(a)) if not usable[i]],
        "B": [attributes[i] for i in range(len(a), len(attributes)) if not usable[i]],
    }
    if len(keep_a) < 2 or len(keep_b) < 2:
        raise EmptySetError(
            f"too few attributes with contexts of both target sets (A: {len(keep_a)}, "
            f"B: {len(keep_b)}; at least 2 each)",
            dropped,
        )
    n_samples = settings.ceat_samples
    rng = np.random.default_rng(seed)
    rows = keep_a + keep_b
    row_of = {i: r for r, i in enumerate(rows)}
    bs = np.empty((n_samples, len(rows)))  # bias score (eq. 10) per sample and attribute
    # draws in the order of the (attribute, target) words, not of the roles: swapping the
    # attribute or the target sets then reuses every draw and exactly negates the result. The
    # sums of eq. 10 run over the targets an attribute has contexts with, one attribute at a
    # time.
    order = sorted(
        (c for c in cells if c[0] in row_of), key=lambda c: (attributes[c[0]], c[0], targets[c[1]])
    )
    for i, group in itertools.groupby(order, key=lambda c: c[0]):
        x_draws, y_draws = [], []
        for _, j in group:
            values = cells[(i, j)]
            drawn = values[rng.integers(len(values), size=n_samples)]  # (samples, 2)
            (x_draws if j < n_x else y_draws).append(drawn)
        lx = _logsumexp(np.stack(x_draws, axis=1), axis=1)  # (samples, [log p_t, log p_p])
        ly = _logsumexp(np.stack(y_draws, axis=1), axis=1)
        bs[:, row_of[i]] = (lx[:, 0] - lx[:, 1]) - (ly[:, 0] - ly[:, 1])
    sd = bs.std(axis=1, ddof=1)
    spread = sd > 0  # a sample whose bias scores are all equal has no effect size
    if not spread.any():
        raise EmptySetError("no sample has bias scores that differ", dropped)
    bs, sd = bs[spread], sd[spread]
    d = (bs[:, : len(keep_a)].mean(axis=1) - bs[:, len(keep_a) :].mean(axis=1)) / sd
    ces, se, tau2, p = random_effects(d, sd**2)
    sizes = {r: len(inputs.sets[r]) - len(dropped[r]) for r in "XYAB"}
    return Score(
        ces,
        p,
        se=se,
        tau_squared=tau2,
        n_partitions=len(d),
        sizes=sizes,
        samples=d,
        dropped=dropped,
    )


P_CEAT = Method(
    "p-CEAT",
    "Husse & Spitz (2022)",
    "probability",
    ContextLogProbs,
    score,
    reads=("ceat_samples",),
    encodings=("mlm", "causal"),
    variants=("full", "reduced"),
    model_kinds=("transformer",),
    context="natural",
    unit="sampled context",
    description="Probability-based CEAT: LPBS bias scores per sampled natural context, "
    "combined as in CEAT.",
)
