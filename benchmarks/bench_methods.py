"""Cost per test of every registered method's statistic (model inference excluded, as the
runtime tables of Husse & Spitz): each method on synthetic inputs the size of a typical test
(C1: 25 + 25 targets, 25 + 25 attributes, 384 dimensions, 20 contexts per stimulus; data sets:
1,000 items), the default settings (100,000 permutations, 10,000 CEAT samples), one thread.
Median of ``--repeats`` runs, with the median of a fixed numpy baseline (a 384 x 384 matmul
repeated 1,000 times) in the same run, so machines can be compared. Writes
``benchmarks/method_costs.tsv``, which the validity league table shows.

    .venv/bin/python benchmarks/bench_methods.py
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread, set before numpy loads BLAS
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from biasbench.methods import contract as c
from biasbench.methods.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
N, DIM, CONTEXTS, ITEMS = 25, 384, 20, 1000


def inputs_of(kind: type, rng: np.random.Generator):
    if kind is c.ContextVectors:
        groups = {r: [rng.normal(size=(CONTEXTS, DIM)) for _ in range(N)] for r in "XYAB"}
        # definitional pairs A[i] ~ B[i] (Direct Bias, RIPA) and word-piece strata (the
        # stratified word-level test), as a transformer's word set with pairs gives them
        return c.ContextVectors(
            groups,
            pairs=list(zip(groups["A"], groups["B"], strict=True)),
            strata={r: [1 + i % 2 for i in range(N)] for r in "XYAB"},
        )
    if kind is c.TemplateLogProbs:
        pt = rng.normal(-10, 3, size=(8, 2 * N, 2 * N))
        return c.TemplateLogProbs(pt, pt - rng.uniform(0, 4, pt.shape), N, N)
    if kind is c.ContextLogProbs:
        sets = {r: tuple(f"{r}{i}" for i in range(N)) for r in "XYAB"}
        cells = {
            (t, a): np.column_stack([v := rng.normal(-20, 4, 3), v - rng.uniform(0, 3, 3)])
            for t in sets["X"] + sets["Y"]
            for a in sets["A"] + sets["B"]
        }
        return c.ContextLogProbs(cells, sets)
    if kind is c.PairScores:
        return c.PairScores(
            rng.normal(size=ITEMS),
            rng.normal(size=ITEMS),
            rng.random(ITEMS) < 0.8,
            np.array(["race", "gender"] * (ITEMS // 2)),
        )
    if kind is c.TripleScores:
        return c.TripleScores(*(rng.normal(size=ITEMS) for _ in range(3)))
    if kind is c.Associations:
        return c.Associations(rng.normal(size=ITEMS), rng.normal(size=ITEMS))
    if kind is c.FillCounts:
        words = [f"w{i}" for i in range(30)]
        return c.FillCounts(
            [{w: tuple(int(v) for v in rng.integers(0, 30, 2)) for w in words} for _ in range(14)]
        )
    if kind is c.Resolutions:
        return c.Resolutions(
            rng.random(ITEMS) < 0.7, np.arange(ITEMS) % 2 == 0, np.arange(ITEMS) % 4 < 2
        )
    if kind is c.GroupAssociations:
        return c.GroupAssociations(rng.random((104, 2)))
    raise ValueError(kind)


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "method_costs.tsv")
    args = parser.parse_args()
    settings = c.Settings()
    a = np.random.default_rng(0).normal(size=(DIM, DIM))
    baseline = statistics.median(
        timed(lambda: [a @ a for _ in range(1000)]) for _ in range(args.repeats)
    )
    rows = []
    for method in REGISTRY:
        data = inputs_of(method.consumes, np.random.default_rng(1))
        seconds = statistics.median(
            timed(lambda m=method, d=data: m(d, settings, seed=0)) for _ in range(args.repeats)
        )
        rows.append(
            {
                "method": method.name,
                "input": method.consumes.__name__,
                "seconds": round(seconds, 4),
                "ratio_to_baseline": round(seconds / baseline, 3),
            }
        )
        print(f"{method.name:22s} {seconds:8.3f} s  ({seconds / baseline:.2f} x baseline)")
    print(f"baseline (1,000 matmuls {DIM}^2): {baseline:.3f} s, median of {args.repeats}")
    pd.DataFrame(rows).to_csv(args.out, sep="\t", index=False)


if __name__ == "__main__":
    main()
