"""Benchmark of the natural-context stages, every figure measured in this one run.

1. Reddit sampling throughput (MB/s of decompressed comment text): the pipeline's one-pass
   matcher + reservoir sampler for all stimuli of all tests at once, vs a scan with one
   compiled regex per stimulus over the same documents.
2. CEAT time per test: 10,000 samples, 100 contexts per stimulus, 384-dim embeddings
   (MiniLM's width), one core.

Usage: BIAS_DATA_MIRROR=../shared/external python benchmarks/bench_natural.py \
           ../shared/corpora/reddit/RC_2015-02_04_sample.zst [--baseline-docs 20000] \
           [--ceat-only]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from biasbench.data.corpora import iter_reddit
from biasbench.data.external import fetch, load_manifest
from biasbench.data.sampling import sample_contexts
from biasbench.data.wordsets import ROLES, descriptors, load_wordset
from biasbench.methods.embedding.ceat import ceat

ROOT = Path(__file__).resolve().parents[1]
PAPER_TESTS = ("C1", "C3", "C6", "C9", "Occ", "I1", "I2", "Dis")


def resolver():
    """Manifest id -> local file, fetched (from BIAS_DATA_MIRROR if set) into a temp dir."""
    manifest = load_manifest(ROOT / "resources/external.yaml")
    cache = Path(tempfile.mkdtemp())

    def resolve(file_id):
        path = cache / file_id
        if not path.exists():
            fetch(manifest[file_id], path)
        return path

    return resolve


def all_wordsets(resolve=None):
    """Every descriptor of every word-set file in resources/wordsets."""
    resolve = resolve or resolver()
    for path in sorted((ROOT / "resources/wordsets").glob("*.yaml")):
        for d in descriptors(path):
            yield load_wordset(path, d, resolve)


def regex_per_stimulus(documents, stimuli):
    patterns = [re.compile(rf"\b{re.escape(s)}\b", re.IGNORECASE) for s in stimuli]
    hits = 0
    for doc in documents:
        for pattern in patterns:
            hits += sum(1 for _ in pattern.finditer(doc))
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="?", help="not needed with --ceat-only")
    parser.add_argument("--baseline-docs", type=int, default=20_000)
    parser.add_argument("--ceat-only", action="store_true", help="skip the sampling benchmark")
    args = parser.parse_args()
    if args.corpus is None and not args.ceat_only:
        parser.error("a corpus is needed unless --ceat-only is given")

    wordsets = list(all_wordsets())
    if not args.ceat_only:
        sampling_benchmark(args.corpus, args.baseline_docs, wordsets)
    ceat_benchmark(wordsets)


def sampling_benchmark(corpus: Path, baseline_docs: int, wordsets: list) -> None:
    stimuli = list(dict.fromkeys(s for ws in wordsets for r in ROLES for s in ws.sets[r]))
    docs = list(iter_reddit(corpus))
    mb = sum(len(d.encode()) for d in docs) / 1e6
    subset = docs[:baseline_docs]
    sub_mb = sum(len(d.encode()) for d in subset) / 1e6

    start = time.perf_counter()
    sample_contexts(docs, stimuli, per_stimulus=100, seed=1)
    t_full = time.perf_counter() - start
    start = time.perf_counter()
    sample_contexts(subset, stimuli, per_stimulus=100, seed=1)
    t_ours = time.perf_counter() - start
    start = time.perf_counter()
    regex_per_stimulus(subset, stimuli)
    t_regex = time.perf_counter() - start

    print(
        f"stimuli: {len(stimuli)} (all tests, all descriptors); "
        f"corpus: {len(docs):,} texts, {mb:.1f} MB"
    )
    print(f"one-pass sampler, whole corpus:           {mb / t_full:7.2f} MB/s ({t_full:.1f} s)")
    print(f"one-pass sampler, first {len(subset):,} texts:   {sub_mb / t_ours:7.2f} MB/s")
    print(f"one regex per stimulus, same texts:       {sub_mb / t_regex:7.2f} MB/s")
    print(f"speed-up: {t_regex / t_ours:.1f}x  (target >= 10x)")


def ceat_benchmark(wordsets: list) -> None:
    rng = np.random.default_rng(0)
    by_id = {(ws.test, ws.descriptor): ws for ws in wordsets}
    with threadpool_limits(1):
        for test in PAPER_TESTS:
            ws = by_id.get((test, "names")) or by_id[(test, "terms")]
            ctx = {
                r: [rng.normal(size=(100, 384)).astype(np.float32) for _s in ws.sets[r]]
                for r in ROLES
            }
            start = time.perf_counter()
            res = ceat(ctx, n_samples=10_000, seed=1)
            t = time.perf_counter() - start
            sizes = "/".join(str(len(ws.sets[r])) for r in ROLES)
            print(
                f"CEAT {test:4s} ({sizes} stimuli x 100 contexts, 10,000 samples, 1 core): "
                f"{t:6.2f} s  (target <= 5 s; paper Table 7: ~450 s)  CES {res.ces:+.3f}"
            )


if __name__ == "__main__":
    main()
