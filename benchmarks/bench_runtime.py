"""Runtime of the scoring methods on bias tests C1 and C6, in the style of the paper's
Tables 7-8 (Husse & Spitz, 2022, appendix F: seconds per test on one CPU, embedding
generation excluded for the cosine methods, averaged over ten runs).

What is timed, with one BLAS thread, for every target descriptor (names, terms) of the test:

* s-SEAT / w-SEAT: ``weat`` -- effect size and permutation test with the settings of the
  config's ``scoring`` section -- on synthetic 384-dim embeddings (MiniLM's width), one
  item per stimulus and single-slot template (``unit: context``, template set of the
  config). Their scoring is the same computation; they differ only in how the embeddings
  are made, which is excluded. Each run draws fresh partitions (its own seed), so no run
  reuses the partitions cached by an earlier one.
* CEAT: ``ceat`` with ``scoring.ceat_samples`` samples over 100 synthetic 384-dim contexts
  per stimulus (the contexts' extraction is excluded).
* LPBS: ``lpbs_test`` (effect size and two-sided permutation test, same settings) on
  synthetic bias scores, one per attribute; model inference and the bias scores' computation
  from log-probabilities are excluded.

Usage: BIAS_DATA_MIRROR=../shared/external python benchmarks/bench_runtime.py \\
           [--runs 10] [--out results/tables/runtime.md]   (the CSV goes beside, .csv)
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from bench_natural import ROOT, all_wordsets, resolver
from threadpoolctl import threadpool_limits

from biasbench.config import validate_config
from biasbench.data.templates import load_templates
from biasbench.data.wordsets import ROLES
from biasbench.methods.embedding.ceat import ceat
from biasbench.methods.embedding.vectors import set_items
from biasbench.methods.embedding.weat import weat
from biasbench.methods.probability.lpbs import lpbs_test
from biasbench.scoring.settings import ScoreSettings
from biasbench.stats import derived_seed

TESTS = ("C1", "C6")
DESCRIPTORS = ("names", "terms")
METHODS = ("s-SEAT", "w-SEAT", "CEAT", "LPBS")
DIM = 384
CEAT_CONTEXTS = 100
LMS = ("ELMo", "BERT", "GPT-2", "OPT", "BLOOM")

#: the paper's Tables 7 (C1) and 8 (C6), seconds, transcribed by hand; LPBS ran on BERT only
PAPER = {
    "C1": {
        "s-SEAT": (5.7, 5.3, 5.9, 4.1, 3.4),
        "w-SEAT": (5.9, 6.4, 5.9, 3.4, 3.8),
        "CEAT": (445.2, 452.2, 473.9, 457.7, 489.4),
        "LPBS": (None, 30.8, None, None, None),
    },
    "C6": {
        "s-SEAT": (3.5, 3.2, 3.0, 0.9, 0.7),
        "w-SEAT": (3.4, 3.5, 3.5, 0.7, 0.9),
        "CEAT": (89.9, 142.0, 124.6, 116.2, 114.5),
        "LPBS": (None, 10.2, None, None, None),
    },
}


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_settings(config_path: Path) -> tuple[ScoreSettings, str]:
    config = validate_config(
        yaml.safe_load(config_path.read_text(encoding="utf-8")), ROOT / "config/schema.yaml"
    )
    settings = ScoreSettings(seed=int(config["seed"]), **config["scoring"])
    return settings, config["template_set"]


def timed_runs(call, runs: int) -> list[float]:
    """Seconds of ``call(run)`` for each run."""
    times = []
    for run in range(runs):
        start = time.perf_counter()
        call(run)
        times.append(time.perf_counter() - start)
    return times


def method_calls(method, ws, templates, settings, rng):
    """(setup description, call) for one method on one word set; ``call(run)`` scores it
    with the run's own seed."""
    sizes = {r: len(ws.sets[r]) for r in ROLES}

    def seed(run: int) -> int:
        return derived_seed(settings.seed, "runtime", method, ws.test, ws.descriptor, str(run))

    if method in ("s-SEAT", "w-SEAT"):
        per_role = {
            r: len(templates.targets[ws.target_kind])
            if r in "XY"
            else len(templates.attributes[ws.attribute_kind])
            for r in ROLES
        }
        groups = {r: [rng.normal(size=(per_role[r], DIM)) for _ in range(sizes[r])] for r in ROLES}
        items = {r: set_items(groups[r], settings.unit) for r in ROLES}
        probe = weat(
            *(items[r] for r in ROLES),
            exact_max=settings.exact_max,
            n_samples=settings.n_samples,
            seed=seed(-1),
            ddof=settings.ddof,
        )
        mode = "exact" if probe.exact else "sampled"
        setup = (
            f"{'/'.join(str(len(items[r])) for r in ROLES)} items (unit {settings.unit}), "
            f"{probe.n_partitions:,} {mode} partitions"
        )

        def call(run):
            weat(
                *(items[r] for r in ROLES),
                exact_max=settings.exact_max,
                n_samples=settings.n_samples,
                seed=seed(run),
                ddof=settings.ddof,
            )

        return setup, call
    if method == "CEAT":
        contexts = {
            r: [rng.normal(size=(CEAT_CONTEXTS, DIM)).astype(np.float32) for _ in range(sizes[r])]
            for r in ROLES
        }
        setup = (
            f"{'/'.join(str(sizes[r]) for r in ROLES)} stimuli x {CEAT_CONTEXTS} contexts, "
            f"{settings.ceat_samples:,} samples"
        )

        def call(run):
            ceat(contexts, n_samples=settings.ceat_samples, seed=seed(run))

        return setup, call
    bs_a, bs_b = rng.normal(size=sizes["A"]), rng.normal(size=sizes["B"])
    probe = lpbs_test(
        bs_a, bs_b, exact_max=settings.exact_max, n_samples=settings.n_samples, seed=seed(-1)
    )
    mode = "exact" if probe.exact else "sampled"
    setup = f"{sizes['A']}/{sizes['B']} bias scores, {probe.n_partitions:,} {mode} partitions"

    def call(run):
        lpbs_test(
            bs_a, bs_b, exact_max=settings.exact_max, n_samples=settings.n_samples, seed=seed(run)
        )

    return setup, call


def fmt(seconds: float | None, digits: int = 3) -> str:
    if seconds is None or np.isnan(seconds):
        return "-"
    return f"{seconds:.{digits}f}"


def to_markdown(table: pd.DataFrame, runs: int, header: list[str]) -> str:
    lines = ["# Runtime of the scoring methods (seconds)", "", *header, ""]
    for test, number in zip(TESTS, (7, 8), strict=True):
        part = table[table["test"] == test]
        descs = list(dict.fromkeys(part["descriptor"]))
        lines += [f"## {test} (the paper's Table {number})", ""]
        cols = ["Method"]
        for d in descs:
            cols += [f"ours {d} median", f"ours {d} mean"]
        cols += [f"paper {lm}" for lm in LMS]
        lines += [
            "| " + " | ".join(cols) + " |",
            "|" + "|".join(["---"] + ["---:"] * (len(cols) - 1)) + "|",
        ]
        for method in METHODS:
            rows = part[part["method"] == method].set_index("descriptor")
            cells = [method]
            for d in descs:
                cells += [fmt(rows.loc[d, "median_s"]), fmt(rows.loc[d, "mean_s"])]
            cells += [fmt(v, 1) for v in PAPER[test][method]]  # as published
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", "Setup per row (ours):", ""]
        for _, row in part.iterrows():
            lines.append(f"- {row['method']}, {row['descriptor']}: {row['setup']}")
        lines.append("")
    lines += [
        f"Ours: median and mean of {runs} runs, one BLAS thread, synthetic {DIM}-dim "
        "embeddings and bias scores; embedding generation, context extraction and model "
        "inference excluded. Paper: mean of ten runs on a single CPU, by language model "
        "(LPBS on BERT only); its cosine-method times also exclude embedding generation.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs per cell")
    parser.add_argument("--config", type=Path, default=ROOT / "config.yaml")
    parser.add_argument("--out", type=Path, default=ROOT / "results/tables/runtime.md")
    args = parser.parse_args()

    settings, template_set = load_settings(args.config)
    resolve = resolver()
    templates = load_templates(ROOT / f"resources/templates/{template_set}.yaml", resolve)
    wordsets = [
        ws for ws in all_wordsets(resolve) if ws.test in TESTS and ws.descriptor in DESCRIPTORS
    ]
    rng = np.random.default_rng(settings.seed)
    load_before = os.getloadavg()[0]
    rows = []
    with threadpool_limits(1):
        for ws in wordsets:
            for method in METHODS:
                setup, call = method_calls(method, ws, templates, settings, rng)
                times = timed_runs(call, args.runs)
                rows.append(
                    {
                        "test": ws.test,
                        "descriptor": ws.descriptor,
                        "method": method,
                        "setup": setup,
                        "runs": args.runs,
                        "median_s": statistics.median(times),
                        "mean_s": statistics.fmean(times),
                        "min_s": min(times),
                        "max_s": max(times),
                        **{
                            f"paper_{lm}_s": v
                            for lm, v in zip(LMS, PAPER[ws.test][method], strict=True)
                        },
                    }
                )
                print(
                    f"{ws.test} {ws.descriptor:5s} {method:6s} median {rows[-1]['median_s']:7.3f} s"
                    f"  mean {rows[-1]['mean_s']:7.3f} s  ({setup})",
                    flush=True,
                )
    header = [
        f"Machine: {cpu_name()}, {os.cpu_count()} cores, "
        f"1 BLAS thread; numpy {np.__version__}; load average {load_before:.2f} at start, "
        f"{os.getloadavg()[0]:.2f} at end. Config: {args.config.name} (scoring: exact_max "
        f"{settings.exact_max:,}, n_samples {settings.n_samples:,}, ceat_samples "
        f"{settings.ceat_samples:,}, unit {settings.unit}; templates {template_set}).",
    ]
    table = pd.DataFrame(rows)
    markdown = to_markdown(table, args.runs, header)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown, encoding="utf-8")
    table.to_csv(args.out.with_suffix(".csv"), index=False)
    print()
    print(markdown)
    print(f"wrote {args.out} and {args.out.with_suffix('.csv')}")


if __name__ == "__main__":
    main()
