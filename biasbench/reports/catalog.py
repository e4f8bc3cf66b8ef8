"""Every table and figure the workflow builds, from the paper modules that declare them."""

from __future__ import annotations

from biasbench.reports import bommasani2022, delobelle2022, husse2022, schroeder2021, synthesis
from biasbench.reports.targets import FigureTarget, Table

PAPERS = (husse2022, schroeder2021, delobelle2022, bommasani2022, synthesis)

TABLES: dict[str, Table] = {t.name: t for paper in PAPERS for t in paper.TABLES}
FIGURES: dict[str, FigureTarget] = {f.name: f for paper in PAPERS for f in paper.FIGURES}
