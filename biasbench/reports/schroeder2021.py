"""Schröder et al., *Evaluating Metrics for Bias in Word Embeddings*: its tables and figures,
each declared with the files it reads."""

from __future__ import annotations

from html import escape
from pathlib import Path

import pandas as pd
import yaml

from biasbench.reports.tables import ReportSettings, finish
from biasbench.reports.targets import Table
from biasbench.studies.properties import PROPERTIES, property_matrix
from biasbench.studies.schroeder2021 import S31, S31_SETS, s31_cells

PAPER = "Schröder et al. (2021)"
PUBLISHED = "resources/published/schroeder2021.yaml"


def _s31_reads(plan) -> list[str]:
    models = [
        j.model for j in plan.jobs if (j.test, j.source, j.descriptor) == (S31, "words", "XY")
    ]
    if not models:  # the configuration does not run the example: the table says so
        return [PUBLISHED]
    return [
        PUBLISHED,
        *(f"results/contexts/words/{S31}/{d}.tsv" for d in S31_SETS),
        *(f"results/embeddings/{m}/words/{S31}.h5" for m in models),
    ]


def s31(inputs: list[str], settings: ReportSettings) -> pd.DataFrame:
    """Section 3.1 on every model, beside the paper's BERT values."""
    return finish(s31_cells(inputs), settings.alpha)


SYMBOLS = {"yes": "✓", "no": "✗", "conditional": "(✓)", "": "", "blank": ""}
#: the paper's row names for our scores
PAPER_ROWS = {
    "WEAT word score": "WEAT_word",
    "WEAT d": "WEAT",
    "MAC word": "MAC_word",
    "MAC": "MAC",
    "Direct Bias word": "DirectBias_word",
    "Direct Bias": "DirectBias",
    "SAME word": "SAME_word",
    "SAME": "SAME",
    "SAME stereotype": "SAME_stereo",
    "SAME skew": "SAME_skew",
}


def properties(inputs: list[str], settings: ReportSettings) -> tuple[str, str, str]:
    """Tables 1/4 from running the checks of ``biasbench.studies.properties``, beside the
    paper's table; cells where they differ are marked and explained."""
    published = yaml.safe_load(Path(inputs[0]).read_text(encoding="utf-8"))
    paper = published["property_matrix"]["rows"]
    found = pd.DataFrame(property_matrix())
    found["paper"] = [
        paper[PAPER_ROWS[s]][p] for s, p in zip(found["score"], found["property"], strict=True)
    ]
    found["paper"] = found["paper"].replace("blank", "")
    found["agrees"] = found["verdict"] == found["paper"]
    wide = pd.DataFrame(
        {
            p: [
                SYMBOLS[r.verdict] + ("" if r.agrees else f" (paper {SYMBOLS[r.paper] or '-'})")
                for r in found[found["property"] == p].itertuples()
            ]
            for p in PROPERTIES
        },
        index=list(dict.fromkeys(found["score"])),
    )
    wide.index.name = "score"
    title = "Tables 1 and 4: properties of the bias scores, from running the checks"
    differ = found[~found["agrees"]]
    note = (
        "Each cell is decided by running the score on constructed inputs under several "
        "attribute configurations (biasbench/studies/properties.py); ✓ holds, ✗ a "
        "counterexample was found, (✓) only when the stereotype follows the X/Y split. Where "
        "the paper's table says otherwise the cell shows it in brackets: "
        + "; ".join(f"{r.score} / {r.property}: {r.evidence}" for r in differ.itertuples())
        + ". The paper's Theorem 1 (a trustworthy score is skew- and stereotype-sensitive) "
        "agrees with these cells and contradicts its own table."
    )
    md = f"# {title}\n\n{note}\n\n{wide.reset_index().to_markdown(index=False)}\n"
    html = (
        f"<!doctype html><meta charset='utf-8'><h2>{escape(title)}</h2><p>{escape(note)}</p>"
        + wide.to_html(border=0)
    )
    return found.to_csv(index=False, lineterminator="\n"), md, html + "\n"


TABLES = (
    Table(
        "schroeder2021_properties",
        "Tables 1 and 4: properties of the bias scores, from running the checks",
        None,
        None,
        "Comparable, trustworthy, skew- and stereotype-sensitive, decided by running each "
        "score on constructed inputs; the paper's own table beside.",
        paper=PAPER,
        reads=lambda plan: [PUBLISHED],
        render=properties,
    ),
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
