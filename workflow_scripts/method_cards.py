"""Adapter: rule method_cards -> biasbench.reports.cards, on the comparison's tables."""

from pathlib import Path

from biasbench.io import write_text
from biasbench.jobs import start_job
from biasbench.reports.cards import cards
from biasbench.reports.model_cards import read_table

sm = snakemake  # noqa: F821
start_job(sm)
pages = cards(read_table(sm.input.league), read_table(sm.input.agreement), sm.params.alpha)
for path in sm.output:
    write_text(path, pages[Path(path).stem])
