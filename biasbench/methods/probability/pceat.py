"""Probability-based CEAT (Husse & Spitz 2022, Table 14): LPBS on natural contexts, combined
as in CEAT.

Sample i picks one context per (attribute, target) pair that has any, computes LPBS' bias
score per attribute over those contexts (eq. 10, log space) and the effect size d_i (eq. 11)
with v_i = the sample variance of the bias scores, and the samples are combined by CEAT's
random-effects model (``biasbench.stats.random_effects``). An attribute needs a context with
some X and some Y target; a set with fewer than two such attributes has no score (as in the
paper). Samples whose bias scores are all equal (no spread, no effect size) are left out of
the combination.

``p_value`` is the random-effects model's two-sided z-test of the combined effect size (CES),
as in CEAT. It treats the samples as independent estimates of one effect, but every sample
scores the same attribute words (and draws its contexts from the same few per pair): what
the samples share is the words' own position in the model, which no number of samples
averages away, so on a model with no bias but with words of their own (a random-weight one)
the z-test calls almost every set significant. ``p_word`` (:func:`word_level_test`) keeps
the CES as the statistic and takes its null distribution from the attribute words: the A/B
labels of whole attribute words are permuted (every sample's bias score of a word moves with
it) and the CES recomputed over the same samples, a cluster (restricted) permutation test
(Good, 2005, *Permutation, Parametric and Bootstrap Tests of Hypotheses*: permute only what
the null makes exchangeable; Edgington & Onghena, 2007, *Randomization Tests*: permute the
units that carry the label). The attributes are the side the statistic contrasts (eq. 11:
mean over A minus mean over B) and the units LPBS' own test permutes, so with one context
per pair p_word is LPBS' test of the CES.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from biasbench.errors import EmptySetError
from biasbench.inference import split_p_values, word_splits
from biasbench.methods.contract import (
    ON_STUDY,
    WHY_SLOT,
    WHY_TEST,
    ContextLogProbs,
    Method,
    Settings,
    Truth,
)
from biasbench.rows import Score
from biasbench.stats import TIE_RTOL, PermutationResult, derived_seed, random_effects


def _logsumexp(a: np.ndarray) -> np.ndarray:
    """log(sum(exp(a))) over the first axis of finite values, shifted by their maximum
    (scipy's general version is several times slower on the (targets, samples, 2) draws
    here). Overwrites ``a``. The draws are laid out target-first so that every pass runs over
    contiguous memory; numpy sums over a leading (or middle) axis in order, so the sums are
    the same as over the middle axis of the (samples, targets, 2) layout."""
    top = a.max(axis=0)
    np.subtract(a, top, out=a)
    np.exp(a, out=a)
    total = a.sum(axis=0)
    np.log(total, out=total)
    total += top
    return total


#: relative width of the tau^2 bins of :func:`combined_effects`: each weight 1/(v_i + tau^2)
#: of a split lies within this factor of its bin's, which bounds the CES to within
#: ``BIN_WIDTH * max_i |d_i|`` of the bin's value
BIN_WIDTH = 1e-3


def combined_effects(bs: np.ndarray, sd: np.ndarray):
    """A function ``ces_of(weights, observed=None)``: the random-effects combined effect size
    (``biasbench.stats.random_effects``) of the samples' effect sizes ``d_i = bs_i . omega /
    sd_i`` for each row omega of ``weights`` ((splits, attributes): 1/n_A on an attribute
    labelled A, -1/n_B on one labelled B).

    The within-sample variances ``v_i = sd_i^2`` do not depend on the labels (sd is the
    spread of all of a sample's bias scores), so Cochran's Q of a split is a quadratic form
    in omega, ``omega' M omega`` with M the weighted scatter of ``z_i = bs_i / sd_i`` about
    their weighted mean: a split costs O(attributes^2) up to tau^2. Where tau^2 = 0 the CES is
    ``omega . sum_i w_i z_i / sum_i w_i``; where tau^2 > 0 it is ``omega . g(tau^2)`` with
    ``g(t) = sum_i z_i / (v_i + t) / sum_i 1 / (v_i + t)``, which costs a pass over the
    samples per split. Given ``observed``, splits with tau^2 > 0 are first scored at the lower
    edge t_k of their bin (bins geometric in v_min + t, ratio 1 + ``BIN_WIDTH``: then every
    normalised weight of the split is within that factor of the bin's, so the CES is within
    ``BIN_WIDTH * max_i |d_i|`` of ``omega . g(t_k)``), and only the splits whose bound does
    not settle ``|CES| >= |observed|`` either way are computed exactly; the others come back
    as their bin values, on the same side of ``|observed|`` as their exact CES.
    """
    z = bs / sd[:, None]
    v = sd**2
    w = 1 / v
    total_w = w.sum()
    mean_z = w @ z / total_w
    centred = z - mean_z
    scatter = (centred * w[:, None]).T @ centred
    c = total_w - np.sum(w**2) / total_w
    df = len(v) - 1
    step = max(1, (1 << 22) // len(v))  # ~32 MB of (splits, samples) at a time
    v_min = float(v.min())
    row_norm = float(np.abs(z).sum(axis=1).max())  # max_i |d_i| <= row_norm * max |omega|
    bins: dict[int, np.ndarray] = {}

    def exact(weights: np.ndarray, tau2: np.ndarray) -> np.ndarray:
        out = np.empty(len(weights))
        buf = np.empty((min(step, len(weights)), len(v)))  # reused: no page faults per block
        for i in range(0, len(weights), step):
            inverse = buf[: min(step, len(weights) - i)]  # (splits, samples)
            np.add(tau2[i : i + step, None], v[None, :], out=inverse)
            np.divide(1.0, inverse, out=inverse)
            towards = inverse @ z  # (splits, attributes): sum_i z_i / (v_i + tau^2)
            out[i : i + step] = np.sum(weights[i : i + step] * towards, axis=1)
            out[i : i + step] /= inverse.sum(axis=1)
        return out

    def ces_of(weights: np.ndarray, observed: float | None = None) -> np.ndarray:
        q = weights @ scatter
        q *= weights
        q = q.sum(axis=1)
        tau2 = np.maximum(0.0, (q - df) / c) if c > 0 else np.zeros(len(weights))
        ces = weights @ mean_z
        positive = np.flatnonzero(tau2 > 0)
        if observed is None or not len(positive):
            ces[positive] = exact(weights[positive], tau2[positive])
            return ces
        keys = np.floor(np.log1p(tau2[positive] / v_min) / np.log1p(BIN_WIDTH)).astype(np.int64)
        approx = np.empty(len(positive))
        # each bin's splits in their order, found in one sort (not a pass over all per bin)
        by_key = np.argsort(keys, kind="stable")
        unique, first = np.unique(keys[by_key], return_index=True)
        for key, here in zip(unique, np.split(by_key, first[1:]), strict=True):
            if key not in bins:
                u = 1 / (v + v_min * np.expm1(key * np.log1p(BIN_WIDTH)))
                bins[int(key)] = u @ z / u.sum()
            approx[here] = weights[positive[here]] @ bins[int(key)]
        bound = BIN_WIDTH * row_norm * float(np.abs(weights).max()) * 1.01 + 1e-12
        tol = TIE_RTOL * max(1.0, abs(observed))
        unsure = np.abs(np.abs(approx) - abs(observed)) <= bound + tol
        ces[positive] = approx
        redo = positive[unsure]
        ces[redo] = exact(weights[redo], tau2[redo])
        return ces

    return ces_of


def word_level_test(
    bs: np.ndarray, sd: np.ndarray, n_a: int, *, exact_max: int, n_samples: int, seed: int
) -> PermutationResult:
    """p-CEAT's CES tested with the attribute word as the unit (see module doc): the A/B
    labels of the ``bs.shape[1]`` attribute columns are split as in
    :func:`biasbench.inference.word_splits` (every split when few, else seeded ones), the CES
    of each split computed over the same samples (:func:`combined_effects`), two-sided."""
    n_attr = bs.shape[1]
    weight = np.array([1 / n_a, -1 / (n_attr - n_a)])
    ces_of = combined_effects(bs, sd)
    subsets, exact, balanced = word_splits(
        n_attr, n_a, exact_max=exact_max, n_samples=n_samples, seed=seed
    )
    observed = float(ces_of(np.where(np.arange(n_attr) < n_a, weight[0], weight[1])[None])[0])
    stats = np.empty(len(subsets))
    block = 1 << 13
    buf = np.empty((min(block, len(subsets)), n_attr))  # reused: no page faults per block
    for i in range(0, len(subsets), block):
        rows = subsets[i : i + block]
        weights = buf[: len(rows)]
        weights.fill(weight[1])
        np.put_along_axis(weights, rows.astype(np.intp), weight[0], axis=1)
        stats[i : i + len(rows)] = ces_of(weights, observed)
    return split_p_values(stats, observed, ("two-sided",), exact, balanced)[0]


@dataclass(frozen=True)
class SampledBiasScores:
    """LPBS' bias score (eq. 10) per sampled context set and usable attribute: ``bs``
    (samples, attributes A then B, the first ``n_a`` of A); ``dropped``: the stimuli
    without usable contexts, per role."""

    bs: np.ndarray
    n_a: int
    dropped: dict[str, list[str]]


def sampled_bias_scores(inputs: ContextLogProbs, n_samples: int, seed: int) -> SampledBiasScores:
    """Each of ``n_samples`` samples picks one context per (attribute, target) pair with any
    (seeded: two models with the same contexts draw the same ones) and gives each usable
    attribute its bias score. Attributes and targets without usable contexts are dropped and
    reported; too few usable attributes raise EmptySetError."""
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
    rng = np.random.default_rng(seed)
    rows = keep_a + keep_b
    row_of = {i: r for r, i in enumerate(rows)}
    bs = np.empty((n_samples, len(rows)))  # bias score (eq. 10) per sample and attribute
    # draws in the order of the (attribute, target) words, not of the roles: swapping the
    # attribute or the target sets then reuses every draw and exactly negates the result. The
    # sums of eq. 10 run over the targets an attribute has contexts with, one attribute at a
    # time, over buffers reused from one attribute to the next.
    order = sorted(
        (c for c in cells if c[0] in row_of), key=lambda c: (attributes[c[0]], c[0], targets[c[1]])
    )
    draws = {"X": np.empty((n_x, n_samples, 2)), "Y": np.empty((len(y), n_samples, 2))}
    for i, group in itertools.groupby(order, key=lambda c: c[0]):
        used = {"X": 0, "Y": 0}
        for _, j in group:
            values, role = cells[(i, j)], "X" if j < n_x else "Y"
            drawn = rng.integers(len(values), size=n_samples)
            # mode="clip" fills ``out`` directly (the indices are in range by construction)
            np.take(values, drawn, axis=0, out=draws[role][used[role]], mode="clip")
            used[role] += 1
        lx = _logsumexp(draws["X"][: used["X"]])  # (samples, [log p_t, log p_p])
        ly = _logsumexp(draws["Y"][: used["Y"]])
        bs[:, row_of[i]] = (lx[:, 0] - lx[:, 1]) - (ly[:, 0] - ly[:, 1])
    return SampledBiasScores(bs, len(keep_a), dropped)


def sample_effects(
    bs: np.ndarray, n_a: int, dropped: dict | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bias scores, sd, effect sizes d_i) of the samples whose bias scores differ (a sample
    whose scores are all equal has no effect size); none: EmptySetError."""
    sd = bs.std(axis=1, ddof=1)
    spread = sd > 0
    if not spread.any():
        raise EmptySetError("no sample has bias scores that differ", dropped or {})
    bs, sd = bs[spread], sd[spread]
    return bs, sd, (bs[:, :n_a].mean(axis=1) - bs[:, n_a:].mean(axis=1)) / sd


def combined_effect(bs: np.ndarray, n_a: int) -> float:
    """The CES of sampled bias scores ``bs`` (samples, attributes, the first ``n_a`` of A)."""
    _bs, sd, d = sample_effects(bs, n_a)
    return random_effects(d, sd**2)[0]


def score(inputs: ContextLogProbs, settings: Settings, seed: int) -> Score:
    """Probability-based CEAT (see module doc)."""
    sampled = sampled_bias_scores(inputs, settings.ceat_samples, seed)
    dropped = sampled.dropped
    bs, sd, d = sample_effects(sampled.bs, sampled.n_a, dropped)
    ces, se, tau2, p = random_effects(d, sd**2)
    word = word_level_test(
        bs,
        sd,
        sampled.n_a,
        exact_max=settings.exact_max,
        n_samples=settings.n_samples,
        seed=derived_seed(seed, "p-CEAT", "word"),
    )
    sizes = {r: len(inputs.sets[r]) - len(dropped[r]) for r in "XYAB"}
    return Score(
        ces,
        p,
        p_word=word.p_value,
        p_floor=0.0,  # a z-test: no floor above float's
        p_word_floor=word.floor,
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
    reads=("ceat_samples", "exact_max", "n_samples"),
    encodings=("mlm", "causal"),
    variants=("full", "reduced"),
    model_kinds=("transformer",),
    context="natural",
    unit="sampled context",
    permutes="attributes",
    description="Probability-based CEAT: LPBS bias scores per sampled natural context, "
    "combined as in CEAT.",
    truth=Truth("difference", ON_STUDY, f"{WHY_TEST}; {WHY_SLOT}", reads_filter=True),
)
