"""LPBS on natural contexts and probability-based CEAT (Husse & Spitz 2022, Table 14).

Sampling: one pass over a corpus keeps, per (target, attribute) pair of the LPBS tests, up
to N sentences holding both at most ``max_gap`` words apart (the paper: 18), by seeded
reservoir sampling; each context is the stretch from the first to the second stimulus
plus ``window_words`` words either side.

Probability-based CEAT: sample i picks one context per (attribute, target) pair that has
any, computes LPBS' bias score per attribute over those contexts (eq. 10, log space) and
the effect size d_i (eq. 11) with v_i = the sample variance of the bias scores, and the
samples are combined by the random-effects model of CEAT (``ceat.random_effects``).
An attribute needs a context with some X and some Y target; a set with fewer than two
such attributes gives no score ("n/a", as in the paper). Samples whose bias scores are all
equal (no spread, no effect size) are left out of the combination.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from biasbench.ceat import CeatResult, random_effects
from biasbench.sampling import (
    TOKEN,
    Reservoir,
    StimulusMatcher,
    derived_rng,
    sentence_spans,
    word_window,
)
from biasbench.stats import derived_seed

PAIR_COLUMNS = [
    "target",
    "attribute",
    "context",
    "target_start",
    "target_end",
    "attribute_start",
    "attribute_end",
    "gap",
    "seen",
]


def _gap_words(sentence: str, left_end: int, right_start: int) -> int:
    return sum(1 for _ in TOKEN.finditer(sentence, left_end, right_start))


def sample_pairs(
    documents: Iterable[str],
    pairs: Iterable[tuple[str, str]],
    *,
    per_pair: int,
    seed: int,
    max_gap: int,
    window_words: int = 4,
    max_sentence_chars: int = 1000,
    case: str = "any",
) -> pd.DataFrame:
    """Up to ``per_pair`` contexts per (target, attribute) pair (see module doc); both
    stimuli must pass the ``case`` policy (:data:`biasbench.sampling.CASE_POLICIES`)."""
    pairs = list(dict.fromkeys(pairs))
    targets = dict.fromkeys(t for t, _ in pairs)
    attributes = dict.fromkeys(a for _, a in pairs)
    wanted = set(pairs)
    matcher = StimulusMatcher([*targets, *attributes], case)
    reservoirs: dict[tuple[str, str], Reservoir] = {}
    for doc in documents:
        hits = matcher.find(doc)
        if len(hits) < 2:
            continue
        spans = sentence_spans(doc)
        starts = [a for a, _ in spans]
        by_sentence: dict[int, list[tuple[str, int, int]]] = {}
        for stimulus, start, end in hits:
            k = max(0, bisect.bisect_right(starts, start) - 1)
            left, right = spans[k]
            if end <= right and right - left <= max_sentence_chars:
                by_sentence.setdefault(k, []).append((stimulus, start - left, end - left))
        for k, found in by_sentence.items():
            sentence = doc[spans[k][0] : spans[k][1]]
            for t, ts, te in found:
                if t not in targets:
                    continue
                for a, as_, ae in found:
                    if (t, a) not in wanted or (as_ < te and ae > ts):
                        continue  # not a pair of the tests, or overlapping spans
                    (first_end, second_start) = (te, as_) if ts < as_ else (ae, ts)
                    gap = _gap_words(sentence, first_end, second_start)
                    if gap > max_gap:
                        continue
                    res = reservoirs.get((t, a))
                    if res is None:
                        res = reservoirs[(t, a)] = Reservoir(
                            per_pair, derived_rng(seed, f"{t}|{a}")
                        )
                    res.offer((sentence, ts, te, as_, ae, gap))
    rows = []
    for (t, a), res in sorted(reservoirs.items()):
        for sentence, ts, te, as_, ae, gap in res.items:
            left, right = word_window(sentence, min(ts, as_), max(te, ae), window_words)
            rows.append(
                (
                    t,
                    a,
                    sentence[left:right],
                    ts - left,
                    te - left,
                    as_ - left,
                    ae - left,
                    gap,
                    res.seen,
                )
            )
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    """log(sum(exp(a))) along an axis of finite values, shifted by their maximum (scipy's
    general version is several times slower on the (samples, targets) draws here)."""
    top = a.max(axis=axis, keepdims=True)
    return np.log(np.exp(a - top).sum(axis=axis)) + np.squeeze(top, axis=axis)


def probability_ceat(
    contexts: pd.DataFrame,
    x: list[str],
    y: list[str],
    a: list[str],
    b: list[str],
    *,
    n_samples: int,
    seed: int,
) -> tuple[CeatResult | None, dict[str, list[str]]]:
    """Probability-based CEAT from contexts with ``log_pt``/``log_pp`` columns (see module
    doc). Returns (result or None when too few attributes remain, the attributes and
    targets without usable contexts per role)."""
    targets, attributes = x + y, a + b
    cells: dict[tuple[int, int], np.ndarray] = {}
    t_index = {t: j for j, t in enumerate(targets)}
    a_index = {w: i for i, w in enumerate(attributes)}
    for (target, attribute), group in contexts.groupby(["target", "attribute"], sort=True):
        if target in t_index and attribute in a_index:
            cells[(a_index[attribute], t_index[target])] = group[["log_pt", "log_pp"]].to_numpy()
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
        return None, dropped
    rng = np.random.default_rng(seed)
    rows = keep_a + keep_b
    row_of = {i: r for r, i in enumerate(rows)}
    bs = np.empty((n_samples, len(rows)))  # bias score (eq. 10) per sample and attribute
    # draws in the order of the (attribute, target) words, not of the roles: swapping the
    # attribute sets then reuses every draw and exactly negates the result. The sums of eq. 10
    # run over the targets an attribute has contexts with, one attribute at a time.
    order = sorted(
        (c for c in cells if c[0] in row_of), key=lambda c: (attributes[c[0]], c[0], targets[c[1]])
    )
    for i, group in itertools.groupby(order, key=lambda c: c[0]):
        x_draws, y_draws = [], []
        for _, j in group:
            values = cells[(i, j)]
            drawn = values[rng.integers(len(values), size=n_samples)]  # (samples, 2)
            (x_draws if j < n_x else y_draws).append(drawn)
        x = _logsumexp(np.stack(x_draws, axis=1), axis=1)  # (samples, [log p_t, log p_p])
        y = _logsumexp(np.stack(y_draws, axis=1), axis=1)
        bs[:, row_of[i]] = (x[:, 0] - x[:, 1]) - (y[:, 0] - y[:, 1])
    sd = bs.std(axis=1, ddof=1)
    spread = sd > 0  # a sample whose bias scores are all equal has no effect size
    if not spread.any():
        return None, dropped
    bs, sd = bs[spread], sd[spread]
    d = (bs[:, : len(keep_a)].mean(axis=1) - bs[:, len(keep_a) :].mean(axis=1)) / sd
    ces, se, tau2, p = random_effects(d, sd**2)
    return CeatResult(ces, p, se, tau2, len(d), d), dropped


def pair_list(sets: Mapping[str, tuple[str, ...]]) -> list[tuple[str, str]]:
    """Every (target, attribute) pair of a word set."""
    return [(t, a) for t in sets["X"] + sets["Y"] for a in sets["A"] + sets["B"]]


def _row(model, corpus, test, descriptor, encoding, result, dropped, counts, seed, primary):
    return {
        "method": "p-CEAT",
        "model": model,
        "source": corpus,
        "test": test,
        "descriptor": descriptor,
        "encoding": encoding,
        "primary": primary,
        "unit": "sampled context",
        "effect_size": result.ces if result else np.nan,
        "p_value": result.p_value if result else np.nan,
        "se": result.se if result else np.nan,
        "tau_squared": result.tau_squared if result else np.nan,
        **counts,
        "n_partitions": result.n_samples if result else 0,
        "exact": False,
        **{f"dropped_{r}": len(dropped[r]) for r in "XYAB"},
        "dropped": ";".join(f"{r}:{w}" for r in "XYAB" for w in dropped[r]),
        "seed": seed,
    }


def probability_ceat_rows(
    contexts: pd.DataFrame,
    wordsets: Mapping,
    in_vocabulary,
    *,
    model: str,
    corpus: str,
    test: str,
    max_gap: int,
    windows: list[int],
    primary_descriptor: str,
    n_samples: int,
    seed: int,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, np.ndarray]]:
    """(rows per descriptor and variant at ``max_gap``, rows of the window sweep on the
    primary descriptor's full set, per-sample effect sizes keyed ``descriptor|variant``)."""
    rows, sweep, samples = [], [], {}
    near = contexts[contexts["gap"] <= max_gap]
    for descriptor, wordset in wordsets.items():
        sets = wordset.sets
        job_seed = derived_seed(seed, model, corpus, test, descriptor, "p-CEAT")
        for variant in ("full", "reduced"):
            keep = (lambda w: True) if variant == "full" else in_vocabulary
            x = [w for w in sets["X"] if keep(w)]
            y = [w for w in sets["Y"] if keep(w)]
            result, dropped = None, {"X": [], "Y": [], "A": list(sets["A"]), "B": list(sets["B"])}
            if x and y:
                result, dropped = probability_ceat(
                    near, x, y, list(sets["A"]), list(sets["B"]), n_samples=n_samples, seed=job_seed
                )
            dropped["X"] = sorted(set(sets["X"]) - set(x)) + dropped["X"]
            dropped["Y"] = sorted(set(sets["Y"]) - set(y)) + dropped["Y"]
            counts = {f"n_{r.lower()}": len(sets[r]) - len(dropped[r]) for r in "XYAB"}
            rows.append(
                _row(
                    model,
                    corpus,
                    test,
                    descriptor,
                    f"{variant}/noun",
                    result,
                    dropped,
                    counts,
                    job_seed,
                    variant == "full",
                )
            )
            if result is not None:
                samples[f"{descriptor}|{variant}"] = result.effect_sizes.astype(np.float32)
        if descriptor != primary_descriptor:
            continue
        for window in windows:
            result, dropped = probability_ceat(
                contexts[contexts["gap"] <= window],
                list(sets["X"]),
                list(sets["Y"]),
                list(sets["A"]),
                list(sets["B"]),
                n_samples=n_samples,
                seed=job_seed,
            )
            counts = {f"n_{r.lower()}": len(sets[r]) - len(dropped[r]) for r in "XYAB"}
            row = _row(
                model,
                corpus,
                test,
                descriptor,
                "full/noun",
                result,
                dropped,
                counts,
                job_seed,
                False,
            )
            sweep.append({"window": window, **row})
    return pd.DataFrame(rows), pd.DataFrame(sweep), samples
