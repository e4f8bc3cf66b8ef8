"""Adapter: rule embed__<model> -> biasbench.models.embedding_cache.embed_tests.

Every test of a model on each of its sources into the cache of embeddings files, the model
loaded once (and not at all when every test is cached); each test's file copied from the
cache.
"""

from biasbench.jobs import start_job
from biasbench.models.embedding_cache import (
    ContextsOfTest,
    copy_entry,
    embed_job_tests,
    job_encoder,
)

sm = snakemake  # noqa: F821
start_job(sm)
encoder = job_encoder(sm)
contexts = iter(sm.input.contexts)
outputs = iter(sm.output)
for source, source_tests in sm.params.tests.items():
    tests = [
        ContextsOfTest(test, {d: next(contexts) for d in descriptors})
        for test, descriptors in source_tests.items()
    ]
    entries = embed_job_tests(sm, source, tests, encoder)
    for test in source_tests:
        copy_entry(entries[test][1], next(outputs))
