"""An audit (``only_models``): the configuration restricted to the audited models, each
running every family that applies to it with its null copies."""

from __future__ import annotations

from typing import Any

from biasbench.errors import InputError
from biasbench.models.load import is_language_model
from biasbench.models.specs import ModelSpec
from biasbench.paths import ALL_SCORES, AUDIT_PROVENANCE_PAGE, AUDIT_SCORES, PROVENANCE_PAGE
from biasbench.plan.lpbs import pceat_models

#: the sections that compare models (studies, calibration): run in an audit (``only_models``)
#: only where they name an audited model, with the other models dropped from them
_ZOO_SECTIONS = {
    "null_calibration": ("models",),
    "delobelle": ("sensitivity_models", "kl_models"),
    "bommasani": ("static_models", "contextual_models"),
}


def restrict_to_models(config: dict[str, Any]) -> None:
    """``only_models``: measure these models and no other (an audit), with ``config`` changed
    in place, so that the plan and every rule reading the config see the same models.

    Every other model leaves ``models`` and every model list (``lpbs``, ``datasets``, the
    studies'); a model an audited one is built from (``mlm-head:``, ``random:``,
    ``quantized:``) stays, running no test. An audited model runs every family that applies
    to it, with its null copies (:func:`_audit_every_family`). A study or calibration that
    names no audited model (the ground-truth study, the template study, DivDist) becomes null:
    not run. A second call changes nothing. Null ``only_models``: every configured model
    runs."""
    only = config.get("only_models")
    if only is None:
        return
    models = config["models"]
    for name in only:
        if name not in models:
            raise InputError(
                f"config: only_models names {name!r}, not a configured model (models; "
                f"configured: {', '.join(models)})"
            )
    kept = {name: models[name] for name in only}
    todo = list(only)
    while todo:  # the models the audited ones are built from, recursively: prepared, unscored
        base = _built_from(models[todo.pop()])
        if base in models and base not in kept:
            kept[base] = {**models[base], "tests": []}
            todo.append(base)
    config["models"] = kept
    _audit_every_family(config, only)
    wanted = set(only)
    lpbs = config.get("lpbs")
    if lpbs:
        lpbs["models"] = [m for m in lpbs["models"] if m in wanted]
        if lpbs.get("corpus_models") is not None:
            lpbs["corpus_models"] = [m for m in lpbs["corpus_models"] if m in wanted]
    if config.get("datasets"):
        config["datasets"]["models"] = {
            m: d for m, d in config["datasets"]["models"].items() if m in wanted
        }
    if config.get("groundtruth") and config["groundtruth"]["model"] not in wanted:
        config["groundtruth"] = None
    trained = (config.get("null_calibration") or {}).get("trained")
    if trained:  # the trained-weight null of the audited models the configuration lists
        kept_trained = [m for m in trained["models"] if m in wanted]
        config["null_calibration"]["trained"] = (
            {**trained, "models": kept_trained} if kept_trained else None
        )
    for section, fields in _ZOO_SECTIONS.items():
        study = config.get(section)
        if not study:
            continue
        for field in fields:
            chosen = study[field]
            study[field] = (
                {m: v for m, v in chosen.items() if m in wanted}
                if isinstance(chosen, dict)
                else [m for m in chosen if m in wanted]
            )
        if not any(study[field] for field in fields):
            config[section] = None
    bommasani = config.get("bommasani")
    if bommasani and bommasani["generation"] and bommasani["generation"]["model"] not in wanted:
        bommasani["generation"] = None
    _keep_lexicon(config, models)


def _built_from(entry: dict[str, Any]) -> str | None:
    """The model a model entry is built from (``mlm-head:``, ``random:``, ``quantized:``), from
    its source alone (the entry is not validated yet), else None."""
    scheme, _, location = str(entry.get("source", "")).partition(":")
    if scheme == "quantized":
        return location.rpartition(":")[0]
    return location if scheme in ("mlm-head", "random") else None


def _keep_lexicon(config: dict[str, Any], models: dict[str, Any]) -> None:
    """The generated designs' lexicon (``null_calibration.lexicon``), where an audited model
    keeps its designs: prepared, unscored, as a model an audited one is built from."""
    null = config.get("null_calibration") or {}
    lexicon = null.get("lexicon")
    if lexicon is None or lexicon in config["models"] or lexicon not in models:
        return
    entries = [e if isinstance(e, dict) else {} for e in null.get("models", {}).values()]
    if any(e.get("designs", null.get("designs", 0)) for e in entries):
        config["models"][lexicon] = {**models[lexicon], "tests": []}


def _audit_every_family(config: dict[str, Any], only: list[str]) -> None:
    """An audited model runs every method family that applies to it: a language model (known
    before any job: :func:`is_language_model`) joins LPBS and every data set where the
    configuration does not list it, and a model with its own weights gets the null-model
    control of its architecture (``null_calibration.audit``, per kind) where
    ``null_calibration.models`` does not list it; its copies run p-CEAT only where the model
    does (``lpbs.corpus_models``)."""
    models = config["models"]
    lpbs, datasets, null = (
        config.get("lpbs"),
        config.get("datasets"),
        config.get("null_calibration"),
    )
    for name in only:
        spec = ModelSpec.from_config(name, models[name])
        built = spec  # a quantized copy has its base's head
        if spec.scheme == "quantized" and spec.base in models and spec.base != name:
            built = ModelSpec.from_config(spec.base, models[spec.base])
        language_model = spec.kind == "transformer" and is_language_model(built)
        if language_model and lpbs and name not in lpbs["models"]:
            lpbs["models"] = [*lpbs["models"], name]
        if language_model and datasets and name not in datasets["models"]:
            datasets["models"] = {**datasets["models"], name: "all"}
        copies = (null or {}).get("audit") or {}
        # a built model's architecture is its base's: so are its null copies
        own_weights = spec.scheme not in ("mlm-head", "random", "quantized")
        if own_weights and spec.kind in copies and name not in null["models"]:
            entry = copies[spec.kind]
            entry = dict(entry) if isinstance(entry, dict) else {"seeds": entry}
            entry.setdefault("designs", 0)  # the zoo's generated designs rate the methods
            # the copies read the tests the model runs (of the entry's, where it names some)
            runs = _tests_run(models[name]["tests"], config["tests"])
            named = entry.get("tests", "all")
            entry["tests"] = [
                t for t in (runs if named == "all" else named) if t.partition("/")[0] in runs
            ]
            if not language_model:  # its copies' probabilities would stand beside no score
                entry |= {"lpbs_tests": [], "datasets": {}}
            elif lpbs and name not in pceat_models(lpbs):
                entry.setdefault("corpora", [])  # p-CEAT on its copies only beside its own
            if entry["tests"] or entry.get("lpbs_tests", null["lpbs_tests"]):
                null["models"] = {**null["models"], name: entry}


def _tests_run(tests: Any, configured: list[str]) -> list[str]:
    """The tests a model entry's ``tests`` runs on any context source, in configured order."""
    lists = tests.values() if isinstance(tests, dict) else [tests]
    named = set()
    for chosen in lists:
        named |= set(configured) if chosen == "all" else {t.partition("/")[0] for t in chosen}
    return [t for t in configured if t in named]


def run_files(only: list[str] | None) -> tuple[str, str]:
    """(collected scores, provenance page) of a run: a default run's, or an audit's named by
    the models it measures, so audits in one checkout accumulate beside each other and beside
    a default run, and each model's card points to its own."""
    if only is None:
        return ALL_SCORES, PROVENANCE_PAGE
    name = ",".join(only)
    return AUDIT_SCORES.format(name=name), AUDIT_PROVENANCE_PAGE.format(name=name)
