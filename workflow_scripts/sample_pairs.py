"""Adapter: rule sample_pairs -> biasbench.corpora + biasbench.lpbs_corpus.sample_pairs."""

from biasbench.corpora import iter_configured_corpus
from biasbench.io import log_to, write_tsv
from biasbench.lpbs_corpus import pair_list, sample_pairs
from biasbench.wordsets import read_wordset_files

sm = snakemake  # noqa: F821
log_to(sm.log[0])
wordsets = read_wordset_files(sm.input.wordsets)
lpbs = sm.params.lpbs
pairs = sample_pairs(
    iter_configured_corpus(dict(sm.params.corpus), sm.input.files),
    [pair for ws in wordsets for pair in pair_list(ws.sets)],
    per_pair=lpbs.get("per_pair", 20),
    seed=sm.params.seed,
    max_gap=max([lpbs.get("max_gap", 18), *lpbs.get("window_sweep", [])]),
    window_words=sm.params.sampling["window_words"],
    max_sentence_chars=sm.params.sampling["max_sentence_chars"],
    case=sm.wildcards.case,
)
write_tsv(sm.output[0], pairs)
