"""LPBS, the log probability bias score (Kurita et al., 2019), in log space.

For a double-slot template (target slot before attribute slot) and attribute w, the model
gives log p_t(x, w) (the target x filled in with w present) and log p_p(x) (the prior, the
attribute slot masked too; ``biasbench.models.logprobs`` computes both, for masked and for
causal LMs). Then

    bs(w) = log(sum_X p_t / sum_X p_p) - log(sum_Y p_t / sum_Y p_p)          (paper eq. 10)
    d = (mean_A bs - mean_B bs) / std_{A u B} bs  (sample std),  two-sided permutation p.

All sums are log-sum-exps of log-probabilities, so a rare word with P = 1e-400 gives a finite
score where the product of probabilities underflows to 0/0 = NaN (the failure Husse & Spitz
report in appendix B.5). Scores are averaged over a category's templates (one bs per
attribute).

``p_word`` equals ``p_value``: the paper's test already has the stimulus word as its unit.
Its items are the attribute words, each with one bias score averaged over the templates (and
summed over the targets inside eq. 10), and it permutes the A/B labels of those words; no
(template, attribute) pair is an item of its own, so every context of an attribute word (its
templates) already moves with the word, and the permutation over attributes is the cluster
permutation. Were the templates' scores the items, a word's templates, which share the
word's own position in the model, would make that test far too liberal
(tests/test_lpbs.py shows both on a null with strongly correlated templates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biasbench.methods.contract import (
    ON_STUDY,
    WHY_SLOT,
    WHY_TEST,
    Method,
    Settings,
    TemplateLogProbs,
    Truth,
)
from biasbench.rows import Score
from biasbench.stats import (
    PermutationResult,
    Tested,
    effect_size,
    few_words_note,
    permutation_test_mean_difference,
)


def bias_scores(log_pt: np.ndarray, log_pp: np.ndarray, n_x: int) -> np.ndarray:
    """bs(w) per row: ``log_pt``/``log_pp`` are (attributes, X targets then Y targets)."""
    from scipy.special import logsumexp  # lazily: planning the DAG imports the registry

    log_pt, log_pp = np.asarray(log_pt, np.float64), np.asarray(log_pp, np.float64)
    x = logsumexp(log_pt[:, :n_x], axis=1) - logsumexp(log_pp[:, :n_x], axis=1)
    y = logsumexp(log_pt[:, n_x:], axis=1) - logsumexp(log_pp[:, n_x:], axis=1)
    return x - y


@dataclass(frozen=True)
class LpbsResult(Tested):
    effect_size: float
    bias_scores: np.ndarray  # per attribute, A then B
    test: PermutationResult  # the two-sided permutation test over the attributes


def lpbs_test(
    bs_a: np.ndarray, bs_b: np.ndarray, *, exact_max: int, n_samples: int, seed: int
) -> LpbsResult:
    """Effect size (eq. 11) and two-sided permutation p over partitions of the attributes."""
    values = np.concatenate([bs_a, bs_b])
    if not np.all(np.isfinite(values)):
        raise ValueError("LPBS: non-finite bias scores")
    perm = permutation_test_mean_difference(
        values,
        len(bs_a),
        exact_max=exact_max,
        n_samples=n_samples,
        seed=seed,
        alternative="two-sided",
    )
    return LpbsResult(effect_size(bs_a, bs_b, ddof=1), values, perm)


def template_bias_scores(inputs: TemplateLogProbs) -> np.ndarray:
    """bs per attribute, averaged over templates."""
    return np.mean(
        [
            bias_scores(pt, pp, inputs.n_x)
            for pt, pp in zip(inputs.log_pt, inputs.log_pp, strict=True)
        ],
        axis=0,
    )


def score(inputs: TemplateLogProbs, settings: Settings, seed: int) -> Score:
    bs = template_bias_scores(inputs)
    res = lpbs_test(
        bs[: inputs.n_a],
        bs[inputs.n_a :],
        exact_max=settings.exact_max,
        n_samples=settings.n_samples,
        seed=seed,
    )
    n_t = inputs.log_pt.shape[2]
    return Score(
        res.effect_size,
        res.p_value,
        p_word=res.p_value,  # the items are the attribute words already (module doc)
        p_floor=res.test.floor,
        p_word_floor=res.test.floor,
        n_partitions=res.n_partitions,
        exact=res.exact,
        sizes={"X": inputs.n_x, "Y": n_t - inputs.n_x, "A": inputs.n_a, "B": len(bs) - inputs.n_a},
        note=few_words_note({"A": inputs.n_a, "B": len(bs) - inputs.n_a}),
    )


LPBS = Method(
    "LPBS",
    "Kurita et al. (2019)",
    "probability",
    TemplateLogProbs,
    score,
    reads=("exact_max", "n_samples"),
    encodings=("mlm", "causal"),
    variants=("full", "reduced", "full+adjective", "reduced+adjective"),
    model_kinds=("transformer",),
    unit="attribute",
    permutes="attributes",
    description="Log probability bias score on double-slot templates, prior-corrected "
    "(eq. 10), effect size over the attributes (eq. 11).",
    reference="keitakurita/contextual_embedding_bias_measure: lib/bias_calculator.py",
    truth=Truth("difference", ON_STUDY, f"{WHY_TEST}; {WHY_SLOT}", reads_filter=True),
)
