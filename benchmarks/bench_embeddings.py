"""The embeddings of one model's tests on one source: each test encoded alone with padded,
length-sorted batches (the extraction before 8446b8f: the baseline) against all of them
encoded together with batches of one token length (the extraction now: a sentence several
tests share runs once, no batch is padded). CPU seconds of each, the model loaded once,
one thread, the same process; the ratio is the baseline's over the current one's, the
median over ``--repeats``.

Run from a finished run's directory (its prepared models and context tables):

    .venv/bin/python benchmarks/bench_embeddings.py --model minilm-l6 --source natural
    .venv/bin/python benchmarks/bench_embeddings.py --model smollm2-135m --source templates \\
        --tests C1,C3,C6,C9,Occ,I1,I2,Dis
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from biasbench.config import read_yaml, validate_config
from biasbench.models import extract
from biasbench.models.embedding_cache import ContextsOfTest, Encoder, read_contexts
from biasbench.models.specs import ModelSpec


def padded_batches(lengths: np.ndarray, max_tokens: int, max_batch: int):
    """The baseline's batches: sorted by length, grown while the padded batch fits the
    token budget (a batch's sentences padded to its longest)."""
    order = np.argsort(lengths, kind="stable")
    start = 0
    while start < len(order):
        stop = start + 1
        while (
            stop < len(order)
            and stop - start < max_batch
            and (stop - start + 1) * lengths[order[stop]] <= max_tokens
        ):
            stop += 1
        yield order[start:stop]
        start = stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--source", default="templates")
    parser.add_argument("--tests", help="comma-separated (default: every test with contexts)")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    config = validate_config(read_yaml(Path("config.yaml")))
    spec = ModelSpec.from_config(args.model, config["models"][args.model])
    extraction = {**config["extraction"], "progress": False}
    encoder = Encoder(spec, Path("results/models") / args.model, 1, extraction)
    where = Path("results/contexts") / args.source
    if args.source not in ("templates", "words"):
        where = where / "any"
    tests = args.tests.split(",") if args.tests else sorted(p.name for p in where.iterdir())
    frames = {}
    for test in tests:
        files = {p.stem: str(p) for p in sorted((where / test).glob("*.tsv"))}
        parts = read_contexts(ContextsOfTest(test, files), args.source)
        frames[test] = pd.concat(parts.values(), ignore_index=True)
    current = extract.batches_by_length
    ratios = []
    for _ in range(args.repeats):
        extract.batches_by_length = padded_batches
        start = time.process_time()
        for test, frame in frames.items():
            encoder.encode({test: frame})
        baseline = time.process_time() - start
        extract.batches_by_length = current
        start = time.process_time()
        encoder.encode(frames)
        together = time.process_time() - start
        ratios.append(baseline / together)
        print(
            f"{args.model} {args.source}, {len(tests)} tests, {sum(map(len, frames.values()))} "
            f"contexts: alone and padded {baseline:.1f} CPU-s, together {together:.1f} CPU-s, "
            f"ratio {baseline / together:.2f}",
            flush=True,
        )
    print(f"median ratio {statistics.median(ratios):.2f} over {len(ratios)} repeats")


if __name__ == "__main__":
    main()
