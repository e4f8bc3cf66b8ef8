"""Adapter: rule embed_group -> biasbench.models.embedding_cache.embed_tests.

Every test of a model on a source into the cache of embeddings files, the model loaded once
(and not at all when every test is cached); writes each test's signature.
"""

from biasbench.io import write_json
from biasbench.jobs import start_job
from biasbench.models.embedding_cache import ContextsOfTest, embed_job_tests

sm = snakemake  # noqa: F821
start_job(sm)
files = iter(sm.input.contexts)
tests = [
    ContextsOfTest(test, {d: next(files) for d in descriptors})
    for test, descriptors in sm.params.tests.items()
]
write_json(
    sm.output[0],
    {
        test: {"signature": sha, "entry": str(entry)}
        for test, (sha, entry) in embed_job_tests(sm, tests).items()
    },
    indent=1,
    sort_keys=True,
)
