"""The null-model control's plan (``null_calibration``): each base model's seeded copies, the
tests, LPBS tests and data sets they score, and the word pieces of their stimuli under each
base tokenizer (rules/null_calibration.smk, rules/tokenization.smk)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biasbench import nulls, paths
from biasbench.errors import InputError
from biasbench.models.specs import ModelSpec, check_known_model
from biasbench.plan.datasets import DatasetPlan
from biasbench.plan.inputs import model_jobs
from biasbench.plan.lpbs import LpbsPlan


@dataclass(frozen=True, kw_only=True)
class NullPlan(LpbsPlan, DatasetPlan):
    """The null-model control's files and inputs (a part of :class:`biasbench.plan.Plan`);
    its copies run LPBS tests, probability-based CEAT on their pairs and data sets."""

    #: the null-model calibration (``null_calibration``), per base model: its seeded copies,
    #: the (test, descriptor) pairs each copy scores, the tests it runs LPBS on (templates),
    #: the data sets it scores (data set -> item limit), p-CEAT's corpora, generated designs
    null_seeds: dict[str, int] = field(default_factory=dict)
    null_tests: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    null_lpbs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    null_datasets: dict[str, dict[str, int | None]] = field(default_factory=dict)
    null_corpora: dict[str, tuple[str, ...]] = field(default_factory=dict)
    null_designs: dict[str, int] = field(default_factory=dict)
    #: data set -> {designs, items}: disjoint item samples, each on a copy of its own
    null_item_designs: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    #: how many of the generated designs also run LPBS (a transformer's)
    null_lpbs_designs: dict[str, int] = field(default_factory=dict)
    #: the static model whose vocabulary the generated designs draw from (``lexicon``)
    null_lexicon: str | None = None
    #: the trained-weight null, per kind (its key, ``null_calibration.<key>``): model -> its
    #: draws (:mod:`biasbench.nulls`)
    trained_draws: dict[str, dict[str, int]] = field(default_factory=dict)

    def null_files(self) -> list[str]:
        """The score rows of the null-model calibration, one file per base model."""
        from biasbench.models.null import null_file

        return [null_file(m) for m in self.null_seeds]

    def null_copies(self) -> list[str]:
        """The model names of every null copy the calibration scores."""
        from biasbench.models.null import copy_names, design_copy_names, item_copy_names

        return [
            n
            for m, seeds in self.null_seeds.items()
            for n in [
                *copy_names(m, seeds),
                *design_copy_names(m, self.null_designs.get(m, 0)),
                *item_copy_names(m, self.null_item_design_count(m)),
            ]
        ]

    def null_seeds_of(self, model: str) -> int:
        """How many seeded copies of a base model the null-model calibration scores; another
        model is an error naming the field."""
        if model not in self.null_seeds:
            check_known_model(model, self.specs)
            raise InputError(
                f"config.yaml: the null-model calibration has no model {model!r} "
                f"(null_calibration.models; planned: {', '.join(self.null_seeds) or 'none'})"
            )
        return self.null_seeds[model]

    def null_copy_names(self, model: str) -> list[str]:
        """The names of a model's seeded null copies (none where the calibration does not
        score it)."""
        from biasbench.models.null import copy_names

        return copy_names(model, self.null_seeds[model]) if model in self.null_seeds else []

    def null_source(self, model: str) -> str:
        """Where a base model's copies read the tests: words alone (static), templates."""
        self.null_seeds_of(model)
        return self.specs[model].default_source

    def null_test_files(self, model: str) -> dict[str, dict[str, list[str]]]:
        """Test -> descriptor -> [contexts file, word-set file] of a base model's copies."""
        return self._test_files(model, self.null_source(model), self.null_tests[model])

    def _test_files(self, model: str, source: str, pairs) -> dict[str, dict[str, list[str]]]:
        """Test -> descriptor -> [contexts file, word-set file] of (test, descriptor) pairs."""
        out: dict[str, dict[str, list[str]]] = {}
        for test, descriptor in pairs:
            out.setdefault(test, {})[descriptor] = [
                self.contexts_file(model, source, test, descriptor),
                paths.WORDSET.format(test=test, descriptor=descriptor),
            ]
        return out

    def null_lpbs_of(self, model: str) -> dict[str, list[str]]:
        """Test -> the LPBS word-set files of a base model's copies (a transformer's)."""
        self.null_seeds_of(model)
        return {
            t: [paths.WORDSET.format(test=t, descriptor=d) for d in self.lpbs_descriptors(t)]
            for t in self.null_lpbs[model]
        }

    def null_pairs_of(self, model: str) -> dict[str, str]:
        """Corpus -> the pair contexts a base model's copies run probability-based CEAT on
        (the LPBS tests' pairs, under the base model's case policy)."""
        self.null_seeds_of(model)
        return {c: self.pairs_file(model, c) for c in self.null_corpora[model]}

    def null_bases(self) -> dict[str, str]:
        """Each null model (a ``random:`` model, a calibration copy) -> the model whose
        architecture and tokenizer it has (the base)."""
        from biasbench.models.null import copy_names, design_copy_names, item_copy_names

        bases = {n: s.location for n, s in self.specs.items() if s.scheme == "random"}
        for base, seeds in self.null_seeds.items():
            designs = design_copy_names(base, self.null_designs.get(base, 0))
            items = item_copy_names(base, self.null_item_design_count(base))
            bases |= dict.fromkeys([*copy_names(base, seeds), *designs, *items], base)
        return bases

    def null_item_design_count(self, model: str) -> int:
        """How many data-set item designs a base model's copies score, over its data sets."""
        return sum(d["designs"] for d in self.null_item_designs.get(model, {}).values())

    def tokenization_bases(self) -> list[str]:
        """The transformers whose tokenizer null models encode with: the bases of the
        ``random:`` models and the calibration's transformer models, in config order."""
        bases = set(self.null_bases().values())
        return [m for m in self.specs if m in bases and self.specs[m].kind == "transformer"]

    def tokenization_files(self) -> list[str]:
        """The piece counts of the null models' stimuli, one file per base transformer."""
        from biasbench.models.word_pieces import tokenization_file

        return [tokenization_file(m) for m in self.tokenization_bases()]

    def tokenization_tests(self, model: str) -> dict[str, dict[str, str]]:
        """Test -> descriptor -> template contexts file of every (test, descriptor) a base
        transformer's null models encode (its calibration copies' and its ``random:`` models'
        jobs); another model is an error naming why."""
        if model not in self.tokenization_bases():
            check_known_model(model, self.specs)
            raise InputError(
                f"config.yaml: no null model has the tokenizer of {model!r} (models.*.source "
                f"random:<model>, null_calibration.models; with one: "
                f"{', '.join(self.tokenization_bases()) or 'none'})"
            )
        pairs = list(self.null_tests.get(model, ()))
        randoms = {n for n, s in self.specs.items() if s.scheme == "random" and s.location == model}
        pairs += [(j.test, j.descriptor) for j in self.jobs if j.model in randoms]
        out: dict[str, dict[str, str]] = {}
        for test, descriptor in dict.fromkeys(pairs):
            out.setdefault(test, {})[descriptor] = self.contexts_file(
                model, "templates", test, descriptor
            )
        return out

    def trained_files(self, key: str | None = None) -> list[str]:
        """The score rows of the trained-weight null, one file per (kind, trained model); of
        the kind ``key`` alone where given."""
        return [
            nulls.trained_null_kind(k).scores_file(m)
            for k, models in self.trained_draws.items()
            if key in (None, k)
            for m in models
        ]

    def trained_bases(self) -> dict[str, str]:
        """Each draw of every trained-weight null kind -> the model whose vectors it reads."""
        return {
            n: m
            for k, models in self.trained_draws.items()
            for m, draws in models.items()
            for n in nulls.trained_null_kind(k).draw_names(m, draws)
        }

    def trained_draws_of(self, model: str, key: str) -> int:
        """The draws of a trained model of the trained-weight null kind ``key``; a model the
        kind's section does not name is an error naming the field."""
        models = self.trained_draws.get(key, {})
        if model not in models:
            check_known_model(model, self.specs)
            raise InputError(
                f"config.yaml: the trained-weight null has no model {model!r} "
                f"(null_calibration.{key}.models; planned: {', '.join(models) or 'none'})"
            )
        return models[model]

    def trained_source(self, model: str, key: str) -> str:
        """Where a trained model's draws of the kind ``key`` read its vectors: the source its
        tests run on by default (words alone for static vectors, templates for a
        transformer)."""
        self.trained_draws_of(model, key)
        return self.specs[model].default_source

    def trained_tests(self, model: str, key: str) -> dict[str, dict[str, list[str]]]:
        """Test -> descriptor -> [contexts file, word-set file] of a trained model's draws of
        the kind ``key``: every test the model runs on its source (the embeddings files it
        has)."""
        source = self.trained_source(model, key)
        mine = [(j.test, j.descriptor) for j in self.jobs if (j.model, j.source) == (model, source)]
        return self._test_files(model, source, mine)

    def null_calibration_inputs(self, model: str) -> dict[str, list[str] | str]:
        """What a base model's null copies read (rule null_calibration): the model (its
        architecture and tokenizer, or its vectors' norms), each test's contexts and word sets,
        the LPBS settings, word sets and templates, the pair contexts of p-CEAT, the data
        sets' files, the word sets of the generated designs' pool. A model the section does
        not name fails naming it."""
        tests = self.null_test_files(model)
        lpbs = self.null_lpbs_of(model)
        datasets = self.null_datasets_of(model) | self.null_item_designs_of(model)
        inputs: dict[str, list[str] | str] = {
            "model": paths.MODEL.format(model=model),
            "pairs": list(self.null_pairs_of(model).values()),
            "tests": [f for ds in tests.values() for pair in ds.values() for f in pair],
            "lpbs": [f for files in lpbs.values() for f in files]
            + [paths.LPBS_SPEC.format(test=t) for t in lpbs],
            "datasets": [
                f for d in datasets.values() for files in d["files"].values() for f in files
            ],
            # the generated designs' lexicon: a static model's vocabulary
            "pool": self.null_pool_files(model),
        }
        if lpbs or self.null_lpbs_designs_of(model):
            inputs["templates"] = self.lpbs_template_file
            inputs["external"] = self.lpbs_template_externals()
        return inputs

    def trained_null_inputs(self, model: str, key: str) -> dict[str, list[str]]:
        """What a trained model's draws of a trained-weight null kind read (rule
        null_trained): its embeddings file of each test on its source, each descriptor's
        contexts and word set. A model the kind's section does not name fails naming it."""
        source = self.trained_source(model, key)
        tests = self.trained_tests(model, key)
        return {
            "embeddings": [
                paths.EMBEDDINGS.format(model=model, source=source, test=t) for t in tests
            ],
            "tests": [f for ds in tests.values() for pair in ds.values() for f in pair],
        }

    def tokenization_context_files(self, model: str) -> list[str]:
        """The contexts files of every test whose stimuli a base transformer's null models
        split into pieces (rule tokenization)."""
        tests = self.tokenization_tests(model)
        return [f for descriptors in tests.values() for f in descriptors.values()]

    def null_designs_of(self, model: str) -> int:
        """The generated null designs of a base model (:mod:`biasbench.studies.generated`)."""
        self.null_seeds_of(model)
        return self.null_designs.get(model, 0)

    def null_lpbs_designs_of(self, model: str) -> int:
        """How many of a base model's generated designs also run LPBS."""
        self.null_seeds_of(model)
        return self.null_lpbs_designs.get(model, 0)

    def null_pool_files(self, model: str) -> list[str]:
        """The prepared lexicon model a base model's generated designs are drawn from (none
        without designs)."""
        if not self.null_designs_of(model) or self.null_lexicon is None:
            return []
        return [paths.MODEL.format(model=self.null_lexicon)]

    def null_lexicon_params(self, model: str) -> dict[str, Any] | None:
        """The settings of the static model whose vocabulary is a base model's generated
        designs' lexicon (None without generated designs)."""
        if not self.null_pool_files(model):
            return None
        return {"name": self.null_lexicon, **self.model_params(self.null_lexicon)}

    def null_datasets_of(self, model: str) -> dict[str, dict]:
        """Data set -> {limit, files by role} of a base model's copies (a transformer's)."""
        self.null_seeds_of(model)
        return {
            d: {"limit": limit, "files": self.dataset_files[d]}
            for d, limit in self.null_datasets[model].items()
        }

    def null_item_designs_of(self, model: str) -> dict[str, dict]:
        """Data set -> {designs, items per design, files by role, the config field} of a base
        model's data-set item designs (:func:`biasbench.data.datasets.disjoint_samples`)."""
        self.null_seeds_of(model)
        entry = self.config["null_calibration"]["models"][model]
        own = isinstance(entry, dict) and "item_designs" in entry
        where = f"null_calibration{'.models.' + model if own else ''}.item_designs"
        return {
            d: {**design, "files": self.dataset_files[d], "field": f"config: {where}.{d}"}
            for d, design in self.null_item_designs[model].items()
        }

    def null_dataset_batch(self, model: str) -> int | None:
        """The data sets' batch size where a base model's copies run any (else None)."""
        wanted = self.null_datasets_of(model) or self.null_item_designs_of(model)
        return self.config["datasets"]["batch"] if wanted else None


#: model names the workflow's own files take (results/scores/<model>/ beside them): the null
#: copies' rows (results/scores/null/), an audit's (results/scores/audit/), the tidy scores
RESERVED_NAMES = {
    "null": "results/scores/null/ holds the null-model calibration's rows",
    "audit": "results/scores/audit/ holds the audits' rows",
    "all.tsv": "results/scores/all.tsv is the tidy scores of every model",
}


def check_model_names(names) -> None:
    """A configured model's name is none of :data:`RESERVED_NAMES` and not the name of a
    configured model's null copy (``<model>-null-s<i>``) or draw of a trained-weight null
    (``<model>-reassigned-r<i>``, :mod:`biasbench.nulls`): its rows would be
    read as the copy's (the null control's tables pick those by name), or its files would be
    written where the copies' are."""
    names = list(names)
    copies = [
        (r"(.+)-null-[sgi]\d+", "a seeded null copy of {} (null_calibration)"),
        *(  # each trained-weight null kind's draws
            (k.draw_pattern, f"a {k.infix} draw of {{}} (null_calibration.{k.key})")
            for k in nulls.TRAINED_NULLS
        ),
    ]
    for name in names:
        field = f"config: models.{name}"
        if name in RESERVED_NAMES:
            raise InputError(
                f"{field}: the name {name!r} is reserved ({RESERVED_NAMES[name]}): rename the model"
            )
        for pattern, what in copies:
            match = re.fullmatch(pattern, name)
            if match and match.group(1) in names:
                raise InputError(
                    f"{field}: the name is that of {what.format(repr(match.group(1)))}, whose "
                    "rows the null-model control reads by name: rename the model"
                )


def with_own_weights(specs: dict[str, ModelSpec], model: str, field: str) -> ModelSpec:
    """The spec of a model the null control builds from: a configured static or transformer
    model with its own weights (not a ``random:`` one), else an error naming ``field``."""
    spec = specs.get(model)
    if spec is None or spec.kind not in ("static", "transformer") or spec.scheme == "random":
        raise InputError(
            f"{field}: not a configured static or transformer model with its own weights"
        )
    return spec


def trained_null(
    config: dict[str, Any], specs: dict[str, ModelSpec], jobs
) -> dict[str, dict[str, int]]:
    """The trained-weight null, per kind configured (its key: its section
    ``null_calibration.<key>``): model -> its draws, each model checked to have its own
    weights and tests on its default source; {} when none is configured."""
    out: dict[str, dict[str, int]] = {}
    for kind in nulls.TRAINED_NULLS:
        section = (config.get("null_calibration") or {}).get(kind.key)
        if not section:
            continue
        out[kind.key] = {}
        for model in section["models"]:
            field = f"config: null_calibration.{kind.key}.models names {model!r}"
            spec = with_own_weights(specs, model, field)
            source = spec.default_source
            if not any((j.model, j.source) == (model, source) for j in jobs):
                raise InputError(f"{field}: it runs no test on {source} (models.{model}.tests)")
            out[kind.key][model] = section["draws"]
    return out


def null_calibration(
    config: dict[str, Any],
    specs: dict[str, ModelSpec],
    available: dict[str, list[str]],
    root: Path,
) -> dict[str, dict[str, Any]]:
    """The null-model calibration per base model, as :class:`NullPlan`'s fields by name: its
    seeds, (test, descriptor) pairs, LPBS tests, the corpora of their probability-based CEAT,
    data sets with their limits (a model's own entries, else the section's) and generated
    designs, checked (against the lexicon they draw from); {} when the section
    is null."""
    from biasbench.data.datasets import DATASETS
    from biasbench.data.designs import check_designs

    section = config.get("null_calibration")
    if not section:
        return {}
    lpbs_tests = (config["lpbs"] or {}).get("tests", ())
    keys = ("seeds", "tests", "lpbs_tests", "datasets", "corpora", "designs", "item_designs")
    keys += ("lpbs_designs",)
    seeds, tests, lpbs, datasets, corpora, designs, item_designs, lpbs_designs = ({} for _ in keys)
    lexicon = section.get("lexicon")
    for model, entry in section["models"].items():
        field = f"config: null_calibration.models.{model}"
        spec = with_own_weights(specs, model, field)
        own = entry if isinstance(entry, dict) else {"seeds": entry}
        chosen = {k: own.get(k, section[k]) for k in keys[1:]}
        where = {k: f"null_calibration{'.models.' + model if k in own else ''}.{k}" for k in chosen}
        seeds[model] = own["seeds"]
        tests[model] = tuple(model_jobs("", chosen["tests"], available, where["tests"]))
        for test in chosen["lpbs_tests"]:
            if test not in lpbs_tests:
                raise InputError(f"config: {where['lpbs_tests']} names {test!r}, not in lpbs.tests")
        for corpus in chosen["corpora"]:
            if corpus not in (config["lpbs"] or {}).get("corpora", ()):
                raise InputError(
                    f"config: {where['corpora']} names {corpus!r}, not in lpbs.corpora"
                )
        for key in ("datasets", "item_designs"):
            if chosen[key] and not config["datasets"]:
                raise InputError(f"config: {where[key]} needs the datasets section (its files)")
        for dataset in chosen["item_designs"]:
            if not DATASETS[dataset].sampled:
                raise InputError(
                    f"config: {where['item_designs']}.{dataset}: this data set is not sampled "
                    "(its items are not independent units to split)"
                )
        for dataset, limit in chosen["datasets"].items():
            if limit is not None and not DATASETS[dataset].sampled:
                raise InputError(
                    f"config: {where['datasets']}.{dataset}: this data set is not sampled (null)"
                )
        static = spec.kind == "static"  # reads no LPBS templates, runs no data set
        lpbs[model] = () if static else tuple(chosen["lpbs_tests"])
        datasets[model] = {} if static else dict(chosen["datasets"])
        item_designs[model] = {} if static else dict(chosen["item_designs"])
        has_lpbs = lpbs[model]  # p-CEAT reads the LPBS tests' pairs
        corpora[model] = tuple(chosen["corpora"]) if has_lpbs else ()
        designs[model] = chosen["designs"]
        lpbs_designs[model] = 0 if static else chosen["lpbs_designs"]
        if lpbs_designs[model] > designs[model]:
            raise InputError(
                f"config: {where['lpbs_designs']}: {lpbs_designs[model]} of the model's "
                f"{designs[model]} generated designs ({where['designs']})"
            )
        if lpbs_designs[model] and not (config["lpbs"] or {}).get("templates"):
            raise InputError(f"config: {where['lpbs_designs']} needs lpbs.templates")
        check_designs(designs[model], where["designs"], lexicon, "null_calibration.lexicon")
    if any(designs.values()) and lexicon is not None:
        spec = specs.get(lexicon)
        if spec is None or spec.kind != "static" or spec.scheme == "random":
            raise InputError(
                f"config: null_calibration.lexicon names {lexicon!r}, not a configured static "
                "model with its own vectors (the generated designs draw their words from it)"
            )
    return {
        "null_seeds": seeds,
        "null_tests": tests,
        "null_lpbs": lpbs,
        "null_datasets": datasets,
        "null_corpora": corpora,
        "null_designs": designs,
        "null_item_designs": item_designs,
        "null_lpbs_designs": lpbs_designs,
        "null_lexicon": lexicon if any(designs.values()) else None,
    }
