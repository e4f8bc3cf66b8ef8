"""The comparison no paper made, gathered: every method against every other (agreement,
``reports/agreement.py``), against null models (calibration, ``reports/calibration.py``), the
paper's significant cells under the word-level test (``reports/survival.py``), and against
injected ground truth, the census and an extrinsic proxy (the validity league,
``reports/league.py``), from the scores of all four papers. This module holds the tidy scores
table and gathers every analysis' tables and figures (``TABLES``, ``FIGURES``); what the
analyses read alike is in ``reports/synthesis_inputs.py``."""

from __future__ import annotations

from biasbench.reports import agreement, calibration, league, paired_check, survival
from biasbench.reports.synthesis_inputs import (
    COMPARISON_SECTION,
    comparison_cells,
    null_mask,
    synthesis_table,
)
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import Inputs, scores_only

#: its tables' and figures' section of the report (biasbench.reports.catalog)
SECTION = COMPARISON_SECTION
#: its place among the catalog's modules (biasbench.reports.catalog): the report's order
ORDER = 5


def scores_table(inputs: Inputs, settings):
    title = "Every score of the four papers' methods, one tidy table"
    cells = comparison_cells(inputs, settings)
    cells["significant"] = cells["p_value"] < settings.alpha
    cells["null model"] = null_mask(cells, settings)
    keep = [
        "method",
        "paper",
        "family",
        "model",
        "null model",
        "source",
        "test",
        "descriptor",
        "encoding",
        "variant",
        "effect_size",
        "p_value",
        "significant",
    ]
    note = (
        "Primary rows (each method's default encoding and variant) of results/scores/all.tsv, "
        "one per (method, model, test, descriptor), on the method's own context source where "
        f"it has several; significant: p < {settings.alpha}; null model: random weights."
    )
    return plain_table(cells[keep], title, note)


TABLES = (
    synthesis_table(
        "synthesis_scores",
        "Every score, one tidy table",
        scores_table,
        "Primary rows of every method.",
        reads=scores_only,
    ),
    *agreement.TABLES,
    *calibration.TABLES,
    *survival.TABLES,
    *league.TABLES,
    *paired_check.TABLES,
)
FIGURES = (*agreement.FIGURES, *calibration.FIGURES, *league.FIGURES)
