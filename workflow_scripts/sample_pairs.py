"""Adapter: rule sample_pairs -> biasbench.data.corpora + biasbench.data.sampling."""

from biasbench.data.corpora import iter_corpus_parts
from biasbench.data.sampling import pair_list, sample_pairs
from biasbench.data.wordsets import read_wordset_files
from biasbench.io import write_tsv
from biasbench.jobs import start_job

sm = snakemake  # noqa: F821
start_job(sm)
wordsets = read_wordset_files(sm.input.wordsets)
lpbs = sm.params.lpbs
pairs = sample_pairs(
    iter_corpus_parts(sm.params.parts),
    [pair for ws in wordsets for pair in pair_list(ws.sets)],
    per_pair=lpbs["per_pair"],
    seed=sm.params.seed,
    max_gap=max([lpbs["max_gap"], *lpbs["window_sweep"]]),
    window_words=sm.params.sampling["window_words"],
    max_sentence_chars=sm.params.sampling["max_sentence_chars"],
    case=sm.wildcards.case,
)
write_tsv(sm.output[0], pairs)
