"""Estimate what a configuration costs before it runs: the jobs per rule of a dry run of the
whole workflow, priced with the per-job costs measured in a finished run
(benchmarks/job_costs.tsv; biasbench.plan.cost says how each rule scales).

    .venv/bin/python scripts/estimate_cost.py --from-run results     # writes the cost table
    .venv/bin/python scripts/estimate_cost.py --configfile config/presets/schroeder-scale.yaml \
        [--cores 2 16 64]
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
import textwrap
from dataclasses import asdict, fields
from pathlib import Path

import pandas as pd
from snakemake.utils import update_config

from biasbench.config import read_yaml, validate_config
from biasbench.errors import InputError
from biasbench.io import logged_cpu, read_json
from biasbench.plan import rule_stage
from biasbench.plan.cost import (
    JobMeasure,
    RuleCost,
    estimate_rules,
    groundtruth_models_per_job,
    is_per_model,
    planned_models,
    rule_costs,
    total_cpu_seconds,
    wall_seconds,
)

ROOT = Path(__file__).resolve().parents[1]
COSTS = ROOT / "benchmarks" / "job_costs.tsv"
#: a per-model rule's job of mean ``mu`` handles the models its study record lists
RECORDS = "studies/groundtruth/mu{mu}.json"
#: a rule, a rule defined from another (``use rule a as b with:``, the study's variants), or
#: a per-model rule made in a loop (``rule:`` with ``name: group_rule("<stage>", ...)``)
RULE_HEADER = re.compile(r"^[ \t]*(?:rule|use rule \w+ as)(?: (\w+))?(?: with)?:", re.MULTILINE)
GROUP_NAME = re.compile(r'^\s+name:\s*\n\s+group_rule\("(\w+)"', re.MULTILINE)
BENCHMARK = re.compile(r'^\s+benchmark:\s*\n\s+"([^"]+)"', re.MULTILINE)
WILDCARD = re.compile(r"\{(\w+)\}")


def benchmark_patterns(rules_dir: Path) -> list[tuple[str, re.Pattern, int]]:
    """Each rule's benchmark file as a pattern (rule, regex, literal characters), read from the
    rule files: a file's folder alone does not name its rule (groundtruth/ holds three rules'
    files)."""
    patterns = []
    for smk in sorted(rules_dir.glob("*.smk")):
        _, *pairs = RULE_HEADER.split(smk.read_text(encoding="utf-8"))
        for rule, body in zip(pairs[::2], pairs[1::2], strict=True):
            if rule is None and (group := GROUP_NAME.search(body)):
                rule = group.group(1)  # a per-model rule: its stage's costs
            if rule is not None and (found := BENCHMARK.search(body)):
                parts = WILDCARD.split(found.group(1))
                regex = "".join(
                    re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^/]+)" for i, p in enumerate(parts)
                )
                patterns.append((rule, re.compile(regex), len("".join(parts[::2]))))
    return patterns


def rule_of(path: str, patterns: list[tuple[str, re.Pattern, int]]) -> tuple[str, dict] | None:
    """The rule (and wildcards) whose benchmark pattern matches ``path``, the most literal one
    where several do (a file named in full before a pattern with a wildcard that matches it)."""
    matches = [(size, rule, m) for rule, regex, size in patterns if (m := regex.fullmatch(path))]
    if not matches:
        return None
    _, rule, match = max(matches, key=lambda found: found[0])
    return rule, match.groupdict()


def study_models(results: Path, mu: str | None) -> int:
    """The study models a job handled: those of its mean, or of every mean (``mu`` None)."""
    records = (
        sorted(results.glob(RECORDS.format(mu="*")))
        if mu is None
        else [results / RECORDS.format(mu=mu)]
    )
    if not records or not records[0].is_file():
        raise InputError(f"{records[0] if records else results}: no study record of mu {mu}")
    models = [m for record in records for m in read_json(record)["models"]]
    return len(models) + sum(bool(m.get("refit")) for m in models)  # a refit is scored whole


def measured_jobs(results: Path) -> list[JobMeasure]:
    """Every benchmark file of a finished run (``results/benchmarks/**.tsv``) as a job of its
    rule; a file no rule declares (a renamed rule's) is skipped with a warning."""
    benchmarks = results / "benchmarks"
    if not benchmarks.is_dir():
        raise InputError(f"{benchmarks}: no such folder: not the results/ of a finished run")
    patterns = benchmark_patterns(ROOT / "rules")
    jobs = []
    for path in sorted(benchmarks.rglob("*.tsv")):
        found = rule_of(f"results/{path.relative_to(results).as_posix()}", patterns)
        if found is None:
            print(
                f"warning: {path}: no rule declares this benchmark file; skipped", file=sys.stderr
            )
            continue
        rule, wildcards = found
        frame = pd.read_csv(path, sep="\t")
        if not {"s", "cpu_time"} <= set(frame.columns):
            raise InputError(f"{path}: no columns s and cpu_time: not a Snakemake benchmark file")
        models = study_models(results, wildcards.get("mu")) if is_per_model(rule) else None
        jobs.append(JobMeasure(rule, frame["s"].mean(), job_cpu(path, frame), models))
    if not jobs:
        raise InputError(f"{benchmarks}: no benchmark files")
    return jobs


def job_cpu(benchmark: Path, frame: pd.DataFrame) -> float:
    """A job's CPU seconds: measured by the job itself (the total its log records, beside
    the benchmark file under logs/), else Snakemake's ``cpu_time`` (sampled: the first
    ~15 s, then every 30 s, so short jobs and the ends of long ones go uncounted)."""
    parts = list(benchmark.parts)
    at = len(parts) - 1 - parts[::-1].index("benchmarks")
    log = Path(*parts[:at], "logs", *parts[at + 1 :]).with_suffix(".log")
    total = logged_cpu(log).get("total") if log.is_file() else None
    return float(frame["cpu_time"].mean()) if total is None else total


def write_costs(costs: list[RuleCost], path: Path) -> None:
    frame = pd.DataFrame([asdict(c) for c in costs])
    frame.to_csv(path, sep="\t", index=False, float_format="%.2f", lineterminator="\n")


def read_costs(path: Path) -> dict[str, RuleCost]:
    if not path.is_file():
        raise InputError(
            f"{path}: no cost table: write it from a finished run's results first "
            f"(scripts/estimate_cost.py --from-run results)"
        )
    frame = pd.read_csv(path, sep="\t")
    missing = {f.name for f in fields(RuleCost)} - set(frame.columns)
    if missing:
        raise InputError(f"{path}: no column {', '.join(sorted(missing))}: rewrite it (--from-run)")
    costs = {}
    for row in frame.to_dict("records"):
        models = row["models_per_job"]
        row["models_per_job"] = None if math.isnan(models) else models
        costs[row["rule"]] = RuleCost(**row)
    return costs


def merged_config(configfiles: list[Path]) -> dict:
    """config.yaml with each ``--configfile`` merged on top as Snakemake merges them, and the
    schema's defaults filled in."""
    config = read_yaml(ROOT / "config.yaml")
    for path in configfiles:
        update_config(config, read_yaml(path))
    return validate_config(config)


def planned_jobs(configfiles: list[Path]) -> dict[str, int]:
    """The jobs per rule of a fresh run of the default target (a dry run with --forceall, so
    results already in this checkout do not shrink the estimate)."""
    command = [sys.executable, "-m", "snakemake", "--dry-run", "--forceall", "--nolock"]
    command += ["--quiet", "rules", "--cores", "1"]
    command += [a for path in configfiles for a in ("--configfile", str(path.resolve()))]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise InputError(f"the dry run failed ({' '.join(command[2:])}):\n{output[-3000:]}")
    return job_stats(output)


def job_stats(output: str) -> dict[str, int]:
    """The first "Job stats:" table of Snakemake's output, without its total, by stage (a
    per-model rule's jobs counted with its stage's: :func:`biasbench.plan.rule_stage`)."""
    _, found, table = output.partition("Job stats:\n")
    if not found:
        raise InputError(f"the dry run printed no job stats:\n{output[-3000:]}")
    counts = {}
    for line in table.splitlines()[2:]:
        rule, count = line.split()
        if rule == "total":
            return counts
        counts[rule_stage(rule)] = counts.get(rule_stage(rule), 0) + int(count)
    raise InputError(f"the dry run's job stats end without a total:\n{table}")


def shown(path: Path) -> str:
    """A path as a reader here would type it: relative to the checkout where it lies in it."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(path)


def duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min"


def estimate(configfiles: list[Path], costs_path: Path, cores: list[int]) -> str:
    costs = read_costs(costs_path)
    config = merged_config(configfiles)
    models_per_job = groundtruth_models_per_job(config)
    means = len(set(config["groundtruth"]["mu"])) if config["groundtruth"] else 1
    estimates = estimate_rules(planned_jobs(configfiles), models_per_job, costs, means)
    measured = sorted((e for e in estimates if e.cpu_s is not None), key=lambda e: -e.cpu_s)
    unmeasured = [e for e in estimates if e.cpu_s is None]
    presets = ", ".join(map(shown, configfiles)) or "nothing"
    lines = [
        f"config.yaml + {presets}; costs: {shown(costs_path)}",
        f"{'rule':<26}{'jobs':>6}{'models/job':>12}  {'scaling':<10}{'CPU-h':>8}  longest job",
    ]
    for e in measured:
        models = planned_models(e.rule, models_per_job, means) if e.scaling == "per model" else ""
        lines.append(
            f"{e.rule:<26}{e.jobs:>6}{models:>12}  {e.scaling:<10}{e.cpu_s / 3600:>8.2f}"
            f"  {duration(e.longest_s)}"
        )
    if unmeasured:
        listed = ", ".join(f"{e.rule} ({e.jobs})" for e in unmeasured)
        lines += textwrap.wrap(f"unmeasured, not in the total (jobs): {listed}", 92)
    total = total_cpu_seconds(estimates) / 3600
    for n in cores:
        wall = wall_seconds(estimates, n) / 3600
        lines.append(f"total: {total:.1f} CPU-hours; wall ~{wall:.1f} h at {n} cores")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--from-run", type=Path, metavar="RESULTS_DIR", help="write the cost table from this run"
    )
    mode.add_argument("--configfile", type=Path, nargs="*", default=[])
    parser.add_argument("--cores", type=int, nargs="+", default=[2, 16, 64])
    parser.add_argument("--costs", type=Path, default=COSTS, help="the cost table")
    args = parser.parse_args()
    try:
        if args.from_run:
            costs = rule_costs(measured_jobs(args.from_run))
            write_costs(costs, args.costs)
            jobs = sum(c.jobs for c in costs)
            print(f"{shown(args.costs)}: {len(costs)} rules, {jobs} jobs of {args.from_run}")
        else:
            print(estimate(args.configfile, args.costs, args.cores))
    except InputError as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
