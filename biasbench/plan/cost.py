"""What a planned run costs, from the jobs of a run that finished: each rule's measured wall
seconds per job (its Snakemake benchmark files), scaled to the jobs the plan holds, so a
larger configuration (config/presets/schroeder-scale.yaml) is priced before a cluster runs it.

Every rule declares one thread, so a job holds one core for its wall time: its CPU-seconds here
are its wall seconds (the measured CPU time, the table's cpu_s_per_job, is at most that).
The ground-truth study's rules scale per study model, not per job: a job of groundtruth_models
trains every model of one mean, a job of injected_scores or injected_methods scores every
model of every mean, so a grid ten times larger costs ten times more per job.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from biasbench.errors import InputError

#: the rules whose job trains or measures study models (rules/groundtruth.smk)
PER_MODEL_RULES = ("groundtruth_models", "injected_scores", "injected_methods")
#: those whose one job measures the models of every mean (the others': one mean's)
EVERY_MEAN_RULES = ("injected_scores", "injected_methods")
#: the suffix of their per-mean variants (groundtruth.score_jobs: per_mean), each priced per
#: model from its rule's jobs and the other way round
PER_MEAN = "_per_mean"


def measured_cost(rule: str, costs: Mapping[str, RuleCost]) -> RuleCost | None:
    """A rule's measured cost, or that of its other form (a study rule's one job for every
    mean and its per-mean variant); None where neither was measured."""
    for name in (rule, rule.removesuffix(PER_MEAN), rule + PER_MEAN):
        if name in costs:
            return costs[name]
    return None


def planned_models(rule: str, models_per_job: int, means: int) -> int:
    """The study models a planned job of a per-model ``rule`` handles: one mean's
    (``models_per_job``), or every mean's for a rule whose one job scores them all."""
    return models_per_job * (means if rule in EVERY_MEAN_RULES else 1)


def is_per_model(rule: str) -> bool:
    """Whether ``rule`` (or the rule it is the per-mean variant of) scales per study model."""
    return rule.removesuffix(PER_MEAN) in PER_MODEL_RULES


@dataclass(frozen=True)
class JobMeasure:
    """One finished job: wall and CPU seconds (the benchmark's ``s`` and ``cpu_time``) and, for
    a per-model rule, the study models it handled."""

    rule: str
    wall_s: float
    cpu_s: float
    models: int | None = None


@dataclass(frozen=True)
class RuleCost:
    """One rule's measured jobs, summarised (a row of benchmarks/job_costs.tsv)."""

    rule: str
    jobs: int
    models_per_job: float | None
    mean_s: float
    max_s: float
    total_s: float
    cpu_s_per_job: float


@dataclass(frozen=True)
class RuleEstimate:
    """One rule's planned jobs and what they are estimated to cost; ``cpu_s`` and
    ``longest_s`` are None for a rule never measured (its cost is unknown, not zero)."""

    rule: str
    jobs: int
    scaling: str
    cpu_s: float | None
    longest_s: float | None


def rule_costs(measures: Iterable[JobMeasure]) -> list[RuleCost]:
    """The cost table of a finished run, one row per rule (models per job: their mean, where
    every job of the rule says how many it handled)."""
    by_rule: dict[str, list[JobMeasure]] = defaultdict(list)
    for measure in measures:
        by_rule[measure.rule].append(measure)
    costs = []
    for rule, jobs in sorted(by_rule.items()):
        models = [j.models for j in jobs]
        walls = [j.wall_s for j in jobs]
        costs.append(
            RuleCost(
                rule=rule,
                jobs=len(jobs),
                models_per_job=None if None in models else statistics.mean(models),
                mean_s=statistics.mean(walls),
                max_s=max(walls),
                total_s=sum(walls),
                cpu_s_per_job=statistics.mean(j.cpu_s for j in jobs),
            )
        )
    return costs


def groundtruth_models_per_job(config: Mapping[str, Any]) -> int | None:
    """The study models one job of a mean handles (every sigma, alignment and repeat, and the
    ``retest`` refits: each counted as a model, as its scoring jobs count it), from a
    configuration with the schema's defaults filled in; None where the study is not run."""
    study = config.get("groundtruth")
    if study is None:
        return None
    models = len(study["sigma"]) * len(study["alignment"]) * study["repeats"]
    return models + min(study.get("retest", 0), models)


def estimate_rules(
    planned_jobs: Mapping[str, int],
    models_per_job: int | None,
    costs: Mapping[str, RuleCost],
    means: int = 1,
) -> list[RuleEstimate]:
    """Each planned rule's cost: a per-model rule's measured seconds per job divided by its
    measured models per job, times the models per job planned (``models_per_job``, the models
    of one mean, times ``means`` for a rule whose job scores every mean), times the jobs
    planned; any other rule's mean seconds per job times the jobs planned (the mean: a rule's
    total, which a median would understate where its jobs differ, as a study's tests do). The
    longest job scales the same way."""
    estimates = []
    for rule, jobs in planned_jobs.items():
        cost = measured_cost(rule, costs)
        if cost is None:
            estimates.append(RuleEstimate(rule, jobs, "unmeasured", None, None))
            continue
        scale, scaling = 1.0, "per job"
        if is_per_model(rule):
            if models_per_job is None or not cost.models_per_job:
                raise InputError(
                    f"rule {rule} scales per study model, but its models per job are unknown "
                    f"(planned: {models_per_job}, in the cost table: {cost.models_per_job})"
                )
            planned = planned_models(rule, models_per_job, means)
            scale, scaling = planned / cost.models_per_job, "per model"
        estimates.append(
            RuleEstimate(rule, jobs, scaling, jobs * cost.mean_s * scale, cost.max_s * scale)
        )
    return estimates


def total_cpu_seconds(estimates: Iterable[RuleEstimate]) -> float:
    """The measured rules' CPU-seconds (unmeasured rules add nothing: they are listed apart)."""
    return sum(e.cpu_s for e in estimates if e.cpu_s is not None)


def wall_seconds(estimates: list[RuleEstimate], cores: int) -> float:
    """The run's wall time at ``cores`` one-thread slots, estimated as max(total CPU time /
    cores, longest single job): a lower bound, as if the jobs packed perfectly onto the cores.
    It ignores the DAG's order (a chain of long jobs, such as head training -> frozen states ->
    study models -> their scores, runs one job after another however many cores wait) and each
    job's queueing and start-up on a cluster."""
    longest = max((e.longest_s for e in estimates if e.longest_s is not None), default=0.0)
    return max(total_cpu_seconds(estimates) / cores, longest)
