"""Adapter: rule embed_group -> biasbench.models.embedding_cache.embed_tests.

Every test of a model on a source into the cache of embeddings files, the model loaded once
(and not at all when every test is cached); writes each test's signature.
"""

import sys

from biasbench.io import write_json
from biasbench.jobs import start_job
from biasbench.models.embedding_cache import ContextsOfTest, embed_tests
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
start_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
files = iter(sm.input.contexts)
tests = [
    ContextsOfTest(test, {d: next(files) for d in descriptors})
    for test, descriptors in sm.params.tests.items()
]
entries = embed_tests(
    spec,
    dict(sm.params.spec),
    sm.wildcards.source,
    tests,
    sm.input.model,
    dict(sm.params.extraction),
    sm.params.cache,
    threads=sm.threads,
    log=lambda line: print(line, file=sys.stderr),
    device=sm.params.device,
    dtype=sm.params.dtype,
)
write_json(
    sm.output[0],
    {test: {"signature": sha, "entry": str(entry)} for test, (sha, entry) in entries.items()},
    indent=1,
    sort_keys=True,
)
