"""Every CrowS-Pairs sentence on a causal LM, scored by the engine and by a plain
transcription of the sentence likelihood (one unpadded forward pass of [start token] +
tokens, log-softmax in float64, every token summed): the largest difference per sentence and
the pair preferences that flip between the two. Prints; asserts nothing.

    .venv/bin/python benchmarks/check_causal_reference.py --model smollm2-135m
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
import yaml

from biasbench.config import model_entry
from biasbench.data.pairsets import read_crows_pairs
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.models.logprobs.causal import causal_ids
from biasbench.models.specs import ModelSpec
from biasbench.plan import resolve_files

ROOT = Path(__file__).resolve().parents[1]


def plain(model, tokenizer, text: str) -> float:
    ids = torch.tensor(causal_ids(tokenizer, [text]))
    with torch.inference_mode():
        logp = torch.log_softmax(model(input_ids=ids).logits[0, :-1].double(), -1)
    return float(logp[torch.arange(ids.shape[1] - 1), ids[0, 1:]].sum())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--results", type=Path, default=ROOT / "results")
    parser.add_argument("--pairs", type=int, default=None, help="the first N pairs only")
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    entry = {k: v for k, v in config["models"][args.model].items() if k != "tests"}
    spec = ModelSpec.from_config(args.model, model_entry(**entry))
    model, tokenizer, masked = load_language_model(spec, args.results / "models" / args.model)
    assert not masked, "a causal LM"
    data = config["datasets"]["files"]["crows_pairs"]["data"]
    pairs = read_crows_pairs(resolve_files([data], "check")[0])[: args.pairs]
    sentences = [p.more for p in pairs] + [p.less for p in pairs]
    _, tokens = Engine(model, tokenizer, False, batch=64).sentence_tokens(sentences)
    ours = np.array([t.sum() for t in tokens])
    theirs = np.array([plain(model, tokenizer, s) for s in sentences])
    n = len(pairs)
    flips = int(((ours[:n] > ours[n:]) != (theirs[:n] > theirs[n:])).sum())
    diff = np.abs(ours - theirs)
    print(
        f"{args.model}: {n} pairs, {len(sentences)} sentences; |engine - plain| per sentence: "
        f"median {np.median(diff):.2e}, max {diff.max():.2e} nats; preferences that flip: {flips}"
    )


if __name__ == "__main__":
    main()
