"""Adapter: rule figure -> biasbench.reports (the figure's paper module draws it)."""

from biasbench.jobs import inputs_by_role, start_job
from biasbench.reports.catalog import FIGURES
from biasbench.reports.figures import save
from biasbench.reports.tables import ReportSettings

sm = snakemake  # noqa: F821
start_job(sm)
figure = FIGURES[sm.wildcards.figure]
save(
    figure.draw(inputs_by_role(sm), ReportSettings(**sm.params.settings)),
    sm.output.png,
    sm.output.pdf,
)
