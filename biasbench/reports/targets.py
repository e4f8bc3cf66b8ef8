"""What a paper module declares: its tables and figures, each with its title and inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from biasbench.io import read_tsv
from biasbench.paths import ALL_SCORES
from biasbench.reports.tables import (
    ReportSettings,
    TableContext,
    load_published,
    to_html,
    to_markdown,
)

SCORES = ALL_SCORES

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Table:
    """A table target. Most are built from the tidy scores (``build``, with the paper's
    published numbers beside); a study's table reads other files (``make`` and ``reads``)."""

    name: str  # file stem under results/tables/
    title: str
    build: Callable[[TableContext], pd.DataFrame] | None
    published: str | None  # resources/published/<file> with the paper's numbers
    note: str  # how to read the cells (Markdown, under the title)
    paper_models: tuple[str, ...] = ()  # the paper's models, in its order
    paper: str = ""  # the paper whose table this reproduces
    make: Callable[[list[str], ReportSettings], pd.DataFrame] | None = None
    reads: Callable[[object], list[str]] | None = None  # the files ``make`` reads
    #: a table that is not a grid of effect sizes renders itself: (csv, markdown, html)
    render: Callable[[list[str], ReportSettings], tuple[str, str, str]] | None = None

    @property
    def caption(self) -> str:
        """What the report says under the table."""
        source = f"Reproduces {self.title.split(':')[0]} of {self.paper}. " if self.paper else ""
        return f"{source}{self.note}"

    def inputs(self, plan) -> list[str]:
        if self.reads is not None:
            return self.reads(plan)
        return [SCORES, *([self.published] if self.published else [])]

    def long(self, inputs: list[str], settings: ReportSettings) -> pd.DataFrame:
        """The table in long form (one row per cell, ours and published)."""
        if self.make is not None:
            return self.make(inputs, settings)
        published = load_published(self.published) if self.published else pd.DataFrame()
        scores = read_tsv(inputs[0])
        return self.build(TableContext(scores, published, settings, self.paper_models))


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


def render_table(table: Table, inputs: list[str], settings: ReportSettings) -> tuple[str, str, str]:
    """(long CSV, Markdown as printed, the same as an HTML page) of a table."""
    if table.render is not None:
        return table.render(inputs, settings)
    long = table.long(inputs, settings)
    csv = long.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    return csv, to_markdown(long, table.title, table.note), to_html(long, table.title, table.note)
