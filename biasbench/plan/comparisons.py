"""The paired comparisons a configuration asks for (``compare:``): each model compared with its
base on the data sets both score and that write per-item outcomes, checked before any job."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from biasbench.errors import InputError
from biasbench.scoring.datasets import WITH_OUTCOMES


@dataclass(frozen=True)
class PairedComparison:
    base: str
    against: str
    datasets: tuple[str, ...]  # the data sets both models score with per-item outcomes


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
