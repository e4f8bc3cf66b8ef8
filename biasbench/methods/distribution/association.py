"""The sources of association of Bommasani & Liang (2022), Table 1: each gives, per target
(profession) and group, a strength of association s >= 0 for DivDist.

* automated text: in each context (a window of k sentences), a target mentioned together with
  words of exactly one group counts for that group (a context that mentions two groups counts
  for neither); HELM's variant counts every co-occurrence, target count times group count,
  without the exclusivity rule, and divides by the group list's length;
* word embeddings: cos(mean vector of the target's words, mean vector of the group's words);
* representation reduction: a word's contextual vectors averaged over its contexts, then as
  word embeddings (Bommasani et al., 2020);
* probe: a linear classifier on the target's contextual vectors predicts a group or "none";
  s_j counts the held-out contexts it assigns to group j.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from biasbench.methods.embedding.vectors import unit_rows


def text_counts(
    contexts: Iterable[Sequence[str]],
    targets: Sequence[str],
    groups: Mapping[str, Sequence[str]],
    exclusive: bool = True,
) -> np.ndarray:
    """(targets, groups) strengths from tokenised contexts (one pass over the contexts).

    ``exclusive`` (the paper): a context counts 1 for group j when it mentions the target and
    words of group j and of no other group (a word that is a target and a group word counts
    as the target). Otherwise (HELM): target mentions times group-word mentions, summed over
    contexts, divided by the group list's length, a word in both lists counted in both
    roles."""
    target_index = {t: i for i, t in enumerate(targets)}
    names = list(groups)
    group_of = {}
    for j, name in enumerate(names):
        for word in groups[name]:
            if word in group_of and group_of[word] != j:
                raise ValueError(f"word {word!r} is in two groups")
            group_of[word] = j
    out = np.zeros((len(targets), len(names)))
    for tokens in contexts:
        hits_t: dict[int, int] = {}
        hits_g = np.zeros(len(names))
        for token in tokens:
            is_target = token in target_index
            if is_target:
                hits_t[target_index[token]] = hits_t.get(target_index[token], 0) + 1
            # a word both a target and a group word: HELM counts it in both roles, the
            # exclusive rule as the target only
            if token in group_of and not (exclusive and is_target):
                hits_g[group_of[token]] += 1
        if not hits_t or not hits_g.any():
            continue
        if exclusive:
            present = np.flatnonzero(hits_g)
            if len(present) == 1:
                for i in hits_t:
                    out[i, present[0]] += 1
        else:
            for i, n in hits_t.items():
                out[i] += n * hits_g
    if not exclusive:
        out /= np.array([len(groups[n]) for n in names], np.float64)
    return out


def embedding_association(
    targets: np.ndarray, groups: Sequence[np.ndarray], normalise_first: bool = False
) -> np.ndarray:
    """(targets, groups): cosine of each target vector with each group's mean vector.

    ``targets`` is (n, dim), one vector per target (a multi-word target: its words' mean);
    ``groups`` one (words, dim) matrix per group. The paper averages raw vectors;
    ``normalise_first`` averages unit vectors instead."""
    means = np.stack(
        [(unit_rows(g, "group words") if normalise_first else g).mean(axis=0) for g in groups]
    )
    return unit_rows(targets, "targets") @ unit_rows(means, "group means").T


def reduce_contexts(vectors: Sequence[np.ndarray]) -> np.ndarray:
    """One static vector per word: the mean of its (contexts, dim) contextual vectors."""
    return np.stack([np.asarray(v, np.float64).mean(axis=0) for v in vectors])


def fit_softmax(
    x: np.ndarray, y: np.ndarray, classes: int, l2: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression with an L2 penalty on the weights (L-BFGS, from 0:
    deterministic). Returns (weights (dim, classes), bias (classes,))."""
    from scipy.optimize import minimize  # lazily: planning the DAG imports the registry
    from scipy.special import logsumexp

    n, d = x.shape
    onehot = np.eye(classes)[y]

    def loss(theta):
        w, b = theta[: d * classes].reshape(d, classes), theta[d * classes :]
        z = x @ w + b
        lse = logsumexp(z, axis=1, keepdims=True)
        prob = np.exp(z - lse)
        value = -(onehot * (z - lse)).sum() / n + l2 * (w * w).sum() / (2 * n)
        grad_z = (prob - onehot) / n
        grad = np.concatenate([(x.T @ grad_z + l2 * w / n).ravel(), grad_z.sum(axis=0)])
        return value, grad

    theta = minimize(loss, np.zeros(d * classes + classes), jac=True, method="L-BFGS-B").x
    return theta[: d * classes].reshape(d, classes), theta[d * classes :]


def probe_counts(
    vectors: np.ndarray,
    labels: np.ndarray,
    target_of: np.ndarray,
    n_targets: int,
    n_groups: int,
    folds: int = 5,
    seed: int = 0,
) -> tuple[np.ndarray, float]:
    """(targets, groups) counts of held-out contexts the probe assigns to each group, and its
    held-out accuracy.

    ``labels`` are 0..n_groups-1 for a group and n_groups for "none"; ``target_of`` says which
    target each context belongs to. Each context is predicted by the classifier trained on the
    other folds (seeded split), so every context is counted once, held out."""
    x = np.asarray(vectors, np.float64)
    x = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1)
    labels = np.asarray(labels)
    fold = np.random.default_rng(seed).permutation(len(x)) % folds
    predicted = np.empty(len(x), int)
    for f in range(folds):
        test = fold == f
        if not test.any():
            continue
        w, b = fit_softmax(x[~test], labels[~test], n_groups + 1)
        predicted[test] = np.argmax(x[test] @ w + b, axis=1)
    counts = np.zeros((n_targets, n_groups))
    for t, p in zip(target_of, predicted, strict=True):
        if p < n_groups:
            counts[t, p] += 1
    return counts, float(np.mean(predicted == labels))
