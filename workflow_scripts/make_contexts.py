"""Adapter: rules template_contexts / word_contexts / corpus_contexts -> the library."""

import sys

from biasbench import paths
from biasbench.data.contexts import (
    check_contexts,
    corpus_contexts,
    template_contexts,
    word_contexts,
)
from biasbench.data.templates import load_templates
from biasbench.data.wordsets import WordSet
from biasbench.io import read_sealed, read_tsv, write_tsv
from biasbench.jobs import start_job

sm = snakemake  # noqa: F821
start_job(sm)
wordset = WordSet.from_json(read_sealed(sm.input.wordset))
if sm.rule == "word_contexts":
    frame = word_contexts(wordset)
elif sm.rule == "corpus_contexts":
    samples = read_tsv(sm.input.samples)
    frame = corpus_contexts(samples, wordset, sm.wildcards.corpus, sm.params.window)
else:
    templates = load_templates(sm.input.templates, paths.external)
    for note in templates.notes.values():  # a template in another Unicode form, read as NFC
        print(f"note: {note}", file=sys.stderr)
    frame = template_contexts(wordset, templates)
check_contexts(frame, sm.output[0], allow_empty=sm.rule == "corpus_contexts")
write_tsv(sm.output[0], frame)
