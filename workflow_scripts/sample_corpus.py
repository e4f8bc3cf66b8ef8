"""Adapter: rule sample_corpus -> biasbench.data.corpora + biasbench.data.sampling."""

from biasbench.data.corpora import iter_corpus_parts
from biasbench.data.sampling import coverage, sample_contexts
from biasbench.data.wordsets import read_wordset_files
from biasbench.io import write_tsv
from biasbench.jobs import start_job

sm = snakemake  # noqa: F821
start_job(sm)
wordsets = read_wordset_files(sm.input.wordsets)
stimuli = [s for ws in wordsets for words in ws.sets.values() for s in words]
documents = iter_corpus_parts(sm.params.parts)
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
