"""Every table and figure the workflow builds, from the paper modules that declare them."""

from __future__ import annotations

from biasbench.reports import bommasani2022, delobelle2022, husse2022, schroeder2021, synthesis
from biasbench.reports.targets import FigureTarget, Table

PAPERS = (husse2022, schroeder2021, delobelle2022, bommasani2022, synthesis)

TABLES: dict[str, Table] = {t.name: t for paper in PAPERS for t in paper.TABLES}
FIGURES: dict[str, FigureTarget] = {f.name: f for paper in PAPERS for f in paper.FIGURES}

#: the HTML report's sections, in the order it lists them (it sorts them by name): the
#: comparison first, then each paper's tables and figures, the model cards, the provenance
COMPARISON = "1. The comparison across papers"
MODELS = f"{len(PAPERS) + 1}. Models"
PROVENANCE = f"{len(PAPERS) + 2}. Provenance"
_SECTIONS = {synthesis: COMPARISON} | {
    paper: f"{i}. {paper.PAPER}"
    for i, paper in enumerate((husse2022, schroeder2021, delobelle2022, bommasani2022), 2)
}


def report_section(target: str) -> str:
    """The report section of a table or figure: the comparison's or its paper's."""
    for paper, section in _SECTIONS.items():
        if any(t.name == target for t in (*paper.TABLES, *paper.FIGURES)):
            return section
    raise KeyError(f"no table or figure {target!r}")
