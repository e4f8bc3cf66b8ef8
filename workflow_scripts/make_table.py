"""Adapter: rule table -> biasbench.reports (the table's paper module builds it)."""

from biasbench.io import write_table_csv, write_text
from biasbench.jobs import inputs_by_role, start_job
from biasbench.reports.catalog import TABLES
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import render_table

sm = snakemake  # noqa: F821
start_job(sm)
table = TABLES[sm.wildcards.table]
csv, md, html = render_table(table, inputs_by_role(sm), ReportSettings(**sm.params.settings))
write_table_csv(sm.output.csv, csv)  # and its sm.output.sha256
write_text(sm.output.md, md)
write_text(sm.output.html, html)
