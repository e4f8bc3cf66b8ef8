"""Schröder et al., *Evaluating Metrics for Bias in Word Embeddings*: its tables and figures,
each declared with the files it reads."""

from __future__ import annotations

import pandas as pd

from biasbench.reports.tables import ReportSettings, finish
from biasbench.reports.targets import Table
from biasbench.studies.schroeder2021 import S31, S31_SETS, s31_cells

PAPER = "Schröder et al. (2021)"
PUBLISHED = "resources/published/schroeder2021.yaml"


def _s31_reads(plan) -> list[str]:
    models = [
        j.model for j in plan.jobs if (j.test, j.source, j.descriptor) == (S31, "words", "XY")
    ]
    return [
        PUBLISHED,
        *(f"results/contexts/words/{S31}/{d}.tsv" for d in S31_SETS),
        *(f"results/embeddings/{m}/words/{S31}.h5" for m in models),
    ]


def s31(inputs: list[str], settings: ReportSettings) -> pd.DataFrame:
    """Section 3.1 on every model, beside the paper's BERT values."""
    return finish(s31_cells(inputs), settings.alpha)


TABLES = (
    Table(
        "schroeder2021_s31",
        "Section 3.1: WEAT word scores of six occupations and d for three choices of X and Y",
        None,
        None,
        "Word scores s(w, A, B) (mean cosine with the male minus the female definitional words "
        "of Bolukbasi et al.; words alone, mean over subtokens) and WEAT effect sizes d with the "
        "population and the sample standard deviation; the paper reports d on BERT (which sd it "
        "used is not stated), shown in both rows. Its point: d(X', Y') is near 0 although X' and "
        "Y' are the most stereotyped occupations.",
        paper=PAPER,
        make=s31,
        reads=_s31_reads,
    ),
)
FIGURES = ()
