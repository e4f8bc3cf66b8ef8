"""The paired comparisons a configuration asks for (``compare:``): each model compared with its
base on the data sets both score and that write per-item outcomes, and on the tests both
encoded from the same contexts file, checked before any job."""

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
    #: (source, test, descriptors) both models encoded from the same contexts files
    tests: tuple[tuple[str, str, tuple[str, ...]], ...] = ()


def shared_tests(test_jobs: Iterable[tuple], base: str, against: str) -> tuple:
    """The (source, test, descriptors) both models encoded from the same contexts files, in
    the base model's order (``test_jobs``: (model, source, test, descriptor, contexts file))."""
    files: dict[str, dict[tuple, str]] = {}
    for model, source, test, descriptor, contexts in test_jobs:
        files.setdefault(model, {})[(source, test, descriptor)] = contexts
    mine, theirs = files.get(base, {}), files.get(against, {})
    out: dict[tuple[str, str], list[str]] = {}
    for key, contexts in mine.items():
        if theirs.get(key) == contexts:
            out.setdefault(key[:2], []).append(key[2])
    return tuple((source, test, tuple(ds)) for (source, test), ds in out.items())


def comparisons(
    compare: dict[str, Any] | None, models: Iterable[str], dataset_jobs, test_jobs=()
) -> list[PairedComparison]:
    """The comparisons of ``compare`` (base, against) over the configured ``models``, the
    plan's (model, data set) jobs and its embedding jobs (``test_jobs``, as
    :func:`shared_tests` reads them); a model not configured, compared with itself, or sharing
    neither a data set with outcomes nor a test with its base is an error naming the field."""
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
        tests = shared_tests(test_jobs, base, against)
        if not shared and not tests:
            raise InputError(
                f"config: {field} {against!r} and compare.base {base!r} share no data set with "
                f"per-item outcomes ({', '.join(sorted(WITH_OUTCOMES))}) and no test: list one "
                "under datasets.models, or a test under models.<model>.tests, for both"
            )
        out.append(PairedComparison(base, against, tuple(shared), tests))
    return out
