"""What a paper module declares: its tables and figures, each with its title and inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
from matplotlib.figure import Figure

from biasbench.reports.tables import ReportSettings, TableContext, load_published, to_markdown

SCORES = "results/scores/all.tsv"


@dataclass(frozen=True)
class Table:
    name: str  # file stem under results/tables/
    title: str
    build: Callable[[TableContext], pd.DataFrame]
    published: str | None  # resources/published/<file> with the paper's numbers
    note: str  # how to read the cells (Markdown, under the title)
    paper_models: tuple[str, ...] = ()  # the paper's models, in its order

    def inputs(self, plan) -> list[str]:
        return [SCORES, *([self.published] if self.published else [])]


@dataclass(frozen=True)
class FigureTarget:
    name: str  # file stem under results/figures/
    title: str
    draw: Callable[[list[str], ReportSettings], Figure]  # (input files, settings) -> figure
    inputs: Callable[[object], list[str]] = lambda plan: [SCORES]  # only what it shows


def render_table(table: Table, scores: pd.DataFrame, settings: ReportSettings) -> tuple[str, str]:
    """(long CSV, Markdown as printed) of a table from the tidy scores."""
    published = load_published(table.published) if table.published else pd.DataFrame()
    long = table.build(TableContext(scores, published, settings, table.paper_models))
    csv = long.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    return csv, to_markdown(long, table.title, table.note)
