"""CEAT (Guo & Caliskan, 2021): a distribution of WEAT effect sizes over sampled contexts,
combined with a random-effects meta-analysis (Borenstein et al., 2007).

Sample i draws one context per stimulus and computes the WEAT effect size d_i and, as the
within-sample variance, the sample variance (ddof=1) of the associations s(w, A, B) over
X u Y -- the convention of the original implementation. With weights w_i = 1/v_i,

    Q = sum w_i d_i^2 - (sum w_i d_i)^2 / sum w_i,      df = N - 1
    tau^2 = max(0, (Q - df) / (sum w_i - sum w_i^2 / sum w_i))
    w*_i = 1 / (v_i + tau^2),   CES = sum w*_i d_i / sum w*_i,   SE = sqrt(1 / sum w*_i)
    p = 2 (1 - Phi(|CES / SE|))                                      (two-sided)

The samples are vectorised without a matrix of cosines: for unit vectors

    s(t, A, B) = mean_a cos(t, a) - mean_b cos(t, b) = t . (mean_a a - mean_b b),

so a sample gathers its attribute contexts' unit vectors, reduces them to that difference
and takes its dot product with each of its target contexts. The former all-pairs cosine
matrix cost more to compute than all the samples and, with hundreds of attribute stimuli,
was far larger than the caches, so every gathered cosine was a cache miss (Dis: 8 s for
10,000 samples of 100 contexts per stimulus on one core; now ~2 s). The gathers are bound by
memory bandwidth, so the attribute vectors are float32, like the former code's cosines; the
dot products and the statistics are float64 (effect sizes within ~1e-6 of all-float64
arithmetic). Static vectors, one context per stimulus, make every sample the same: nothing is
gathered and each product is made once (Dis: ~0.015 s, formerly 0.4 s).

``p_word``, the word-level test of the combined effect. CEAT's p treats the N samples as N
independent studies, but every sample draws its contexts from the same few words: the SE of
the CES shrinks as 1/sqrt(N) while the words do not change, so with enough samples any
difference between the X and the Y words is "significant" (85% of random-weight cells at
p < 0.01; with one context per word every sample is the same WEAT and p -> 0 as N grows).
The word-level test keeps the statistic, the random-effects CES (Hedges & Vevea, 1998;
DerSimonian-Laird tau^2, as above), and draws its null distribution by permuting the X/Y
labels of whole target words, n_x kept: the cluster (restricted) permutation test of Good
(2005) and Edgington & Onghena (2007), the words the experimental units. The N context draws
are kept: sample i's context of word j moves with word j, so a split only reassigns the
columns of the samples' associations s_ij to X and Y. Under the null the words (each with
its contexts and its uniform draws, independent of the labels) are exchangeable, so every
split is equally likely and the share of splits with |CES| at least the observed is a valid
two-sided p (CEAT's own p is two-sided). The attributes are the same in every split.

A split is cheap: a sample's pooled sd, hence its within-sample variance v_i, does not
depend on the labels, and its effect is linear in them, d_i = z_i . c with z_i = s_i / sd_i
and c the split's contrast (1/n_x on X words, -1/n_y on Y words). Q needs sum_i w_i d_i and
sum_i w_i d_i^2 = c' (Z' W Z) c (a T x T Gram matrix, once); the CES one product of the
splits' weights 1/(v_i + tau^2) with Z. All splits of the target words when there are at
most ``WORD_SPLITS``, else that many seeded ones (p = (1 + hits) / (1 + n)), seeded from the
method's seed: on one core, 1,000 splits of 16 (50) target words over 10,000 samples take
~0.02 (0.04) s, beside ~0.06 (0.2) s for the samples themselves with 100 contexts per
stimulus (a few ms with one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from biasbench.encodings import SENT_ENCODINGS, WORD_ENCODINGS
from biasbench.inference import split_p_values, word_splits
from biasbench.methods.contract import (
    CONTEXTUAL,
    ON_STUDY,
    WHY_TEST,
    ContextVectors,
    Method,
    Settings,
    Truth,
)
from biasbench.methods.embedding.vectors import unit_rows
from biasbench.rows import Score
from biasbench.stats import (
    PermutationResult,
    derived_seed,
    few_words_note,
    random_effects,
)

#: bytes of gathered vectors per block of samples: small enough for a core's L2 cache
_BLOCK_BYTES = 1 << 19
#: splits of the target words in the word-level test: all of them up to this many, else
#: this many seeded ones. A split costs a pass over the N samples (~50-100 us for 10,000), so
#: not the 100,000 of ``Settings.n_samples``; the smallest sampled p is 1/1001
WORD_SPLITS = 1000


@dataclass(frozen=True)
class CeatResult:
    ces: float
    p_value: float
    se: float
    tau_squared: float
    n_samples: int
    effect_sizes: np.ndarray  # the per-sample d_i (for distribution figures)
    p_word: float = float("nan")  # the word-level test of the CES (NaN: not asked for)
    p_word_floor: float = float("nan")  # the smallest p_word its splits can give
    #: the word-level test exchanging target words within their word-piece count (NaN: no
    #: strata given)
    p_word_strata: float = float("nan")
    p_word_strata_floor: float = float("nan")


def ceat(
    contexts: dict[str, list[np.ndarray]],
    *,
    n_samples: int = Settings.ceat_samples,
    seed: int = 0,
    chunk: int = 1000,
    word_splits: int = 0,
    strata: Sequence[int] | None = None,
) -> CeatResult:
    """CEAT from per-role lists of per-stimulus context matrices.

    ``contexts[role][j]`` is an (n_contexts_j, dim) array of the j-th stimulus of role
    X, Y, A or B. Each sample picks one row per stimulus uniformly at random. With
    ``word_splits``, also the word-level p of the CES over that many splits of the target
    words (:func:`word_level_test`, seeded from ``seed``; the draws are the same either way),
    and with ``strata`` (each target's stratum, X then Y) the same test exchanging words only
    within their stratum.
    """
    ContextVectors(contexts).require("XYAB")
    targets = contexts["X"] + contexts["Y"]
    attributes = contexts["A"] + contexts["B"]
    n_t, n_attr = len(targets), len(attributes)
    t_offsets = np.cumsum([0] + [len(m) for m in targets])
    a_offsets = np.cumsum([0] + [len(m) for m in attributes])
    t_unit = unit_rows(np.concatenate(targets), "targets")
    a_unit = unit_rows(np.concatenate(attributes), "attributes").astype(np.float32)
    n_x, n_a, n_b = len(contexts["X"]), len(contexts["A"]), len(contexts["B"])
    # weights @ (one context per attribute stimulus) = mean A context - mean B context
    weights = np.concatenate([np.full(n_a, 1 / n_a), np.full(n_b, -1 / n_b)], dtype=np.float32)
    dim = a_unit.shape[1]
    a_block = max(1, _BLOCK_BYTES // (n_attr * dim * 4))  # samples per block
    t_block = max(1, _BLOCK_BYTES // (n_t * dim * 8))
    t_sizes, a_sizes = np.diff(t_offsets), np.diff(a_offsets)
    # A role whose stimuli have one context each (static vectors) is the same in every
    # sample: nothing of it is gathered, and a product of it alone is made once, by the same
    # BLAS call on the same numbers as each sample's. Its draws are still made (they fix the
    # later ones).
    a_fixed, t_fixed = bool(np.all(a_sizes == 1)), bool(np.all(t_sizes == 1))
    if a_fixed:
        fixed_diff = np.matmul(weights, a_unit).astype(np.float64)
        if t_fixed:
            fixed_s = np.matmul(t_unit, fixed_diff[:, None])[:, 0]
    else:
        a_gathered = np.empty((a_block, n_attr, dim), np.float32)
    if not t_fixed:
        t_gathered = np.empty((t_block, n_t, dim))
    rng = np.random.default_rng(seed)
    d_all, v_all, z_all = [], [], []
    for start in range(0, n_samples, chunk):  # ``chunk`` fixes the order of the draws
        m = min(chunk, n_samples - start)
        u_t, u_a = rng.random((m, n_t)), rng.random((m, n_attr))
        if a_fixed:
            diff = np.broadcast_to(fixed_diff, (m, dim))
        else:
            cols = a_offsets[:-1] + (u_a * a_sizes).astype(np.int64)
            diff32 = np.empty((m, dim), np.float32)  # per sample: mean A - mean B context
            for b in range(0, m, a_block):
                k = min(a_block, m - b)
                # mode="clip" fills ``out`` directly (the indices are in range by construction)
                g = a_unit.take(cols[b : b + k], axis=0, out=a_gathered[:k], mode="clip")
                np.matmul(weights, g, out=diff32[b : b + k])
            diff = diff32.astype(np.float64)  # as matmul would cast it, once per chunk
        s = np.empty((m, n_t))  # s(t, A, B) of each sample's target contexts
        if a_fixed and t_fixed:
            s[:] = fixed_s
        elif t_fixed:  # t_unit broadcast: one matrix-vector product per sample, as below
            np.matmul(t_unit, diff[:, :, None], out=s[:, :, None])
        else:
            rows = t_offsets[:-1] + (u_t * t_sizes).astype(np.int64)
            for b in range(0, m, t_block):
                k = min(t_block, m - b)
                g = t_unit.take(rows[b : b + k], axis=0, out=t_gathered[:k], mode="clip")
                np.matmul(g, diff[b : b + k, :, None], out=s[b : b + k, :, None])
        sd = s.std(axis=1, ddof=1)
        d_all.append((s[:, :n_x].mean(axis=1) - s[:, n_x:].mean(axis=1)) / sd)
        v_all.append(sd**2)
        if word_splits:
            z_all.append(s / sd[:, None])
    d, v = np.concatenate(d_all), np.concatenate(v_all)
    ces, se, tau2, p = random_effects(d, v)
    word = [float("nan")] * 4
    if word_splits:
        z = np.concatenate(z_all)
        test = word_level_test(z, v, n_x, n_splits=word_splits, seed=derived_seed(seed, "p_word"))
        word[:2] = test.p_value, test.floor
        if strata is not None:
            test = word_level_test(
                z,
                v,
                n_x,
                n_splits=word_splits,
                seed=derived_seed(seed, "p_word_strata"),
                strata=strata,
            )
            word[2:] = test.p_value, test.floor
    return CeatResult(ces, p, se, tau2, n_samples, d, *word)


def combined_effects(
    z: np.ndarray, v: np.ndarray, block: int = 32
) -> Callable[[np.ndarray], np.ndarray]:
    """A function ``ces_of(contrasts)``: the random-effects CES
    (:func:`biasbench.stats.random_effects`) of each split, sample i's effect under split p
    being ``z[i] @ contrasts[:, p]`` and its variance ``v[i]`` in every split. ``z`` (N, T),
    ``v`` (N,), ``contrasts`` (T, P); ``ces_of`` returns (P,). What depends on the samples
    alone (the weights, ``w @ z``, the Gram matrix) is computed once for every call. The
    weights of ``block`` splits at a time fill one reused buffer (a fresh (P, N) array each
    time costs 4x as much in page faults as the arithmetic); the block fixes the shape of
    each product, hence its bits."""
    if np.any(v <= 0):
        raise ValueError("within-sample variances must be positive")
    w = 1 / v
    sum_w = w.sum()
    c = sum_w - np.sum(w**2) / sum_w
    wz = w @ z
    gram = z.T @ (z * w[:, None])

    def ces_of(contrasts: np.ndarray) -> np.ndarray:
        s1 = wz @ contrasts  # sum_i w_i d_ip
        s2 = np.einsum("tp,tp->p", contrasts, gram @ contrasts)  # sum_i w_i d_ip^2
        q = s2 - s1**2 / sum_w
        tau2 = np.maximum(0.0, (q - (len(v) - 1)) / c) if c > 0 else np.zeros(len(q))
        ces = np.empty(contrasts.shape[1])
        buf = np.empty((min(block, len(ces)), len(v)))
        for b in range(0, len(ces), block):
            w_star = buf[: min(block, len(tau2) - b)]  # (splits, N): 1 / (v_i + tau^2_p)
            np.add(v[None, :], tau2[b : b + block, None], out=w_star)
            np.divide(1.0, w_star, out=w_star)  # = np.reciprocal, but vectorised: 2x faster
            num = np.einsum("pt,tp->p", w_star @ z, contrasts[:, b : b + block])
            ces[b : b + block] = num / w_star.sum(axis=1)
        return ces

    return ces_of


def word_level_test(
    z: np.ndarray,
    v: np.ndarray,
    n_x: int,
    *,
    n_splits: int,
    seed: int,
    strata: Sequence[int] | None = None,
) -> PermutationResult:
    """Two-sided word-level permutation test of CEAT's CES (the module's doc): ``z[i, j]`` is
    sample i's association of target word j (X words first, ``n_x`` of them) over the
    sample's pooled sd, ``v[i]`` its within-sample variance. All splits of the words when
    there are at most ``n_splits``, else ``n_splits`` seeded ones, as
    :mod:`biasbench.inference` draws them (with ``strata``, word j's stratum: only splits
    within strata); ties up to ``TIE_RTOL`` count."""
    n_words = z.shape[1]
    subsets, exact, balanced = word_splits(
        n_words, n_x, exact_max=n_splits, n_samples=n_splits, seed=seed, strata=strata
    )

    def contrasts(members: np.ndarray) -> np.ndarray:
        c = np.full((n_words, len(members)), -1 / (n_words - n_x))
        c[members.T, np.arange(len(members))] = 1 / n_x
        return c

    ces_of = combined_effects(z, v)
    observed = float(ces_of(contrasts(np.arange(n_x)[None]))[0])
    stats = np.concatenate(
        [ces_of(contrasts(subsets[i : i + 4096])) for i in range(0, len(subsets), 4096)]
    )
    return split_p_values(stats, observed, ("two-sided",), exact, balanced)[0]


def score(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    strata = None if inputs.strata is None else [*inputs.strata["X"], *inputs.strata["Y"]]
    res = ceat(
        dict(inputs.groups),
        n_samples=settings.ceat_samples,
        seed=seed,
        word_splits=WORD_SPLITS,
        strata=strata,
    )
    return Score(
        res.ces,
        res.p_value,
        p_word=res.p_word,
        p_floor=0.0,  # a z-test: no floor above float's
        p_word_floor=res.p_word_floor,
        p_word_strata=res.p_word_strata,
        p_word_strata_floor=res.p_word_strata_floor,
        se=res.se,
        tau_squared=res.tau_squared,
        n_partitions=res.n_samples,
        sizes={r: len(inputs.groups[r]) for r in "XYAB"},
        samples=res.effect_sizes,
        note=few_words_note({r: len(inputs.groups[r]) for r in "XY"}),
    )


CEAT = Method(
    "CEAT",
    "Guo & Caliskan (2021)",
    "embedding",
    ContextVectors,
    score,
    reads=("ceat_samples",),
    encodings=("word/mean", *WORD_ENCODINGS[1:], *SENT_ENCODINGS),
    variants=("full", "reduced"),
    model_kinds=CONTEXTUAL,
    context="natural",
    unit="sampled context",
    permutes="targets",
    scale_free=True,
    description="Contextualized Embedding Association Test: WEAT effect sizes over sampled "
    "contexts, one per stimulus, combined by a random-effects model.",
    truth=Truth("difference", ON_STUDY, WHY_TEST),
)
