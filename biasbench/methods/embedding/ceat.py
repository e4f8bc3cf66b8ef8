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
10,000 samples on one core; now 2-3 s). The attribute gather is bound by memory bandwidth,
so those vectors are float32, like the former code's cosines; the dot products and the
statistics are float64 (effect sizes within ~1e-6 of all-float64 arithmetic).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biasbench.encodings import SENT_ENCODINGS, WORD_ENCODINGS
from biasbench.methods.contract import CONTEXTUAL, ContextVectors, Method, Settings
from biasbench.methods.embedding.vectors import unit_rows
from biasbench.rows import Score
from biasbench.stats import random_effects

#: bytes of gathered vectors per block of samples: small enough for a core's L2 cache
_BLOCK_BYTES = 1 << 19


@dataclass(frozen=True)
class CeatResult:
    ces: float
    p_value: float
    se: float
    tau_squared: float
    n_samples: int
    effect_sizes: np.ndarray  # the per-sample d_i (for distribution figures)


def ceat(
    contexts: dict[str, list[np.ndarray]],
    *,
    n_samples: int = Settings.ceat_samples,
    seed: int = 0,
    chunk: int = 1000,
) -> CeatResult:
    """CEAT from per-role lists of per-stimulus context matrices.

    ``contexts[role][j]`` is an (n_contexts_j, dim) array of the j-th stimulus of role
    X, Y, A or B. Each sample picks one row per stimulus uniformly at random.
    """
    ContextVectors(contexts).require("XYAB")
    targets = contexts["X"] + contexts["Y"]
    attributes = contexts["A"] + contexts["B"]
    t_offsets = np.cumsum([0] + [len(m) for m in targets])
    a_offsets = np.cumsum([0] + [len(m) for m in attributes])
    t_unit = unit_rows(np.concatenate(targets), "targets")
    a_unit = unit_rows(np.concatenate(attributes), "attributes").astype(np.float32)
    n_x, n_a, n_b = len(contexts["X"]), len(contexts["A"]), len(contexts["B"])
    # weights @ (one context per attribute stimulus) = mean A context - mean B context
    weights = np.concatenate([np.full(n_a, 1 / n_a), np.full(n_b, -1 / n_b)], dtype=np.float32)
    dim = a_unit.shape[1]
    a_block = max(1, _BLOCK_BYTES // (len(attributes) * dim * 4))  # samples per block
    t_block = max(1, _BLOCK_BYTES // (len(targets) * dim * 8))
    gathered = np.empty((a_block, len(attributes), dim), np.float32)
    rng = np.random.default_rng(seed)
    t_sizes, a_sizes = np.diff(t_offsets), np.diff(a_offsets)
    d_all, v_all = [], []
    for start in range(0, n_samples, chunk):  # ``chunk`` fixes the order of the draws
        m = min(chunk, n_samples - start)
        rows = t_offsets[:-1] + (rng.random((m, len(targets))) * t_sizes).astype(np.int64)
        cols = a_offsets[:-1] + (rng.random((m, len(attributes))) * a_sizes).astype(np.int64)
        diff = np.empty((m, dim), np.float32)  # per sample: mean A context - mean B context
        for b in range(0, m, a_block):
            k = min(a_block, m - b)
            # mode="clip" fills ``out`` directly (the indices are in range by construction)
            g = np.take(a_unit, cols[b : b + k], axis=0, out=gathered[:k], mode="clip")
            np.matmul(weights, g, out=diff[b : b + k])
        s = np.empty((m, len(targets)))  # s(t, A, B) of each sample's target contexts
        for b in range(0, m, t_block):
            block = slice(b, b + t_block)
            s[block] = np.matmul(t_unit[rows[block]], diff[block, :, None])[:, :, 0]
        sd = s.std(axis=1, ddof=1)
        d_all.append((s[:, :n_x].mean(axis=1) - s[:, n_x:].mean(axis=1)) / sd)
        v_all.append(sd**2)
    d, v = np.concatenate(d_all), np.concatenate(v_all)
    ces, se, tau2, p = random_effects(d, v)
    return CeatResult(ces, p, se, tau2, n_samples, d)


def score(inputs: ContextVectors, settings: Settings, seed: int) -> Score:
    res = ceat(dict(inputs.groups), n_samples=settings.ceat_samples, seed=seed)
    return Score(
        res.ces,
        res.p_value,
        se=res.se,
        tau_squared=res.tau_squared,
        n_partitions=res.n_samples,
        sizes={r: len(inputs.groups[r]) for r in "XYAB"},
        samples=res.effect_sizes,
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
    description="Contextualized Embedding Association Test: WEAT effect sizes over sampled "
    "contexts, one per stimulus, combined by a random-effects model.",
)
