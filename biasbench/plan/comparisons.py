"""The paired comparisons a configuration asks for (``compare:``): each model compared with its
base on the data sets both score and that write per-item outcomes, checked before any job
(rules/comparisons.smk)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from biasbench import paths
from biasbench.errors import InputError
from biasbench.plan.datasets import DatasetPlan
from biasbench.scoring.datasets import WITH_OUTCOMES


@dataclass(frozen=True)
class PairedComparison:
    base: str
    against: str
    datasets: tuple[str, ...]  # the data sets both models score with per-item outcomes


@dataclass(frozen=True, kw_only=True)
class ComparisonPlan(DatasetPlan):
    """The paired comparisons' files and inputs (a part of :class:`biasbench.plan.Plan`);
    each reads both models' data-set outcomes."""

    #: (base, against) -> its comparison, each one ``compare:`` asks for (:func:`comparisons`)
    paired: dict[tuple[str, str], PairedComparison] = field(default_factory=dict)

    def comparison_files(self) -> list[str]:
        """Each comparison's table, card and harness file (targets of rule all)."""
        return [
            template.format(base=base, against=against)
            for base, against in self.paired
            for template in (paths.COMPARISON, paths.COMPARISON_CARD, paths.COMPARISON_LM_EVAL)
        ]

    def paired_comparison(self, base: str, against: str) -> PairedComparison:
        """The comparison of ``against`` with ``base`` (one config compare: does not ask for:
        an error naming both)."""
        if (base, against) not in self.paired:
            raise InputError(
                f"no paired comparison of {against!r} with {base!r} is configured (compare: in "
                "config.yaml)"
            )
        return self.paired[(base, against)]

    def comparison_inputs(
        self, base: str, against: str, comparison: Iterable[str], check: Iterable[str]
    ) -> dict[str, list[str]]:
        """What a comparison reads (rule compare_models): both models' per-item outcomes on
        every data set they share, the base model's coverage of each (the harness file's
        n-samples, as the model's own), ``comparison`` (the comparison across the zoo's
        tables, where the run makes them) and ``check`` (the paired comparison's check on
        the study's models, likewise)."""
        found = self.paired_comparison(base, against)
        return {
            "base": [
                paths.DATASET_OUTCOMES.format(model=found.base, dataset=d) for d in found.datasets
            ],
            "against": [
                paths.DATASET_OUTCOMES.format(model=found.against, dataset=d)
                for d in found.datasets
            ],
            "coverage": [
                paths.DATASET_COVERAGE.format(model=found.base, dataset=d) for d in found.datasets
            ],
            "comparison": list(comparison),
            "check": list(check),
        }

    def comparison_datasets(self, base: str, against: str) -> list[str]:
        """The data sets a comparison reads, in its inputs' order."""
        return list(self.paired_comparison(base, against).datasets)


def comparisons(
    compare: dict[str, Any] | None, models: Iterable[str], dataset_jobs
) -> list[PairedComparison]:
    """The comparisons of ``compare`` (base, against) over the configured ``models`` and the
    plan's (model, data set) jobs; a model not configured, compared with itself, or sharing
    no data set with outcomes with its base is an error naming the field."""
    if not compare:
        return []
    models = set(models)
    scored: dict[str, set[str]] = {}
    for model, dataset in dataset_jobs:
        scored.setdefault(model, set()).add(dataset)
    base = compare["base"]
    if base not in models:
        raise InputError(
            f"config: compare.base {base!r} is not a configured model (models; in an audit, "
            "only_models must list it)"
        )
    out = []
    for i, against in enumerate(compare["against"]):
        field = f"compare.against[{i}]"
        if against not in models:
            raise InputError(
                f"config: {field} {against!r} is not a configured model (models; in an audit, "
                "only_models must list it)"
            )
        if against == base:
            raise InputError(f"config: {field} is the base model {base!r} itself")
        shared = sorted(scored.get(base, set()) & scored.get(against, set()) & WITH_OUTCOMES)
        if not shared:
            raise InputError(
                f"config: {field} {against!r} and compare.base {base!r} share no data set with "
                f"per-item outcomes ({', '.join(sorted(WITH_OUTCOMES))}): list one under "
                "datasets.models for both"
            )
        out.append(PairedComparison(base, against, tuple(shared)))
    return out
