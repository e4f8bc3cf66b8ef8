"""The validity league's inference: how well each method's score follows the bias injected
into the ground-truth study's models, as an inference a reviewer accepts.

- **Its own truth.** Each method is held against the quantity its construct measures
  (its declared truth, ``Method.truth``), per model.
- **Independent units.** Models that share a draw of the injected shares (a distribution's
  repeats in Schröder et al.'s design) are one cluster: the bootstrap resamples clusters and
  keeps each drawn cluster's models together (:func:`cluster_bootstrap`). Resampling models
  as if independent covers less than nominal when they share a draw
  (``tests/test_validity.py`` simulates both).
- **Adjusted decisions.** A method's rho is tested against 0 by permuting the truth across
  the clusters (:func:`permutation_p`: exact under "no relation", two-sided, so "reversed" is
  reachable), with enough permutations that its floor lies far below alpha / m (the floor is
  printed beside p; a bootstrap p of 2,000 draws stopped at 2 / 2001, which Holm's first step
  over 22 methods turned into 0.022: "found" on the Monte-Carlo floor). Holm's step-down
  adjusts across the methods, and the interval printed is the bootstrap's at the Bonferroni
  level 1 - alpha / m, the simultaneous interval Holm's first step uses. "found" only where
  the adjusted p is below alpha.
- **Paired comparisons.** Each method is compared with the best of its truth quantity (the
  highest rho against the same truth), by the difference of their rhos on the models both
  score, every resample the same clusters for both (:func:`paired_differences`: a Wald test
  with the bootstrap's standard error), Holm across those pairs; each pair's power to find
  its observed difference is printed, a difference smaller than the design can detect is
  "underpowered", and "better" goes only to a method whose own rho is found.
- **Power.** :func:`detectable_rho`: the smallest rho found with 80% power at the adjusted
  level on n independent clusters (Fisher's z, with the Spearman variance 1.06 / (n - 3) of
  Fieller, Hartley and Pearson 1957).
- **Extrinsic proxy.** :func:`extrinsic`: rho across models of each method's mean score with
  a downstream task's bias (the WinoBias F1 gap), another of the league's criteria.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

ALPHA = 0.05  # the league's decisions (familywise, Holm)
POWER = 0.8
N_BOOT = 2000
#: permutations of the truth for a rho's p: its floor 1 / 20,000 is 45x below the first Holm
#: step's alpha / m for the league's 22 methods at 0.05 (tests/test_validity.py holds it)
N_PERM = 19_999
MIN_CLUSTERS = 4  # fewer: no rho


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho (average ranks for ties); NaN under 4 pairs or without spread."""
    from scipy import stats as sps

    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < MIN_CLUSTERS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(sps.spearmanr(x, y)[0])


def weighted_spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Spearman's rho of x and y with every cell repeated as often as its weight says, for
    each row of ``weights`` at once (equal to ``scipy.stats.spearmanr`` on the repeated
    cells: average ranks of tied values): a value's rank is the midrank of its copies, and
    rho the weighted Pearson correlation of the ranks. NaN under MIN_CLUSTERS copies or
    without spread."""
    weights = np.atleast_2d(np.asarray(weights, float))

    def midranks(values: np.ndarray) -> np.ndarray:
        _, group = np.unique(values, return_inverse=True)
        member = (group[:, None] == np.arange(group.max() + 1)).astype(float)
        per_group = weights @ member
        below = np.cumsum(per_group, axis=1) - per_group
        return (below + (per_group + 1) / 2)[:, group]

    rank_x, rank_y = midranks(np.asarray(x, float)), midranks(np.asarray(y, float))
    total = weights.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = rank_x - (weights * rank_x).sum(axis=1, keepdims=True) / total
        dy = rank_y - (weights * rank_y).sum(axis=1, keepdims=True) / total
        covariance = (weights * dx * dy).sum(axis=1)
        scale = np.sqrt((weights * dx * dx).sum(axis=1) * (weights * dy * dy).sum(axis=1))
        rho = covariance / scale
    ok = (total[:, 0] >= MIN_CLUSTERS) & (scale > 1e-12 * np.maximum(1.0, total[:, 0] ** 3))
    return np.where(ok, rho, np.nan)


def resample_clusters(
    clusters: np.ndarray, rng: np.random.Generator, n_boot: int
) -> list[np.ndarray]:
    """``n_boot`` index arrays: each draws as many clusters as there are, with replacement,
    and takes every member of each drawn cluster (a cluster bootstrap)."""
    codes, names = pd.factorize(np.asarray(clusters))
    if not len(names):
        return [np.empty(0, int)] * n_boot
    members = [np.flatnonzero(codes == c) for c in range(len(names))]
    draws = rng.integers(0, len(members), size=(n_boot, len(members)))
    return [np.concatenate([members[c] for c in row]) for row in draws]


def cluster_bootstrap(
    x: np.ndarray,
    y: np.ndarray,
    clusters: np.ndarray,
    rng: np.random.Generator,
    n_boot: int = N_BOOT,
) -> np.ndarray:
    """Spearman's rho of x and y on ``n_boot`` cluster-bootstrap resamples (NaN where a
    resample has no spread). Every model its own cluster: the plain (pairs) bootstrap."""
    picks = resample_clusters(clusters, rng, n_boot)
    weights = np.stack([np.bincount(index, minlength=len(x)) for index in picks])
    return weighted_spearman(x, y, weights)


def interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    """The percentile interval of the finite draws at ``level`` (NaN without any)."""
    draws = draws[np.isfinite(draws)]
    if not len(draws):
        return float("nan"), float("nan")
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(low), float(high)


def cluster_permutations(clusters: np.ndarray, rng: np.random.Generator, n_perm: int) -> np.ndarray:
    """``n_perm`` rows of indices, each a permutation of the units that moves whole clusters:
    a cluster's members take the values of another cluster's members (in their order), and
    clusters are exchanged only with clusters of the same size (restricted permutations, exact
    under exchangeable clusters). Every unit its own cluster: plain permutations."""
    codes, names = pd.factorize(np.asarray(clusters))
    out = np.tile(np.arange(len(codes)), (n_perm, 1))
    members = [np.flatnonzero(codes == c) for c in range(len(names))]
    for size in sorted({len(m) for m in members}):
        block = np.array([m for m in members if len(m) == size])  # (clusters, size)
        if len(block) < 2:
            continue
        moved = rng.permuted(np.tile(np.arange(len(block)), (n_perm, 1)), axis=1)
        for j in range(size):
            out[:, block[:, j]] = block[moved, j]
    return out


def distinct_permutations(clusters: np.ndarray) -> int:
    """How many distinct ways :func:`cluster_permutations` can arrange the clusters: the
    product over cluster sizes of (clusters of that size)! (capped at 10^12)."""
    import math

    _, counts = np.unique(pd.factorize(np.asarray(clusters))[0], return_counts=True)
    total = 1
    for _, k in zip(*np.unique(counts, return_counts=True), strict=True):
        total *= math.factorial(min(int(k), 20))
        if total > 10**12:
            return 10**12
    return total


def permutation_p(
    x: np.ndarray,
    y: np.ndarray,
    clusters: np.ndarray,
    rng: np.random.Generator,
    n_perm: int = N_PERM,
) -> tuple[float, float]:
    """(p, floor): the two-sided permutation p of "Spearman's rho of x and y is 0", x moved
    across whole clusters (:func:`cluster_permutations`): (1 + permutations with |rho| at
    least the observed) / (n_perm + 1), valid at any n_perm (Phipson & Smyth 2010). The floor
    is the smallest p the test can give: 1 / (n_perm + 1), or 1 / the distinct arrangements
    where there are fewer. NaN where rho is undefined."""
    from scipy import stats as sps

    rank_x = sps.rankdata(np.asarray(x, float)) - (len(x) + 1) / 2
    rank_y = sps.rankdata(np.asarray(y, float)) - (len(y) + 1) / 2
    scale = np.sqrt((rank_x**2).sum() * (rank_y**2).sum())
    if len(rank_x) < MIN_CLUSTERS or scale == 0:  # as :func:`spearman`: no rho
        return float("nan"), float("nan")
    observed = abs(rank_x @ rank_y) / scale
    permuted = np.abs(rank_x[cluster_permutations(clusters, rng, n_perm)] @ rank_y) / scale
    beyond = int((permuted >= observed - 1e-12).sum())
    floor = max(1 / (n_perm + 1), 1 / distinct_permutations(clusters))
    return (1 + beyond) / (n_perm + 1), floor


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN stays NaN and counts in no family)."""
    p = np.asarray(p, float)
    out = np.full(len(p), np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * p[i]))
        out[i] = running
    return out


def detectable_rho(n: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest Spearman rho a two-sided test at ``alpha`` finds with ``power`` on n
    independent units (Fisher's z; Spearman's variance 1.06 / (n - 3)); NaN for n <= 3."""
    from scipy import stats as sps

    if n <= 3:
        return float("nan")
    z = sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(power)
    return float(np.tanh(z * np.sqrt(1.06 / (n - 3))))


def truth_verdict(rho: float, p_adjusted: float, detectable: float, alpha: float = ALPHA) -> str:
    """found / reversed where the adjusted p is below alpha (by rho's sign), else not found
    with the smallest rho the design would find; n/a without a rho. Fixed before any run."""
    if not np.isfinite(rho) or not np.isfinite(p_adjusted):
        return "n/a"
    if p_adjusted < alpha:
        return "found" if rho > 0 else "reversed"
    return f"not found (80% power only for rho >= {detectable:.2f})"


def league_inference(
    cells: pd.DataFrame,
    *,
    alpha: float = ALPHA,
    n_boot: int = N_BOOT,
    n_perm: int = N_PERM,
    seed: int = 0,
    truths: Mapping[str, str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per method (``cells``: method, model, cluster, truth, effect_size; one row per method
    and model): rho with its truth, the models and clusters it stands on, the cluster
    bootstrap's interval at the Bonferroni level 1 - alpha / m, the cluster permutation p
    (:func:`permutation_p`) with its floor and Holm's adjusted p, the smallest rho detectable
    at the adjusted level, and the verdict. And per pair of methods against the same truth
    (``truths``, method -> quantity): :func:`paired_differences`. Every method's resamples
    use the same clusters."""
    rng = np.random.default_rng(seed)
    permute = np.random.default_rng([seed, 1])  # its own stream: the bootstrap's draws stay
    clusters = pd.Index(sorted(set(cells["cluster"])))
    picks = resample_clusters(np.arange(len(clusters)), rng, n_boot)
    draws, rows = {}, []
    for method, frame in cells.groupby("method", sort=True):
        frame = frame.dropna(subset=["truth", "effect_size"]).drop_duplicates("model")
        own = clusters.get_indexer(frame["cluster"])
        rho = spearman(frame["truth"].to_numpy(), frame["effect_size"].to_numpy())
        draws[method] = _draws_on(frame, own, picks) if np.isfinite(rho) else None
        p, floor = permutation_p(
            frame["truth"].to_numpy(), frame["effect_size"].to_numpy(), own, permute, n_perm
        )
        rows.append(
            {
                "method": method,
                "models": len(frame),
                "clusters": len(set(own)),
                "truth_spearman": rho,
                "p": p,
                "p_floor": floor,
            }
        )
    columns = ["method", "models", "clusters", "truth_spearman", "p", "p_floor"]
    table = pd.DataFrame(rows, columns=columns)
    m = int(table["p"].notna().sum())
    level = 1 - alpha / max(m, 1)
    table["p_holm"] = holm(table["p"].to_numpy())
    bounds = [
        interval(draws[k], level) if draws[k] is not None else (np.nan, np.nan)
        for k in table["method"]
    ]
    table["ci_low"], table["ci_high"] = zip(*bounds, strict=True) if bounds else ((), ())
    table["level"] = level
    table["detectable_rho"] = [detectable_rho(c, alpha / max(m, 1)) for c in table["clusters"]]
    table["verdict"] = [
        truth_verdict(r.truth_spearman, r.p_holm, r.detectable_rho, alpha)
        for r in table.itertuples()
    ]
    return table, paired_differences(table, draws, alpha, truths)


def _draws_on(frame: pd.DataFrame, own: np.ndarray, picks: list[np.ndarray]) -> np.ndarray:
    """A method's rho on each resample of the clusters: each model weighted by how often its
    cluster was drawn."""
    drawn = np.stack([np.bincount(pick, minlength=own.max() + 1) for pick in picks])
    return weighted_spearman(
        frame["truth"].to_numpy(), frame["effect_size"].to_numpy(), drawn[:, own]
    )


def same_truth_pairs(
    table: pd.DataFrame, methods: Sequence[str], truths: Mapping[str, str] | None
) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    """Every pair of methods with a rho against the same truth quantity (``truths``: method
    -> quantity; None: one quantity for all), the higher rho first (ties: the first in
    ``methods``), and of those the pairs a reader asks for: the best of each quantity against
    each other method against it."""
    rho = dict(zip(table["method"], table["truth_spearman"], strict=True))
    groups: dict[str | None, list[str]] = {}
    for method in methods:
        if np.isfinite(rho[method]):
            groups.setdefault(None if truths is None else truths.get(method), []).append(method)
    pairs, shown = [], set()
    for members in groups.values():
        ranked = sorted(members, key=lambda m: -rho[m])  # stable: ties keep their order
        pairs += [(a, b) for i, a in enumerate(ranked) for b in ranked[i + 1 :]]
        shown |= {(ranked[0], other) for other in ranked[1:]}
    return pairs, shown


def paired_differences(
    table: pd.DataFrame,
    draws: dict[str, np.ndarray | None],
    alpha: float = ALPHA,
    truths: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Each method against the best of its truth quantity (:func:`same_truth_pairs`; rhos
    against different truths are not ranked, however they differ): the difference of their
    rhos, its standard error over the shared bootstrap resamples, the Wald p of no
    difference from it (the bootstrap's own p cannot go below 2 / (n + 1), which Holm across
    many pairs would never let through), Holm's adjusted p, the interval difference +- z x
    SE at the Bonferroni level, the smallest difference detectable with 80% power at that
    level, the power to find the observed difference there (``power``), and the verdict:
    "<a> better" / "<b> better" where the adjusted p is below alpha and the winner's own rho
    is found (``table``'s ``verdict``), "no difference claimed (<winner>'s rho not found)"
    where it is not; else "no difference found", "underpowered" where the observed
    difference is smaller than the detectable one. Holm and the Bonferroni level run over
    every pair against the same truth, not over the rows shown: the best is chosen after
    seeing the rhos, and Holm over its pairs alone called a difference among equals in 9-15%
    of simulated studies at 0.05 (``tests/test_validity.py``)."""
    from scipy import stats as sps

    rho = dict(zip(table["method"], table["truth_spearman"], strict=True))
    found = dict(zip(table["method"], table["verdict"], strict=True))
    methods = [k for k in table["method"] if draws.get(k) is not None]
    pairs, shown = same_truth_pairs(table, methods, truths)
    rows = []
    for a, b in pairs:
        difference = draws[a] - draws[b]
        difference = difference[np.isfinite(difference)]
        rows.append(
            {
                "method_a": a,
                "method_b": b,
                "difference": rho[a] - rho[b],
                "se": float(np.std(difference, ddof=1)) if len(difference) > 1 else np.nan,
            }
        )
    columns = ["method_a", "method_b", "difference", "se", "ci_low", "ci_high", "p", "p_holm"]
    columns += ["detectable_difference", "power", "verdict"]
    if not rows:
        return pd.DataFrame(columns=columns)
    out = pd.DataFrame(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        z_observed = np.abs(out["difference"]) / out["se"]
    z_observed = np.where(out["se"] == 0, np.where(out["difference"] == 0, 0.0, np.inf), z_observed)
    out["p"] = 2 * sps.norm.sf(z_observed)
    out["p_holm"] = holm(out["p"].to_numpy())
    z = sps.norm.ppf(1 - alpha / len(out) / 2)
    out["ci_low"], out["ci_high"] = (
        out["difference"] - z * out["se"],
        out["difference"] + z * out["se"],
    )
    out["detectable_difference"] = (z + sps.norm.ppf(POWER)) * out["se"]
    out["power"] = sps.norm.cdf(z_observed - z) + sps.norm.cdf(-z_observed - z)

    def verdict(r) -> str:
        if not np.isfinite(r.p_holm):
            return "n/a"
        if r.p_holm < alpha:
            winner = r.method_a if r.difference > 0 else r.method_b
            if found.get(winner) != "found":
                return f"no difference claimed ({winner}'s rho not found)"
            return f"{winner} better"
        if abs(r.difference) < r.detectable_difference:
            return "no difference found (underpowered)"
        return "no difference found"

    out["verdict"] = [verdict(r) for r in out.itertuples()]
    keep = [(a, b) in shown for a, b in zip(out["method_a"], out["method_b"], strict=True)]
    return out.loc[keep, columns].reset_index(drop=True)


def extrinsic(scores: pd.DataFrame, proxy: str = "WinoBias F1 gap") -> pd.DataFrame:
    """Per method: Spearman rho across models of its mean primary effect size with the
    extrinsic proxy's (models with both)."""
    cells = scores[scores["primary"].astype(bool) & scores["effect_size"].notna()]
    per_model = cells.groupby(["method", "model"])["effect_size"].mean().unstack("method")
    if proxy not in per_model:
        return pd.DataFrame(columns=["method", "models_with_proxy", "extrinsic_spearman"])
    out = []
    for method in per_model.columns.drop(proxy):
        both = per_model[[method, proxy]].dropna()
        out.append(
            {
                "method": method,
                "models_with_proxy": len(both),
                "extrinsic_spearman": spearman(both[method].to_numpy(), both[proxy].to_numpy()),
            }
        )
    return pd.DataFrame(out)
