"""A data-set score's bootstrap standard error with the method's declared effect (the score
alone) against the whole method on every resample (its test included), in one run, on the
same seeded inputs of the sizes the ground-truth study scores. Both give the same standard
error (checked here): the resamples are the same, and the effect is the score's. Medians over
``--repeats``. No model is needed:

    .venv/bin/python benchmarks/bench_bootstrap_se.py
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

import numpy as np

from biasbench.methods.contract import Associations, PairScores, Resolutions, Settings
from biasbench.methods.registry import get
from biasbench.scoring.datasets import bootstrap_se


def inputs(rng: np.random.Generator) -> dict[str, object]:
    """Seeded inputs of the study's sizes: 60 CrowS-Pairs pairs, 5 BEC-Pro professions x 90
    sentences over 9 person-word pairs, 200 WinoBias sentences."""
    pairs = PairScores(rng.normal(size=60), rng.normal(size=60), rng.random(60) < 0.8, None)
    words = np.repeat(np.arange(9), 50)
    becpro = Associations(rng.normal(0.1, 1, 450), rng.normal(size=450), words)
    pro, male = np.arange(200) % 2 == 0, np.arange(200) % 4 < 2
    winobias = Resolutions(rng.random(200) < np.where(pro, 0.7, 0.6), pro, male)
    return {"CrowS-Pairs": pairs, "BEC-Pro": becpro, "WinoBias F1 gap": winobias}


def timed(method, data, repeats: int) -> tuple[float, float]:
    """(median seconds, standard error) of the method's bootstrap SE on ``data``."""
    seconds, value = [], float("nan")
    for _ in range(repeats):
        start = time.perf_counter()
        value = bootstrap_se(method, data, Settings(), 1)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name, data in inputs(np.random.default_rng(0)).items():
        method = get(name)
        t_effect, se_effect = timed(method, data, args.repeats)
        t_whole, se_whole = timed(dataclasses.replace(method, effect=None), data, args.repeats)
        if not np.isclose(se_effect, se_whole, rtol=1e-12):
            raise SystemExit(f"{name}: the standard errors differ ({se_effect} vs {se_whole})")
        print(
            f"{name:18s} se {se_effect:.4f}  effect alone {t_effect:6.3f} s  whole method "
            f"{t_whole:6.3f} s  ratio {t_whole / t_effect:5.1f}x"
        )


if __name__ == "__main__":
    main()
