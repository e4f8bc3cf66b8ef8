"""Adapter: rule table -> biasbench.tables."""

from biasbench.io import log_to, read_tsv, write_text
from biasbench.tables import TABLES, TableContext, load_published, to_markdown

sm = snakemake  # noqa: F821
log_to(sm.log[0])
ctx = TableContext(
    scores=read_tsv(sm.input.scores),
    published=load_published(sm.input.published),
    models=dict(sm.params.models),
    alpha=sm.params.alpha,
)
build, title = TABLES[sm.wildcards.table]
long = build(ctx)
write_text(sm.output.csv, long.to_csv(index=False, float_format="%.6g", lineterminator="\n"))
write_text(sm.output.md, to_markdown(long, title, ctx.alpha))
