"""Adapter: rule method_cards -> biasbench.reports.cards."""

from pathlib import Path

from biasbench.io import write_text
from biasbench.jobs import start_job
from biasbench.reports.cards import cards
from biasbench.reports.tables import ReportSettings

sm = snakemake  # noqa: F821
start_job(sm)
pages = cards(list(sm.input), ReportSettings(**sm.params.settings))
for path in sm.output:
    write_text(path, pages[Path(path).stem])
