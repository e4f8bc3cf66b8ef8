"""Adapter: rule sample_corpus -> biasbench.corpora + biasbench.sampling."""

from biasbench.corpora import iter_configured_corpus
from biasbench.io import log_to, write_tsv
from biasbench.sampling import coverage, sample_contexts
from biasbench.wordsets import ROLES, read_wordset_files

sm = snakemake  # noqa: F821
log_to(sm.log[0])
wordsets = read_wordset_files(sm.input.wordsets)
stimuli = [s for ws in wordsets for role in ROLES for s in ws.sets[role]]
documents = iter_configured_corpus(dict(sm.params.corpus), sm.input.files)
samples = sample_contexts(
    documents,
    stimuli,
    per_stimulus=sm.params.sampling["per_stimulus"],
    seed=sm.params.seed,
    window_words=max(1, sm.params.sampling["window_words"]),
    max_sentence_chars=sm.params.sampling["max_sentence_chars"],
    case=sm.wildcards.case,
)
write_tsv(sm.output.samples, samples)
write_tsv(sm.output.coverage, coverage(samples, stimuli))
