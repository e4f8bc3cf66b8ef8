"""Adapter: rule divdist_text -> biasbench.studies.bommasani2022.text_strengths."""

from biasbench.data.corpora import iter_corpus_parts
from biasbench.io import write_tsv
from biasbench.jobs import start_job
from biasbench.studies import bommasani2022 as study

sm = snakemake  # noqa: F821
start_job(sm)
data = study.load_data(*sm.input.data, year=sm.params.study["census_year"])
frame = study.text_strengths(
    iter_corpus_parts(sm.params.parts), data, sm.params.study["k"], sm.wildcards.corpus
)
write_tsv(sm.output[0], frame)
