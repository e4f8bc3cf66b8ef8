"""The paired comparison checked on the ground-truth study's models (synthesis_paired_check):
which measures find a known difference between two models, and in its direction
(:mod:`biasbench.studies.groundtruth.paired_check`)."""

from __future__ import annotations

import pandas as pd

from biasbench.io import read_json, read_tsv
from biasbench.reports.synthesis_inputs import synthesis_table
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import Inputs
from biasbench.studies.groundtruth.paired_check import paired_check

#: the check's seed (its permutations and bootstrap): fixed here, as the tables have no seed
SEED = 20261128


def _inputs(plan) -> dict[str, list[str]]:
    """The study models' per-item outcomes and their records, per mean."""
    return {
        "study_outcomes": plan.injected_outcomes,
        "study_records": plan.study_files()["study_records"],
    }


def check_table(inputs: Inputs, settings):
    title = "The paired comparison on models of known difference"
    outcomes = [read_tsv(p) for p in inputs.get("study_outcomes", ())]
    files = [read_json(p) for p in inputs.get("study_records", ())]
    records = [r for f in files for r in f["models"]]
    design = files[0]["settings"]["design"] if files else "grid"
    frame = pd.concat(outcomes, ignore_index=True) if outcomes else pd.DataFrame()
    table = (
        paired_check(frame, records, alpha=settings.alpha, seed=SEED, design=design)
        if len(frame)
        else frame
    )
    pairs = (
        "Pairs of the ground-truth study's models that differ only in the injected bias's mean "
        "(the same spread, alignment and repeat; adjacent means)"
        if design == "grid"
        else "Pairs of the ground-truth study's models of adjacent means' strata, in the same "
        "sub-stratum of their means (a Latin hypercube: their spreads and alignments differ "
        "too, by chance, so the known difference is the injected quantities', not the mean's)"
    )
    note = (
        f"{pairs}, each pair compared item by "
        "item on the data sets' items of the injected category as `compare:` compares two "
        "models (the difference with the lower mean as base; p from exchanging the two models' "
        f"outcomes per unit; Holm over the pair's measures; found: significant at {settings.alpha}"
        "). found_with_truth / found_against_truth: the found differences whose sign is / is not "
        "that of the difference of the injected quantity the measure should follow "
        "(truth_quantity, as synthesis_league); spearman: the rank correlation of the measure's "
        "differences with the truth's over the pairs; median_difference: the median |difference| "
        "(points), median_detectable: the median difference the pair's test detects with 80% "
        "power at alpha over its measures. A measure worth reading for a before-and-after "
        "comparison finds these differences, and with the truth."
    )
    return plain_table(table, title, note)


TABLES = (
    synthesis_table(
        "synthesis_paired_check",
        "The paired comparison on models of known difference",
        check_table,
        "Which measures find a known difference between two models, and in its direction.",
        reads=_inputs,
    ),
)
