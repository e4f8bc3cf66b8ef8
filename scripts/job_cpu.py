"""Where a run's CPU went, per stage, from what each job measured of itself.

Every workflow job records in its log the CPU seconds (user + system, its own and its
children's, from the kernel: biasbench.jobs.log_cpu) at its start-up (the interpreter, the
script's imports, the checks of its pinned inputs), after loading its model, and at exit.
This sums them per stage: jobs, CPU seconds, and the part that was start-up (everything
before the first test's arithmetic: up to the model loaded, where the job loads one); and
counts, per model, the jobs that loaded its weights.

    python scripts/job_cpu.py [--results results] [--newer FILE] [--tests]

``--tests``: instead, each test a per-model job computed (its log's CPU after the test less
the CPU before it), the costliest first: where a model's arithmetic went.

``--newer FILE``: only the jobs whose log was written after FILE's modification time (an
audit beside a finished run: ``touch t0`` before it).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from estimate_cost import ROOT, benchmark_patterns, rule_of  # noqa: E402

from biasbench.io import logged_cpu  # noqa: E402
from biasbench.test_cache import TEST_CPU  # noqa: E402


def job_logs(results: Path, newer: float | None = None):
    """(stage, its wildcards, the CPU it logged) of every job log under ``results/logs`` that
    records its CPU (and was written after ``newer``, a time in seconds)."""
    patterns = benchmark_patterns(ROOT / "rules")
    for log in sorted((results / "logs").rglob("*.log")):
        if newer is not None and log.stat().st_mtime <= newer:
            continue
        cpu = logged_cpu(log)
        if "total" not in cpu:
            continue
        relative = log.relative_to(results / "logs").with_suffix(".tsv").as_posix()
        found = rule_of(f"results/benchmarks/{relative}", patterns)
        yield (found or (relative.split("/")[0], {})) + (cpu,)


def model_loads(results: Path, newer: float | None = None) -> dict[str, int]:
    """Model -> how many jobs loaded its weights (their logs record a model loaded); a job
    with no model wildcard (the ground-truth study's, which load its masked LM) by stage."""
    loads: dict[str, int] = defaultdict(int)
    for stage, wildcards, cpu in job_logs(results, newer):
        if "model loaded" in cpu:
            loads[wildcards.get("model", f"({stage})")] += 1
    return dict(loads)


def stage_cpu(results: Path, newer: float | None = None) -> dict[str, dict[str, float]]:
    """Stage -> {"jobs", "cpu_s", "startup_s"}, from the jobs' logs (:func:`job_logs`)."""
    stages: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for stage, _wildcards, cpu in job_logs(results, newer):
        stages[stage]["jobs"] += 1
        stages[stage]["cpu_s"] += cpu["total"]
        stages[stage]["startup_s"] += cpu.get("model loaded", cpu["start-up"])
    return stages


def per_test_cpu(results: Path, newer: float | None = None) -> list[tuple[str, str, str, float]]:
    """(stage, model, test, CPU seconds) of every test a per-model job computed: its CPU
    line's seconds less the line's before it (the model's load is not the first test's)."""
    found = []
    for stage, wildcards, cpu in job_logs(results, newer):
        before = 0.0
        for what, seconds in cpu.items():
            if what.startswith(TEST_CPU):
                test = what[len(TEST_CPU) :]
                found.append((stage, wildcards.get("model", ""), test, seconds - before))
            before = seconds
    return sorted(found, key=lambda row: -row[3])


def table(stages: dict[str, dict[str, float]]) -> str:
    lines = [
        "| stage | jobs | CPU s | start-up CPU s | start-up share |",
        "|---|---:|---:|---:|---:|",
    ]
    ordered = sorted(stages.items(), key=lambda item: -item[1]["cpu_s"])
    for stage, s in ordered:
        lines.append(
            f"| {stage} | {s['jobs']:.0f} | {s['cpu_s']:.1f} | {s['startup_s']:.1f} | "
            f"{s['startup_s'] / s['cpu_s']:.0%} |"
        )
    jobs, cpu, startup = (
        sum(s[key] for s in stages.values()) for key in ("jobs", "cpu_s", "startup_s")
    )
    lines.append(f"| **all** | {jobs:.0f} | {cpu:.1f} | {startup:.1f} | {startup / cpu:.0%} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--newer", type=Path, help="only logs written after this file's mtime")
    parser.add_argument("--tests", action="store_true", help="the CPU of each computed test")
    args = parser.parse_args()
    newer = args.newer.stat().st_mtime if args.newer else None
    if args.tests:
        rows = per_test_cpu(args.results, newer)
        if not rows:
            sys.exit(f"{args.results / 'logs'}: no job log records a computed test's CPU")
        print("| stage | model | test | CPU s |\n|---|---|---|---:|")
        print(
            "\n".join(
                f"| {stage} | {model} | {test} | {cpu:.1f} |" for stage, model, test, cpu in rows
            )
        )
        return
    stages = stage_cpu(args.results, newer)
    if not stages:
        sys.exit(f"{args.results / 'logs'}: no job log records its CPU")
    print(table(stages))
    loads = ", ".join(f"{m} {n}" for m, n in sorted(model_loads(args.results, newer).items()))
    print(f"\njobs that loaded each model's weights: {loads}")


if __name__ == "__main__":
    main()
