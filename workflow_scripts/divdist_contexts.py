"""Adapter: rule divdist_contexts -> biasbench.studies.bommasani2022.sample_study_contexts."""

from biasbench.data.corpora import iter_corpus_parts
from biasbench.io import write_tsv
from biasbench.jobs import start_job
from biasbench.studies import bommasani2022 as study

sm = snakemake  # noqa: F821
start_job(sm)
data = study.load_data(*sm.input.data, year=sm.params.study["census_year"])
contexts = sm.params.study["contexts"]
frame = study.sample_study_contexts(
    iter_corpus_parts(sm.params.parts),
    data,
    per_stimulus=contexts["per_stimulus"],
    seed=sm.params.seed,
    window_words=contexts["window_words"],
)
write_tsv(sm.output[0], frame)
