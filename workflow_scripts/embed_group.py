"""Adapter: rule embed__<model> -> biasbench.models.embedding_cache.embed_tests, then the
vectors the studies read (biasbench.models.extract.context_word_vectors for DivDist,
biasbench.studies.delobelle2022.sensitivity_table for the template study).

Every test of a model on each of its sources into the cache of embeddings files, the model
loaded once (and not at all when every test is cached); each test's file copied from the
cache. The studies' files through the cache of per-test results, on the same model.
"""

from biasbench.config import read_yaml
from biasbench.io import read_tsv, write_npz, write_tsv
from biasbench.jobs import start_job
from biasbench.models.embedding_cache import (
    ContextsOfTest,
    copy_entry,
    embed_job_tests,
    job_encoder,
)
from biasbench.models.extract import context_word_vectors
from biasbench.studies import delobelle2022
from biasbench.test_cache import run_job_study

sm = snakemake  # noqa: F821
start_job(sm)
SCRIPT = "embed_group.py"
encoder = job_encoder(sm)
contexts = iter(sm.input.contexts)
outputs = iter(sm.output.embeddings)
for source, source_tests in sm.params.tests.items():
    tests = [
        ContextsOfTest(test, {d: next(contexts) for d in descriptors})
        for test, descriptors in source_tests.items()
    ]
    entries = embed_job_tests(sm, source, tests, encoder)
    for test in source_tests:
        copy_entry(entries[test][1], next(outputs))


def divdist_vectors(_work, files):
    e = encoder()
    contexts = read_tsv(sm.input.divdist[0])
    vectors = context_word_vectors(
        e.model, e.tokenizer, e.is_decoder, contexts, **sm.params.extraction
    )
    write_npz(files["divdist"], {"vectors": vectors})


def template_sensitivity(_work, files):
    e = encoder()
    (templates,), (lists,) = sm.input.templates, sm.input.lists
    frame = delobelle2022.sensitivity_table(
        e.model,
        e.tokenizer,
        e.is_decoder,
        read_yaml(templates)["templates"],
        read_yaml(lists),
        n_subsets=sm.params.study["subsets"],
        size=sm.params.study["subset_size"],
        extraction=sm.params.extraction,
    )
    write_tsv(files["sensitivity"], frame)


# what reaches a study's numbers: the model, its precision, the extraction (and the study's)
shared = {"spec": sm.params.spec, "dtype": sm.params.dtype, "extraction": sm.params.extraction}
run_job_study(sm, "divdist_vectors", "divdist", divdist_vectors, sm.input.divdist, shared, SCRIPT)
run_job_study(
    sm,
    "template_sensitivity",
    "sensitivity",
    template_sensitivity,
    [*sm.input.templates, *sm.input.lists],
    {**shared, "study": sm.params.study},
    SCRIPT,
)
