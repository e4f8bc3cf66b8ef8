"""Adapter: rule method_cards -> biasbench.reports.cards."""

from pathlib import Path

from biasbench.io import log_to, write_text
from biasbench.reports.cards import cards
from biasbench.reports.tables import ReportSettings

sm = snakemake  # noqa: F821
log_to(sm.log[0])
pages = cards(list(sm.input), ReportSettings(**sm.params.settings))
for path in sm.output:
    write_text(path, pages[Path(path).stem])
