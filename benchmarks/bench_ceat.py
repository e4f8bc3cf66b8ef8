"""CPU seconds of CEAT and p-CEAT on synthetic inputs of the shapes the workflow's jobs have,
on one thread (the medians of --runs, ``time.process_time``).

CEAT (10,000 samples, 384-dim vectors, X/Y/A/B stimuli x contexts per stimulus):

a. 8/8/8/8 x 1 (a static model), with the word-level tests (1,000 splits, and strata)
b. 50/50/25/25 x 100 (natural contexts)
c. 25/25/223/223 x 1 (Dis-like: hundreds of attribute words, a static model)
d. 25/25/223/223 x 100 targets, 1 attribute context (Dis-like, contextual targets only)

p-CEAT (10,000 samples; (attribute, target) pairs with 1-30 contexts, every split of the
attribute words):

e. 8/8/8/8

Usage: python benchmarks/bench_ceat.py [--runs 5] [--only a b ...] [--against DIR]

``--against DIR`` times the same shapes with the library of another checkout (``DIR``, e.g.
``git worktree add /tmp/before <rev>``) in a child process, one shape after the other in
turn, and prints each ratio: the baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from functools import partial

import numpy as np
from threadpoolctl import threadpool_limits

from biasbench.methods.contract import ContextLogProbs, Settings
from biasbench.methods.embedding.ceat import ceat
from biasbench.methods.probability.pceat import score as pceat_score


def context_vectors(sizes, contexts, dim=384, seed=0):
    rng = np.random.default_rng(seed)
    return {
        role: [rng.normal(size=(c, dim)).astype(np.float32) for _ in range(n)]
        for role, n, c in zip("XYAB", sizes, contexts, strict=True)
    }


def context_log_probs(sizes, max_contexts=30, seed=0):
    rng = np.random.default_rng(seed)
    sets = {r: tuple(f"{r}{i}" for i in range(n)) for r, n in zip("XYAB", sizes, strict=True)}
    cells = {}
    for t in sets["X"] + sets["Y"]:
        for a in sets["A"] + sets["B"]:
            n = int(rng.integers(1, max_contexts + 1))
            cells[(t, a)] = np.column_stack([rng.normal(-10, 2, n), rng.normal(-11, 2, n)])
    return ContextLogProbs(cells, sets)


def cases() -> list[tuple[str, str, partial]]:
    """(key, label, the call to time) of each shape."""
    n = {"n_samples": 10_000, "seed": 1}
    return [
        (
            "a",
            "CEAT 8/8/8/8 x 1, word-level tests",
            partial(
                ceat, context_vectors((8,) * 4, (1,) * 4), word_splits=1000, strata=[1, 2] * 8, **n
            ),
        ),
        (
            "b",
            "CEAT 50/50/25/25 x 100",
            partial(ceat, context_vectors((50, 50, 25, 25), (100,) * 4), **n),
        ),
        (
            "c",
            "CEAT 25/25/223/223 x 1",
            partial(ceat, context_vectors((25, 25, 223, 223), (1,) * 4), **n),
        ),
        (
            "d",
            "CEAT 25/25/223/223 x 100/100/1/1",
            partial(ceat, context_vectors((25, 25, 223, 223), (100, 100, 1, 1)), **n),
        ),
        (
            "e",
            "p-CEAT 8/8/8/8",
            partial(pceat_score, context_log_probs((8,) * 4), Settings(ceat_samples=10_000), 1),
        ),
    ]


def timed(run, runs: int) -> float:
    """The median CPU seconds of ``runs`` calls, after a warm-up call (imports, first touch)."""
    run()
    times = []
    for _ in range(runs):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def time_elsewhere(directory: str, key: str, runs: int) -> float:
    """One shape timed with the library of the checkout ``directory``, in a child process."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(directory))
    out = subprocess.run(
        [sys.executable, __file__, "--runs", str(runs), "--only", key, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.splitlines()[-1])[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="the shapes to time (default: all)")
    parser.add_argument("--against", help="a checkout whose library is the baseline")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    found = {}
    with threadpool_limits(1):
        for key, label, run in cases():
            if args.only and key not in args.only:
                continue
            found[key] = seconds = timed(run, args.runs)
            if args.json:
                continue
            line = f"{key}. {label:36s} {seconds:7.3f} s CPU"
            if args.against:
                before = time_elsewhere(args.against, key, args.runs)
                line += f"  against {before:7.3f} s: {before / seconds:5.2f}x"
            print(line, flush=True)
    if args.json:
        print(json.dumps(found))


if __name__ == "__main__":
    main()
