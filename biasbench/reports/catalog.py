"""Every table and figure the workflow builds, from the modules that declare them: every
module of this package that declares a ``SECTION`` (the report section its tables and figures
are listed under: a paper's own, or the comparison's) is found here, with its ``TABLES``, its
``FIGURES`` and its ``ORDER`` (its place among them), so a new analysis is its module alone."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import biasbench.reports
from biasbench.reports.synthesis_inputs import COMPARISON_SECTION
from biasbench.reports.targets import FigureTarget, Table

#: how a module declares its report section, read from its source before it is imported
DECLARES_SECTION = re.compile(r"^SECTION\b", re.MULTILINE)


def analyses() -> tuple[ModuleType, ...]:
    """The modules of :mod:`biasbench.reports` (every folder of its ``__path__``) that declare
    a ``SECTION``, in their declared ``ORDER``; one without an ``ORDER`` is an error naming
    it."""
    found = []
    for info in pkgutil.iter_modules(biasbench.reports.__path__):
        source = Path(info.module_finder.path) / f"{info.name}.py"
        if not source.is_file() or not DECLARES_SECTION.search(source.read_text("utf-8")):
            continue
        module = importlib.import_module(f"biasbench.reports.{info.name}")
        if not isinstance(getattr(module, "ORDER", None), int):
            raise TypeError(f"{source}: declares SECTION but no ORDER (its place, an int)")
        found.append(module)
    return tuple(sorted(found, key=lambda m: (m.ORDER, m.__name__)))


#: the papers' modules and the comparison's, in their order
PAPERS = analyses()


def targets(
    papers: tuple[ModuleType, ...] | None = None,
) -> tuple[dict[str, Table], dict[str, FigureTarget]]:
    """Every table and every figure the modules of ``papers`` (default :data:`PAPERS`)
    declare, by name: what rule ``table`` and rule ``figure`` build."""
    papers = papers or PAPERS
    tables = {t.name: t for paper in papers for t in paper.TABLES}
    return tables, {f.name: f for paper in papers for f in paper.FIGURES}


TABLES, FIGURES = targets()


def sections(papers: tuple[ModuleType, ...] | None = None) -> dict[str, str]:
    """The report's sections of ``papers`` (default :data:`PAPERS`), each module's declared
    ``SECTION`` -> its numbered heading: the comparison first, then the others in the order
    of ``papers`` (the HTML report sorts its sections by heading)."""
    titles = dict.fromkeys([COMPARISON_SECTION, *(p.SECTION for p in papers or PAPERS)])
    return {title: f"{i}. {title}" for i, title in enumerate(titles, 1)}


#: the comparison's heading, then after every section the model cards and the provenance
COMPARISON = sections()[COMPARISON_SECTION]
MODELS = f"{len(sections()) + 1}. Models"
PROVENANCE = f"{len(sections()) + 2}. Provenance"


def report_section(target: str) -> str:
    """The report section of a table or figure: the heading of the section its module
    declares (``SECTION``)."""
    headings = sections()
    for paper in PAPERS:
        if any(t.name == target for t in (*paper.TABLES, *paper.FIGURES)):
            return headings[paper.SECTION]
    raise KeyError(f"no table or figure {target!r}")
