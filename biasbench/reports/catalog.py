"""Every table and figure the workflow builds, from the modules that declare them: each of
:data:`PAPERS` declares its ``TABLES``, its ``FIGURES`` and its ``SECTION``, the report
section they are listed under (a paper's own, or the comparison's)."""

from __future__ import annotations

from types import ModuleType

from biasbench.reports import bommasani2022, delobelle2022, husse2022, schroeder2021, synthesis
from biasbench.reports.synthesis_inputs import COMPARISON_SECTION
from biasbench.reports.targets import FigureTarget, Table

PAPERS = (husse2022, schroeder2021, delobelle2022, bommasani2022, synthesis)


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
