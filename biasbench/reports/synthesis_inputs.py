"""What the comparison's analyses read alike: the tidy scores and the null cells, each
method's own context source, the ground-truth study's models with the truth each method's
construct measures, the split-half reliabilities, and the files each target reads. The
analyses' tables and figures (``reports/agreement.py``, ``reports/calibration.py``,
``reports/survival.py``, ``reports/league.py``) build on these; ``reports/synthesis.py`` gathers
their targets."""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasbench import rows
from biasbench.io import read_json, read_rows, read_tsv
from biasbench.methods.contract import ON_STUDY
from biasbench.paths import DIVDIST_STUDY
from biasbench.reports.targets import SCORES, Inputs, Table, the_file
from biasbench.studies import reliability as rel
from biasbench.studies.cells import primary_cells
from biasbench.studies.groundtruth.every_method import HALVES_COLUMNS
from biasbench.studies.groundtruth.every_method import TEST as STUDY_TEST
from biasbench.studies.groundtruth.truth import truth_of

#: the report section of the comparison's tables and figures (an analysis of the comparison
#: declares it as its ``SECTION``); the report lists it first
COMPARISON_SECTION = "The comparison across papers"
COSTS = "benchmarks/method_costs.tsv"
DIVDIST_VALIDITY = DIVDIST_STUDY.format(name="validity.json")


def method_sources(settings) -> dict[str, str]:
    """Each method's own source: its declared context, "natural" read as the configured
    natural corpus."""
    from biasbench.methods.registry import REGISTRY

    return {
        m.name: (settings.natural or "templates") if m.context == "natural" else m.context
        for m in REGISTRY
    }


def comparison_inputs(plan) -> dict[str, list[str]]:
    """The scores, the null cells, the ground-truth study's files, the statistic costs where
    the benchmark has written them, and the DivDist study's validity tables (the census)
    where it runs."""
    return {
        **null_inputs(plan),
        **plan.study_files(),
        "costs": [COSTS] if (plan.root / COSTS).is_file() else [],
        "census": [DIVDIST_VALIDITY] if plan.divdist else [],
    }


def study_scores_inputs(plan) -> dict[str, list[str]]:
    """The scores and the ground-truth study's files (no null cell)."""
    return {"scores": [SCORES], **plan.study_files()}


def injected_rows(inputs: Inputs) -> pd.DataFrame:
    """Score rows of the ground-truth study's models: the data sets and every method on the
    study's own test."""
    files = [*inputs.get("study_datasets", ()), *inputs.get("study_methods", ())]
    return pd.concat([read_tsv(p) for p in files], ignore_index=True) if files else rows.frame([])


def study_records(inputs: Inputs) -> dict[str, dict]:
    """The ground-truth study's records by model name."""
    return {r["name"]: r for p in inputs.get("study_records", ()) for r in read_json(p)["models"]}


def cells_with_truth(frames: pd.DataFrame, inputs: Inputs, settings) -> pd.DataFrame:
    """The study models' primary cells with the quantity each method's construct measures
    (``truth``: the quantity its declaration names, ``Method.truth``, on the study's own test
    or on a data set's rows of the injected category), every model with ``kept`` (Schröder et
    al.'s R² bar, the league's sensitivity row) and ``cluster``: the models that share one draw
    of the injected shares (identical ``p``) are one cluster."""
    records = study_records(inputs)
    cells = primary_cells(frames, method_sources(settings))
    cells = cells[cells["model"].isin(set(records))].reset_index(drop=True)
    draws = {name: repr(r["p"]) for name, r in records.items()}
    cluster_of = {d: i for i, d in enumerate(dict.fromkeys(draws.values()))}

    def truth(row) -> float:
        declared = truth_of(row.method)
        on_study = row.test == STUDY_TEST
        if declared.quantity is None or on_study != (declared.where == ON_STUDY):
            return np.nan
        if not on_study and row.descriptor != "all":
            return np.nan
        return records[row.model]["injected"].get(declared.quantity, np.nan)

    return cells.assign(
        truth=[truth(r) for r in cells.itertuples(index=False)],
        kept=[bool(records[m]["kept"]) for m in cells["model"]],
        cluster=[cluster_of[draws[m]] for m in cells["model"]],
    )


def scores_with(inputs: Inputs, extra: str = "nulls") -> pd.DataFrame:
    """The tidy scores, with the rows of the role ``extra`` (the null-model calibration's
    where the target reads them)."""
    added = [read_rows(p) for p in inputs.get(extra, ())]
    return pd.concat([read_rows(the_file(inputs, "scores")), *added], ignore_index=True)


def null_inputs(plan) -> dict[str, list[str]]:
    """The tidy scores, the null-model calibration's rows (the null cells) and the
    trained-weight null's draws (the null sources: biasbench.studies.calibration.SOURCES)."""
    return {"scores": [SCORES], "nulls": plan.null_files(), "trained": plan.trained_files()}


def piece_inputs(plan) -> dict[str, list[str]]:
    """The null cells and the word pieces of their stimuli under each base model's tokenizer."""
    return {**null_inputs(plan), "tokenization": plan.tokenization_files()}


def comparison_cells(inputs: Inputs, settings) -> pd.DataFrame:
    return primary_cells(scores_with(inputs), method_sources(settings))


def source_cells(inputs: Inputs, settings) -> tuple[pd.DataFrame, pd.Series, dict[str, str]]:
    """(the primary cells of the real models and of every null source, each cell's source
    key (None: a real model's), each null model's base): what the calibration by source
    reads."""
    from biasbench.studies.calibration import source_of

    added = [read_rows(p) for p in (*inputs.get("nulls", ()), *inputs.get("trained", ()))]
    frames = pd.concat([read_rows(the_file(inputs, "scores")), *added], ignore_index=True)
    cells = primary_cells(frames, method_sources(settings))
    draws = [m for m in settings.trained_bases if m in set(cells["model"])]
    sources = source_of(cells, settings.null_models, settings.null_bases, settings.kinds, draws)
    return cells, sources, {**settings.null_bases, **settings.trained_bases}


def null_mask(cells: pd.DataFrame, settings) -> pd.Series:
    """The rows of the configuration's null models (``random:`` sources), never guessed from
    a model's name."""
    return cells["model"].isin(set(settings.null_models))


def reliability(inputs: Inputs) -> pd.DataFrame:
    """Split-half reliability per method and facet (:func:`rel.split_half`) from the study's
    halves files."""
    halves = [read_tsv(p) for p in inputs.get("study_halves", ())]
    if not halves:
        return rel.split_half(pd.DataFrame(columns=HALVES_COLUMNS))
    return rel.split_half(pd.concat(halves, ignore_index=True))


def synthesis_table(name, title, render, note, reads=comparison_inputs):
    return Table(name, title, None, None, note, reads=reads, render=render)
