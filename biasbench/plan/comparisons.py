"""The paired comparisons a configuration asks for (``compare:``): each model compared with its
base on the data sets both score and that write per-item outcomes, on the tests both
encoded from the same contexts file and on the LPBS and p-CEAT jobs both ran on the same
templates or contexts, checked before any job (rules/comparisons.smk)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from biasbench import paths
from biasbench.errors import InputError
from biasbench.plan.datasets import DatasetPlan
from biasbench.plan.lpbs import LpbsPlan
from biasbench.scoring.datasets import WITH_OUTCOMES


@dataclass(frozen=True)
class PairedComparison:
    base: str
    against: str
    datasets: tuple[str, ...]  # the data sets both models score with per-item outcomes
    #: (source, test, descriptors) both models encoded from the same contexts files
    tests: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    #: (corpus, test) of LPBS ("templates") and p-CEAT both ran on the same inputs
    lpbs: tuple[tuple[str, str], ...] = ()


def shared_jobs(jobs: Iterable[tuple], base: str, against: str) -> list[tuple]:
    """The keys of the jobs both models ran on the same file, in the base model's order
    (``jobs``: (model, *key, the file the job reads))."""
    files: dict[str, dict[tuple, str]] = {}
    for model, *key, read in jobs:
        files.setdefault(model, {})[tuple(key)] = read
    theirs = files.get(against, {})
    return [key for key, read in files.get(base, {}).items() if theirs.get(key) == read]


def shared_tests(test_jobs: Iterable[tuple], base: str, against: str) -> tuple:
    """The (source, test, descriptors) both models encoded from the same contexts files, in
    the base model's order (``test_jobs``: (model, source, test, descriptor, contexts file))."""
    out: dict[tuple[str, str], list[str]] = {}
    for source, test, descriptor in shared_jobs(test_jobs, base, against):
        out.setdefault((source, test), []).append(descriptor)
    return tuple((source, test, tuple(ds)) for (source, test), ds in out.items())


@dataclass(frozen=True, kw_only=True)
class ComparisonPlan(LpbsPlan, DatasetPlan):
    """The paired comparisons' files and inputs (a part of :class:`biasbench.plan.Plan`);
    each reads both models' data-set outcomes, their embeddings of the tests both ran and
    their LPBS and p-CEAT log-probabilities."""

    #: (base, against) -> its comparison, each one ``compare:`` asks for (:func:`comparisons`)
    paired: dict[tuple[str, str], PairedComparison] = field(default_factory=dict)

    def comparison_files(self) -> list[str]:
        """Each comparison's table, card, harness file and figure (targets of rule all)."""
        return [
            template.format(base=base, against=against)
            for base, against in self.paired
            for template in (
                paths.COMPARISON,
                paths.COMPARISON_CARD,
                paths.COMPARISON_LM_EVAL,
                paths.COMPARISON_FIGURE_PNG,
                paths.COMPARISON_FIGURE_PDF,
            )
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
            "base_vectors": self.comparison_vectors(found, found.base),
            "against_vectors": self.comparison_vectors(found, found.against),
            "contexts": [
                self.contexts_file(found.base, source, test, d)
                for source, test, descriptors in found.tests
                for d in descriptors
            ],
            "wordsets": [
                paths.WORDSET.format(test=test, descriptor=d)
                for _source, test, descriptors in found.tests
                for d in descriptors
            ],
            "base_logprobs": self.comparison_logprobs(found, found.base),
            "against_logprobs": self.comparison_logprobs(found, found.against),
            "lpbs_wordsets": [
                file for _corpus, test in found.lpbs for file in self.lpbs_wordsets_of(test)
            ],
            "comparison": list(comparison),
            "check": list(check),
        }

    @staticmethod
    def comparison_vectors(found: PairedComparison, model: str) -> list[str]:
        """A model's embeddings file of each test a comparison pairs on."""
        return [
            paths.EMBEDDINGS.format(model=model, source=source, test=test)
            for source, test, _descriptors in found.tests
        ]

    @staticmethod
    def comparison_logprobs(found: PairedComparison, model: str) -> list[str]:
        """A model's LPBS and p-CEAT log-probabilities of each job a comparison pairs on."""
        return [
            paths.LPBS_LOGPROBS.format(model=model, corpus=corpus, test=test)
            for corpus, test in found.lpbs
        ]

    def comparison_tests(self, base: str, against: str) -> dict[str, Any]:
        """The (source, test, descriptors) a comparison pairs on, in its inputs' order, the
        (corpus, test, descriptors) of its LPBS and p-CEAT jobs, the contexts' largest gap
        (``lpbs.max_gap``, where a p-CEAT job is paired), the two models' kinds and the
        exchange test's draws (``compare.permutations``)."""
        found = self.paired_comparison(base, against)
        on_corpus = any(corpus != "templates" for corpus, _test in found.lpbs)
        return {
            "tests": [[s, t, list(ds)] for s, t, ds in found.tests],
            "lpbs": [[c, t, self.lpbs_descriptors(t)] for c, t in found.lpbs],
            "max_gap": self.config["lpbs"]["max_gap"] if on_corpus else None,
            "kinds": [self.specs[found.base].kind, self.specs[found.against].kind],
            "permutations": self.config["compare"]["permutations"],
        }

    def comparison_datasets(self, base: str, against: str) -> list[str]:
        """The data sets a comparison reads, in its inputs' order."""
        return list(self.paired_comparison(base, against).datasets)


def comparisons(
    compare: dict[str, Any] | None, models: Iterable[str], dataset_jobs, test_jobs=(), lpbs_jobs=()
) -> list[PairedComparison]:
    """The comparisons of ``compare`` (base, against) over the configured ``models``, the
    plan's (model, data set) jobs, its embedding jobs (``test_jobs``, as :func:`shared_tests`
    reads them) and its LPBS and p-CEAT jobs (``lpbs_jobs``: (model, corpus, test, file
    read)); a model not configured, compared with itself, or sharing no data set with
    outcomes, test or LPBS job with its base is an error naming the field."""
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
        lpbs = tuple(shared_jobs(lpbs_jobs, base, against))
        if not shared and not tests and not lpbs:
            raise InputError(
                f"config: {field} {against!r} and compare.base {base!r} share no data set with "
                f"per-item outcomes ({', '.join(sorted(WITH_OUTCOMES))}), no test and no LPBS "
                "job: list one under datasets.models, a test under models.<model>.tests, or "
                "both under lpbs.models"
            )
        out.append(PairedComparison(base, against, tuple(shared), tests, lpbs))
    return out
