"""What a paper module declares: its tables and figures, each with its title and inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
from matplotlib.figure import Figure

from biasbench.reports.tables import (
    ReportSettings,
    TableContext,
    load_published,
    to_html,
    to_markdown,
)

SCORES = "results/scores/all.tsv"


@dataclass(frozen=True)
class Table:
    name: str  # file stem under results/tables/
    title: str
    build: Callable[[TableContext], pd.DataFrame]
    published: str | None  # resources/published/<file> with the paper's numbers
    note: str  # how to read the cells (Markdown, under the title)
    paper_models: tuple[str, ...] = ()  # the paper's models, in its order
    paper: str = ""  # the paper whose table this reproduces

    @property
    def caption(self) -> str:
        """What the report says under the table."""
        source = f"Reproduces {self.title.split(':')[0]} of {self.paper}. " if self.paper else ""
        return f"{source}{self.note}"

    def inputs(self, plan) -> list[str]:
        return [SCORES, *([self.published] if self.published else [])]


@dataclass(frozen=True)
class FigureTarget:
    name: str  # file stem under results/figures/
    title: str
    draw: Callable[[list[str], ReportSettings], Figure]  # (input files, settings) -> figure
    inputs: Callable[[object], list[str]] = lambda plan: [SCORES]  # only what it shows
    paper: str = ""  # the paper whose figure this reproduces
    reading: str = ""  # how to read it (significance, markers)

    @property
    def caption(self) -> str:
        source = f"Reproduces {self.title.split(':')[0]} of {self.paper}. " if self.paper else ""
        return f"{source}{self.title.split(': ', 1)[-1].capitalize()}. {self.reading}".strip()


def render_table(
    table: Table, scores: pd.DataFrame, settings: ReportSettings
) -> tuple[str, str, str]:
    """(long CSV, Markdown as printed, the same as an HTML page) of a table from the scores."""
    published = load_published(table.published) if table.published else pd.DataFrame()
    long = table.build(TableContext(scores, published, settings, table.paper_models))
    csv = long.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    return csv, to_markdown(long, table.title, table.note), to_html(long, table.title, table.note)
