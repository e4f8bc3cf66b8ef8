"""Adapter: rule fetch_external -> biasbench.external.fetch."""

from biasbench.data.external import fetch
from biasbench.io import log_to

log_to(snakemake.log[0])  # noqa: F821
fetch(snakemake.params.entry, snakemake.output[0])  # noqa: F821
