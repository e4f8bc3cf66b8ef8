"""What a configuration asks for: the (model, source, test, descriptor) jobs and their files.

Checked before any job runs, so an unknown test, template set, corpus or model source fails at
once with the config field named, instead of deep inside a job. The config must already hold
the schema's defaults (``biasbench.config.validate_config``). One module per stage, as
``rules/`` is split: the null-model control (:mod:`biasbench.plan.null`), LPBS, the data sets,
the studies, an audit's restriction, the paired comparisons; config fields to files in
:mod:`biasbench.plan.inputs`. The plan holds the configuration too: each stage's plan gives
its jobs' settings (their params) as well as their files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from biasbench import paths
from biasbench.data.wordsets import descriptors
from biasbench.errors import InputError
from biasbench.models.specs import ModelSpec, check_local_tokenizer
from biasbench.plan.audit import restrict_to_models
from biasbench.plan.comparisons import ComparisonPlan, comparisons
from biasbench.plan.core import MODEL_KEYS, Job, ZooPlan
from biasbench.plan.datasets import dataset_jobs
from biasbench.plan.inputs import corpus_parts, model_jobs, model_sources, resolve_files
from biasbench.plan.lpbs import lpbs_jobs, pceat_models
from biasbench.plan.null import NullPlan, check_model_names, null_calibration, trained_null
from biasbench.plan.studies import (
    StudyPlan,
    divdist_files,
    groundtruth_files,
    injected_files,
    template_study_files,
)

__all__ = [
    "Job",
    "Plan",
    "ZooPlan",
    "make_plan",
    "names_except",
    "names_only",
    "package_files",
    "resolve_files",
]


@dataclass(frozen=True, kw_only=True)
class Plan(NullPlan, StudyPlan, ComparisonPlan):
    """Every stage's jobs and files: the zoo's (:class:`ZooPlan`) and each stage's own plan,
    each declaring its fields and the plans it reads; the model cards' inputs and settings
    (rules/model_cards.smk), which read every stage's."""

    def model_score_files(self, model: str) -> list[str]:
        """The score rows of one model (its embedding methods, LPBS, data sets; not the
        DivDist study's, one file over all models): what its card reads as its own."""
        return [
            f
            for f in self.score_files() + self.lpbs_files() + self.dataset_score_files()
            if f.split("/")[2] == model
        ]

    def model_card_inputs(
        self, model: str, comparison: Iterable[str]
    ) -> dict[str, list[str] | str]:
        """What a model's card reads (rule model_card): its own score rows, word sets (what
        its tests compare) and prepared model, its null copies' rows where the null-model
        calibration scores it, what its data-set jobs read and scored, and ``comparison``
        (the comparison across the zoo's tables, where the run makes them)."""
        from biasbench.models.null import null_file

        pairs = dict.fromkeys((j.test, j.descriptor) for j in self.jobs if j.model == model)
        return {
            "scores": self.model_score_files(model),
            "wordsets": [paths.WORDSET.format(test=t, descriptor=d) for t, d in pairs],
            "model": paths.MODEL.format(model=model),
            "null": [null_file(model)] if model in self.null_seeds else [],
            # what the data sets' rows do not hold: items read and scored, likelihood_diff
            "coverage": [
                paths.DATASET_COVERAGE.format(model=model, dataset=d)
                for m, d in self.dataset_jobs
                if m == model
            ],
            "comparison": list(comparison),
        }

    def card_settings(self, model: str) -> dict[str, Any]:
        """The model's settings a card shows, with the paper model it stands for."""
        return self.model_params(model, (*MODEL_KEYS, "paper_model"))

    def run_settings(self, model: str) -> dict[str, Any]:
        """How the model's data sets were run, as the lm-evaluation-harness export records
        it."""
        config = self.config
        datasets = config["datasets"] or {}
        return {
            "source": config["models"][model]["source"],
            "revision": config["models"][model].get("revision"),
            "dtype": config["compute"]["dtype"]["logprobs"],
            "batch_size": datasets.get("batch"),
            "device": config["compute"]["device"],
            "limits": datasets.get("limits"),
            "files": datasets.get("files"),
            "random_seed": config["seed"],
        }


def make_plan(config: dict[str, Any], root: str | Path) -> Plan:
    """The plan of a validated config (restricted first to ``only_models``, in place)."""
    restrict_to_models(config)
    root = Path(root)
    tests = list(config["tests"])
    for test in tests:
        if not (root / "resources" / "wordsets" / f"{test}.yaml").is_file():
            raise InputError(
                f"config: tests lists {test!r} but resources/wordsets/{test}.yaml does not exist"
            )
    template_file = root / "resources" / "templates" / f"{config['template_set']}.yaml"
    if not template_file.is_file():
        raise InputError(
            f"config: template_set {config['template_set']!r}: no file {template_file}"
        )
    check_model_names(config["models"])
    specs = {name: ModelSpec.from_config(name, cfg) for name, cfg in config["models"].items()}
    for name, spec in specs.items():
        if spec.scheme == "path":
            check_local_tokenizer(name, spec.location)
    for name, spec in specs.items():  # a model built from another names a configured one
        base = spec.base
        if base is None:
            continue
        field = f"config: models.{name}.source {spec.scheme}:{spec.location}"
        if base not in specs:
            raise InputError(f"{field} names no configured model; configured: {sorted(specs)}")
        if specs[base].kind != "transformer":
            raise InputError(
                f"{field}: {base} is a {specs[base].kind} model; {spec.scheme}: "
                "builds from a transformer's architecture and tokenizer"
            )
        if spec.scheme == "quantized" and specs[base].scheme in ("random", "quantized"):
            raise InputError(
                f"{field}: {base} is a {specs[base].scheme}: model; quantized: rounds the "
                "weights of a transformer with its own weights (quantize the model it is "
                "built from)"
            )
    corpora = config["corpora"]
    parts = {name: corpus_parts(name, corpora) for name in corpora}
    natural = config["natural_source"]
    if natural is not None and natural not in corpora:
        raise InputError(f"config: natural_source {natural!r} is not under 'corpora'")
    # each word set read once, whichever models and sources run it
    available = {t: descriptors(root / "resources" / "wordsets" / f"{t}.yaml") for t in tests}
    jobs = []
    for name, cfg in config["models"].items():
        default = specs[name].default_source
        wanted = cfg["tests"] if isinstance(cfg["tests"], dict) else {default: cfg["tests"]}
        for source, entries in wanted.items():
            # a contextual model reads words alone too ("[CLS] w [SEP]": Schröder et al.)
            allowed = {default} if default == "words" else {"templates", "words", *corpora}
            if source not in allowed:
                raise InputError(
                    f"config: models.{name}.tests names the source {source!r}; a "
                    f"{specs[name].kind} model reads {sorted(allowed)}"
                )
            for test, descriptor in model_jobs(name, entries, available):
                jobs.append(Job(name, source, test, descriptor))
    lpbs = config["lpbs"] or {}
    lpbs_corpora = tuple(lpbs.get("corpora", ()))
    unknown = sorted(set(lpbs_corpora) - set(corpora))
    if unknown:
        raise InputError(f"config: lpbs.corpora names {unknown}, not under 'corpora'")
    corpus_models = pceat_models(lpbs)
    unknown = sorted(set(corpus_models) - set(lpbs.get("models", ())))
    if unknown:
        raise InputError(f"config: lpbs.corpus_models names {unknown}, not in lpbs.models")
    null = null_calibration(config, specs, available, root)
    groundtruth = config["groundtruth"] or {}
    datasets, files = dataset_jobs(
        config,
        specs,
        root,
        extra=[
            d
            for key in ("null_datasets", "null_item_designs")
            for ds in null.get(key, {}).values()
            for d in ds
        ],
    )
    plan = Plan(
        config=config,
        root=root,
        jobs=tuple(jobs),
        specs=specs,
        corpus_parts=parts,
        natural=natural,
        tests=available,
        template_set=config["template_set"],
        model_sources=model_sources(specs),
        lpbs_jobs=lpbs_jobs(config, specs, root),
        lpbs_corpora=lpbs_corpora,
        lpbs_corpus_models=corpus_models,
        lpbs_templates=lpbs.get("templates"),
        dataset_jobs=datasets,
        dataset_files=files,
        groundtruth=groundtruth_files(config, specs),
        groundtruth_model=groundtruth.get("model"),
        groundtruth_score_jobs=groundtruth.get("score_jobs", "one"),
        template_study=template_study_files(config, specs),
        injected_scores=injected_files(config),
        divdist=divdist_files(config, specs),
        **null,
        trained_draws=trained_null(config, specs, jobs),
    )
    # a comparison pairs on the contexts files the plan resolves
    found = comparisons(
        config["compare"], config["models"], datasets, plan.contexts_jobs(), plan.lpbs_sources()
    )
    return replace(plan, paired={(c.base, c.against): c for c in found})


MODEL_NAME = "[A-Za-z0-9_.+-]"


def names_except(names: list[str]) -> str:
    """A model-name wildcard pattern that matches every name but these (whole names, wherever
    the wildcard stands in a path): rules that build some models from others claim those."""
    excluded = "|".join(map(re.escape, names)) or "^$"
    return f"(?!(?:{excluded})(?!{MODEL_NAME})){MODEL_NAME}+"


def names_only(names: list[str]) -> str:
    """A model-name wildcard pattern that matches these names only (none: no name)."""
    return "|".join(map(re.escape, names)) or "^$"


def package_files(plan: Plan) -> list[str]:
    """Every file inside an installed package that the plan reads (corpora, data sets, model
    sources): what ``resources/package_files.yaml`` pins."""
    from biasbench.models.prepare import source_files

    files = [f for parts in plan.corpus_parts.values() for _cfg, fs in parts for f in fs]
    files += [
        f for roles in (plan.dataset_files or {}).values() for fs in roles.values() for f in fs
    ]
    return files + [f for spec in plan.specs.values() for f in source_files(spec)]


#: between a per-model rule's stage and its model (and source): ``score__minilm-l6__templates``
#: (a model's name may hold one underscore, never a stage's two)
GROUP_SEPARATOR = "__"


def group_rule(stage: str, *keys: str) -> str:
    """The name of the rule that runs ``stage`` for one model (and source): a rule per model,
    as the tests each computes differ between models."""
    return GROUP_SEPARATOR.join([stage, *keys])


def rule_stage(rule: str) -> str:
    """The stage a rule runs: its name, or a per-model rule's stage (:func:`group_rule`)."""
    return rule.split(GROUP_SEPARATOR, 1)[0]


def names_except_files(planned: list[str]) -> str:
    """A model-name wildcard pattern for the first field of a file template that refuses the
    planned files: ``planned`` are their paths from the model's name on, without the
    extension (``minilm-l6/templates/C1``), so a rule of files the configuration does not plan
    (a target typed by hand) claims every other one and none of a per-model rule's."""
    excluded = "|".join(map(re.escape, planned)) or "^$"
    return f"(?!(?:{excluded})\\.){MODEL_NAME}+"


def refuse(function, *names):
    """An input function of a rule of unplanned files: ``function`` of the job's wildcards
    ``names`` raises the planner's error naming the field; if it does not, the file is still
    no target of this configuration."""

    def of_job(wildcards):
        function(*(wildcards[n] for n in names))
        raise InputError(f"config.yaml: {dict(wildcards.items())} is not planned")

    return of_job
