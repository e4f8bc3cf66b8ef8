"""Adapter: rule provenance -> biasbench.reports.provenance."""

import json
from pathlib import Path

from biasbench.io import log_to, read_tsv, write_text
from biasbench.reports.provenance import provenance_page

sm = snakemake  # noqa: F821
log_to(sm.log[0])
models = [json.loads(Path(p).read_text(encoding="utf-8")) for p in sm.input.models]
write_text(sm.output[0], provenance_page(read_tsv(sm.input.scores), models, dict(sm.params.config)))
