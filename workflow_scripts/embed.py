"""Adapter: rule embed -> biasbench.models.embedding_cache (a test's embeddings file).

The test's file from the cache rule embed_group filled, verified and copied; encoded here,
into the cache, only when its entry is missing or damaged (all descriptors in one pass).
"""

from biasbench.jobs import start_job
from biasbench.models.embedding_cache import ContextsOfTest, copy_entry, embed_job_tests

sm = snakemake  # noqa: F821
start_job(sm)
test = ContextsOfTest(
    sm.wildcards.test, dict(zip(sm.params.descriptors, sm.input.contexts, strict=True))
)
copy_entry(embed_job_tests(sm, [test])[test.test][1], sm.output[0])
