"""What a paper module declares: its tables and figures, each with its title and the files it
reads by role."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from biasbench.config import read_yaml
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

#: a target's input files by role (``scores``, ``published``, ``nulls``, ...), each role's
#: files in the plan's order. The rule hands them over as named inputs and a table or figure
#: reads a role by its name, never by a file's place or suffix.
Inputs = Mapping[str, Sequence[str]]


def the_file(inputs: Inputs, role: str) -> str:
    """The one file a target reads as ``role``."""
    files = list(inputs.get(role, ()))
    if len(files) != 1:
        raise ValueError(f"a target reads {len(files)} files as {role!r}, not one: {files}")
    return files[0]


def published_doc(inputs: Inputs) -> dict:
    """The paper's published values a target reads (its ``published`` YAML file)."""
    return read_yaml(the_file(inputs, "published"))


def scores_only(plan) -> dict[str, list[str]]:
    """What most figures read: the tidy scores alone."""
    return {"scores": [SCORES]}


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
    make: Callable[[Inputs, ReportSettings], pd.DataFrame] | None = None
    reads: Callable[[object], dict[str, list[str]]] | None = None  # what ``make`` reads
    #: a table that is not a grid of effect sizes renders itself: (csv, markdown, html)
    render: Callable[[Inputs, ReportSettings], tuple[str, str, str]] | None = None

    @property
    def caption(self) -> str:
        """What the report says under the table."""
        source = f"Reproduces {self.title.split(':')[0]} of {self.paper}. " if self.paper else ""
        return f"{source}{self.note}"

    def inputs(self, plan) -> dict[str, list[str]]:
        """The files it reads by role: the tidy scores and the published numbers, or what
        ``reads`` declares."""
        if self.reads is not None:
            return self.reads(plan)
        return {"scores": [SCORES], **({"published": [self.published]} if self.published else {})}

    def long(self, inputs: Inputs, settings: ReportSettings) -> pd.DataFrame:
        """The table in long form (one row per cell, ours and published)."""
        if self.make is not None:
            return self.make(inputs, settings)
        published = load_published(self.published) if self.published else pd.DataFrame()
        scores = read_tsv(the_file(inputs, "scores"))
        return self.build(TableContext(scores, published, settings, self.paper_models))


@dataclass(frozen=True)
class FigureTarget:
    name: str  # file stem under results/figures/
    title: str
    draw: Callable[[Inputs, ReportSettings], Figure]  # (input files, settings) -> figure
    inputs: Callable[[object], dict[str, list[str]]] = scores_only  # only what it shows
    paper: str = ""  # the paper whose figure this reproduces
    reading: str = ""  # how to read it (significance, markers)

    @property
    def caption(self) -> str:
        source = f"Reproduces {self.title.split(':')[0]} of {self.paper}. " if self.paper else ""
        return f"{source}{self.title.split(': ', 1)[-1].capitalize()}. {self.reading}".strip()


def render_table(table: Table, inputs: Inputs, settings: ReportSettings) -> tuple[str, str, str]:
    """(long CSV, Markdown as printed, the same as an HTML page) of a table."""
    if table.render is not None:
        return table.render(inputs, settings)
    long = table.long(inputs, settings)
    csv = long.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    return csv, to_markdown(long, table.title, table.note), to_html(long, table.title, table.note)
