"""Adapter: rule embed -> biasbench.models.embedding_cache (a test's embeddings file).

The test's file from the cache rule embed_group filled, verified and copied; encoded here,
into the cache, only when its entry is missing or damaged (all descriptors in one pass).
"""

import sys

from biasbench.jobs import start_job
from biasbench.models.embedding_cache import ContextsOfTest, copy_entry, embed_tests
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
start_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
test = ContextsOfTest(
    sm.wildcards.test, dict(zip(sm.params.descriptors, sm.input.contexts, strict=True))
)
entries = embed_tests(
    spec,
    dict(sm.params.spec),
    sm.wildcards.source,
    [test],
    sm.input.model,
    dict(sm.params.extraction),
    sm.params.cache,
    threads=sm.threads,
    log=lambda line: print(line, file=sys.stderr),
    device=sm.params.device,
    dtype=sm.params.dtype,
)
copy_entry(entries[test.test][1], sm.output[0])
