"""What Schröder et al. report about the ground-truth study, from the records of every model
(Figure 6, section 5.2.1, Tables 2 and 3, Figure 9), and the R² a model's records carry."""

from __future__ import annotations

import numpy as np


def r2(x: np.ndarray, y: np.ndarray) -> float:
    """Squared Pearson r over the entries both have (NaN below three or without spread)."""
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3 or np.std(x[ok]) == 0 or np.std(y[ok]) == 0:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1] ** 2)


#: the interval each set score lies in (Table 3 divides by its width)
WIDTHS = {
    "WEAT": 4.0,
    "MAC": 2.0,
    "Direct Bias": 1.0,
    "SAME": 1.0,
    "SAME stereotype": 1.0,
    "SAME skew": 2.0,
}
WORD_SCORES = ("WEAT", "SAME", "MAC", "Direct Bias")


def kept(records: list[dict]) -> list[dict]:
    """The models that learned the bias (R² of unmasking vs training bias above the bar)."""
    return [r for r in records if r["kept"]]


def word_r2(records: list[dict], representation: str) -> list[dict]:
    """Figure 6: mean and sd over the kept models of each word score's R² with the training
    and with the unmasking bias."""
    out = []
    models = kept(records)
    for against in ("training", "unmasking"):
        for score in WORD_SCORES:
            values = np.array(
                [m["representations"][representation][f"r2_{against}"][score] for m in models]
            )
            values = values[np.isfinite(values)]
            out.append(
                {
                    "score": score,
                    "against": f"{against} bias",
                    "mean": float(values.mean()) if len(values) else np.nan,
                    "sd": float(values.std()) if len(values) else np.nan,
                    "models": len(values),
                }
            )
    return out


def angles(records: list[dict], representation: str, selection: float = 0.6) -> list[dict]:
    """Section 5.2.1: the mean angle between Direct Bias' PCA direction and SAME's mean
    direction, over the kept models whose SAME R² (with the training bias) is at least
    ``selection``, for similar (< 0.25) and much worse (> 0.4) Direct Bias R²."""
    rows = []
    for name, test in (
        ("similar (< 0.25)", lambda d: d < 0.25),
        ("worse (> 0.4)", lambda d: d > 0.4),
    ):
        chosen = []
        for m in kept(records):
            rep = m["representations"][representation]
            r2_same, r2_db = rep["r2_training"]["SAME"], rep["r2_training"]["Direct Bias"]
            if r2_same >= selection and test(r2_same - r2_db):
                chosen.append(rep["angle_degrees"])
        rows.append(
            {
                "group": name,
                "mean angle": float(np.mean(chosen)) if chosen else np.nan,
                "models": len(chosen),
            }
        )
    return rows


def robustness(records: list[dict], representation: str) -> dict[str, float]:
    """Table 2: per model the sd of each word score; within each distribution (mu, sigma,
    alignment) the mean over pairs of repeats of |a - b| / ((a + b) / 2); the mean over the
    distributions (NaN with one repeat per distribution)."""
    groups: dict[tuple, list[dict]] = {}
    for m in records:
        key = (m["mu"], m["sigma"], m.get("alignment", 0.0))
        groups.setdefault(key, []).append(m["representations"][representation]["sd"])
    out = {}
    for score in (*WORD_SCORES, "unmasking"):
        per_group = []
        for sds in groups.values():
            values = [s[score] for s in sds]
            pairs = [
                abs(a - b) / ((a + b) / 2)
                for i, a in enumerate(values)
                for b in values[i + 1 :]
                if a + b > 0
            ]
            if pairs:
                per_group.append(np.mean(pairs))
        out[score] = float(np.mean(per_group)) if per_group else np.nan
    return out


def set_level_r2(records: list[dict], representation: str) -> list[dict]:
    """Figure 9: R² (and its p-value) of each set score with the mean, sd and absolute sum
    of the unmasking bias, across the kept models."""
    from scipy.stats import pearsonr

    models = kept(records)
    rows = []
    for score in WIDTHS:
        x = np.array([m["representations"][representation]["set_scores"][score] for m in models])
        for summary in ("mean", "sd", "absolute"):
            y = np.array(
                [m["representations"][representation]["unmasking_summary"][summary] for m in models]
            )
            ok = np.isfinite(x) & np.isfinite(y)
            r, p = (np.nan, np.nan)
            if ok.sum() >= 3 and np.std(x[ok]) > 0 and np.std(y[ok]) > 0:
                r, p = pearsonr(x[ok], y[ok])
            rows.append(
                {
                    "score": score,
                    "summary": summary,
                    "r2": float(r**2),
                    "p": float(p),
                    "models": int(ok.sum()),
                }
            )
    return rows


def subset_robustness(records: list[dict], representation: str) -> dict[str, float]:
    """Table 3: mean over the kept models of (1/100) sum |b(W_i) - b(W)| over random
    half-size subsets W_i of the occupations, divided by the width of the score's interval."""
    models = kept(records)
    return {
        score: float(
            np.mean(
                [m["representations"][representation]["subset_deviation"][score] for m in models]
            )
            / width
        )
        if models
        else np.nan
        for score, width in WIDTHS.items()
    }
