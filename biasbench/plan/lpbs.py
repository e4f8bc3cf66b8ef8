"""LPBS's plan (Kurita et al.'s measure as Delobelle et al. and Husse & Spitz run it): its
tests of each model on templates and corpora (computed in the model's log-probability job,
rules/logprobs.smk), word sets and templates (rules/lpbs.smk)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biasbench import paths
from biasbench.config import read_yaml
from biasbench.errors import InputError
from biasbench.models.specs import ModelSpec, check_known_model
from biasbench.plan.core import ZooPlan


@dataclass(frozen=True, kw_only=True)
class LpbsPlan(ZooPlan):
    """LPBS's jobs and files (a part of :class:`biasbench.plan.Plan`)."""

    lpbs_jobs: tuple[tuple[str, str], ...] = ()  # (model, test) of LPBS
    lpbs_corpora: tuple[str, ...] = ()  # corpora of probability-based CEAT
    lpbs_corpus_models: tuple[str, ...] = ()  # the models that run it
    lpbs_templates: str | None = None  # LPBS's double-slot templates' set (``lpbs.templates``)

    @property
    def lpbs_template_file(self) -> str:
        """LPBS's double-slot templates (no file when ``lpbs`` is null: no LPBS job reads it)."""
        return f"resources/templates/{self.lpbs_templates}.yaml"

    def pairs_file(self, model: str, corpus: str) -> str:
        """The LPBS contexts of a corpus under the model's case policy."""
        return paths.PAIRS.format(corpus=corpus, case=self.specs[model].case)

    @property
    def lpbs_tests(self) -> list[str]:
        """The tests every LPBS model runs (one per-model job computes them all)."""
        return list(dict.fromkeys(t for _m, t in self.lpbs_jobs))

    def lpbs_test_inputs(self, model: str, corpus: str, test: str) -> dict[str, list[str]]:
        """What one test of LPBS (``corpus`` "templates") or p-CEAT reads, by role, in the
        order its rows' signature hashes them."""
        wordsets = self.lpbs_wordsets_of(test)
        model_file = [paths.MODEL.format(model=model)]
        if corpus == "templates":
            return {
                "spec": [paths.LPBS_SPEC.format(test=test)],
                "wordsets": wordsets,
                "templates": [self.lpbs_template_file],
                "external": self.lpbs_template_externals(),
                "model": model_file,
            }
        return {
            "pairs": [self.pairs_file(model, corpus)],
            "wordsets": wordsets,
            "model": model_file,
        }

    def lpbs_model_tests(self, model: str, corpora: list[str]) -> dict[str, dict[str, list[str]]]:
        """ "<corpus>/<test>" -> what it reads by role, for every test of a per-model LPBS job
        (``corpora``: ["templates"], or p-CEAT's corpora), corpus by corpus."""
        return {
            f"{c}/{t}": self.lpbs_test_inputs(model, c, t) for c in corpora for t in self.lpbs_tests
        }

    def lpbs_template_tests(self, model: str) -> dict[str, dict[str, list[str]]]:
        """LPBS on templates in the model's log-probability job: :meth:`lpbs_model_tests` on
        "templates", none where the model runs no LPBS."""
        return self.lpbs_model_tests(model, ["templates"]) if self.runs_lpbs(model) else {}

    def pceat_tests(self, model: str) -> dict[str, dict[str, list[str]]]:
        """p-CEAT in the model's log-probability job: :meth:`lpbs_model_tests` on its corpora,
        none where the model runs no p-CEAT."""
        runs = self.runs_lpbs(model) and model in self.lpbs_corpus_models
        return self.lpbs_model_tests(model, list(self.lpbs_corpora)) if runs else {}

    @staticmethod
    def lpbs_outputs(template: str, tests) -> list[str]:
        """One file of ``template`` per "<corpus>/<test>" of ``tests`` (a model's LPBS or
        p-CEAT tests, in order), ``{model}`` left a wildcard: an output of the model's
        log-probability job."""
        return [
            paths.fill(template, corpus=corpus, test=test)
            for corpus, _, test in (key.partition("/") for key in tests)
        ]

    def planned_lpbs(self, model: str, corpus: str, test: str) -> None:
        """An LPBS or p-CEAT file of a model on ``corpus`` ("templates" or a corpus), or the
        error naming the field: the model, the test, the corpus not planned."""
        if not self.runs_lpbs(model):
            check_known_model(model, self.specs)
            planned = ", ".join(dict.fromkeys(m for m, _t in self.lpbs_jobs)) or "none"
            raise InputError(
                f"config.yaml: model {model!r} runs no LPBS (lpbs.models; planned: {planned})"
            )
        if test not in self.lpbs_tests:
            raise InputError(
                f"config.yaml: LPBS runs no test {test!r} "
                f"(lpbs.tests; planned: {', '.join(self.lpbs_tests)})"
            )
        if corpus != "templates" and model not in self.lpbs_corpus_models:
            planned = ", ".join(self.lpbs_corpus_models) or "none"
            raise InputError(
                f"config.yaml: model {model!r} runs no p-CEAT "
                f"(lpbs.corpus_models; planned: {planned})"
            )
        if corpus != "templates" and corpus not in self.lpbs_corpora:
            raise InputError(
                f"config.yaml: p-CEAT runs on no corpus {corpus!r} "
                f"(lpbs.corpora; planned: {', '.join(self.lpbs_corpora) or 'none'})"
            )

    def runs_lpbs(self, model: str) -> bool:
        """Whether the model runs LPBS on any test."""
        return any(m == model for m, _t in self.lpbs_jobs)

    def lpbs_files(self) -> list[str]:
        """Score rows of LPBS: templates and, per corpus, probability-based CEAT."""
        return [
            paths.LPBS.format(model=m, corpus=s, test=t)
            for m, t in self.lpbs_jobs
            for s in ["templates", *(self.lpbs_corpora if m in self.lpbs_corpus_models else [])]
        ]

    def lpbs_sources(self) -> list[tuple[str, str, str, str]]:
        """(model, corpus, test, what it reads: the templates or the corpus' pair contexts)
        of every LPBS and p-CEAT job: what a paired comparison pairs on."""
        return [
            (m, s, t, self.lpbs_template_file if s == "templates" else self.pairs_file(m, s))
            for m, t in self.lpbs_jobs
            for s in ["templates", *(self.lpbs_corpora if m in self.lpbs_corpus_models else [])]
        ]

    def lpbs_wordset_files(self) -> list[str]:
        tests = dict.fromkeys(t for _m, t in self.lpbs_jobs)
        return [
            paths.WORDSET.format(test=t, descriptor=d)
            for t in tests
            for d in self.lpbs_descriptors(t)
        ]

    def lpbs_wordsets_of(self, test: str) -> list[str]:
        """The word set of each descriptor LPBS reads of a test (rule lpbs_spec's)."""
        return [paths.WORDSET.format(test=test, descriptor=d) for d in self.lpbs_descriptors(test)]

    def lpbs_template_externals(self) -> list[str]:
        """The upstream files LPBS's templates are drawn from."""
        return self.external_files(self.lpbs_template_file)

    def lpbs_descriptors(self, test: str) -> list[str]:
        """Target descriptors a test runs LPBS on (those its ``lpbs.templates`` names)."""
        return list(self._lpbs_section(test)["templates"])

    def lpbs_has_adjectives(self, test: str) -> bool:
        """Whether a test's LPBS attributes have adjective forms (the ``+adjective`` rows)."""
        return "adjectives" in self._lpbs_section(test)

    def _lpbs_section(self, test: str) -> dict:
        return read_yaml(self.root / "resources" / "wordsets" / f"{test}.yaml")["lpbs"]


def pceat_models(lpbs: dict[str, Any]) -> tuple[str, ...]:
    """The models that run p-CEAT (an ``lpbs`` section): ``corpus_models``, or every LPBS
    model where it is unset."""
    chosen = lpbs.get("corpus_models")
    return tuple(lpbs.get("models", ()) if chosen is None else chosen)


def lpbs_jobs(
    config: dict[str, Any], specs: dict[str, ModelSpec], root: Path
) -> tuple[tuple[str, str], ...]:
    lpbs = config["lpbs"]
    if not lpbs:
        return ()
    for model in lpbs["models"]:
        if model not in specs or specs[model].kind != "transformer":
            raise InputError(
                f"config: lpbs.models names {model!r}, not a transformer under 'models'"
            )
    for test in lpbs["tests"]:
        path = root / "resources" / "wordsets" / f"{test}.yaml"
        if test not in config["tests"] or "lpbs" not in read_yaml(path):
            raise InputError(
                f"config: lpbs.tests names {test!r}: not in 'tests' or {path} has no 'lpbs' section"
            )
    template_file = root / "resources" / "templates" / f"{lpbs['templates']}.yaml"
    if not template_file.is_file():
        raise InputError(f"config: lpbs.templates {lpbs['templates']!r}: no file {template_file}")
    return tuple((m, t) for m in lpbs["models"] for t in lpbs["tests"])
