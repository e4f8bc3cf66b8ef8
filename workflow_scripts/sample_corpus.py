"""Adapter: rule sample_corpus -> biasbench.corpora + biasbench.sampling."""

from pathlib import Path

from biasbench.corpora import iter_corpus
from biasbench.io import log_to, write_tsv
from biasbench.sampling import coverage, sample_contexts
from biasbench.wordsets import ROLES, WordSet

sm = snakemake  # noqa: F821
log_to(sm.log[0])
wordsets = [WordSet.from_json(Path(p).read_text(encoding="utf-8")) for p in sm.input.wordsets]
stimuli = [s for ws in wordsets for role in ROLES for s in ws.sets[role]]
corpus = dict(sm.params.corpus)
options = {"column": corpus["column"]} if "column" in corpus else {}
documents = iter_corpus(corpus["kind"], sm.input.files, **options)
samples = sample_contexts(
    documents,
    stimuli,
    per_stimulus=sm.params.sampling["per_stimulus"],
    seed=sm.params.seed,
    window_words=max(1, sm.params.sampling["window_words"]),
    max_sentence_chars=sm.params.sampling["max_sentence_chars"],
)
write_tsv(sm.output.samples, samples)
write_tsv(sm.output.coverage, coverage(samples, stimuli))
