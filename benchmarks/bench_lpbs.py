"""Causal-LM LPBS on double-slot templates: the pipeline's scorer vs scoring every sentence
whole, measured in one run on one thread (the workflow's LPBS jobs run single-threaded).

Baseline: each template sentence and each prefix is run through the model's own forward
pass (batches of 64 sorted by length, right-padded) and its token log-probabilities summed
from the full log-softmax, the plain way to compute eq. 10's inputs. The pipeline
(``biasbench.lpbs.causal_log_probs``) runs each prefix once, reuses its key/value cache for
every attribute continuation and applies the output head only where a token is scored.
Both give (log p_t, log p_p) for the same targets x attributes; their largest difference is
printed beside the timings (medians of --runs).

With ``--contexts results/corpus/<corpus>/<case>/pairs.tsv`` it also times probability-based
CEAT's model work on --n sampled corpus contexts (each text scored with and without its
attribute): the cost that decides which models and corpora the default config runs it on.

Needs the prepared models: `snakemake --cores 2 results/models/<model>/biasbench_model.json
results/wordsets/Dis/terms.json results/external/husse_templates_double` first.

Usage: python benchmarks/bench_lpbs.py [--models smollm2-135m gemma3-270m] [--test Dis]
           [--descriptor terms] [--targets 2] [--runs 3] [--contexts PAIRS_TSV --n 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial
from pathlib import Path

import numpy as np
import torch
import yaml

from biasbench.config import validate_config
from biasbench.data.templates import load_double_templates, split_double_template
from biasbench.data.wordsets import read_wordset_files
from biasbench.io import read_tsv
from biasbench.models.load import load_language_model
from biasbench.models.logprobs.causal import causal_context_log_probs, causal_ids, causal_log_probs
from biasbench.models.logprobs.common import pad_id, padded
from biasbench.models.specs import ModelSpec

ROOT = Path(__file__).resolve().parents[1]


def whole_sentence_log_probs(model, tokenizer, sentences: list[str], batch: int = 64):
    """log P(sentence), every token after the start token, from the model's full logits."""
    pad = pad_id(tokenizer)
    ids = causal_ids(tokenizer, sentences)
    order = np.argsort([len(i) for i in ids], kind="stable")
    out = np.zeros(len(sentences))
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        tokens, mask = padded([ids[i] for i in rows], pad, left=False)
        with torch.inference_mode():
            logp = torch.log_softmax(model(input_ids=tokens, attention_mask=mask).logits, -1)
        token_lp = logp[:, :-1].gather(2, tokens[:, 1:, None])[:, :, 0]
        out[rows] = (token_lp * mask[:, 1:]).sum(1).double().numpy()
    return out


def baseline(model, tokenizer, template, targets, attributes):
    head, middle, tail = template
    prefix = [(head + t + middle).rstrip() for t in targets]
    log_pp = whole_sentence_log_probs(model, tokenizer, prefix)
    sentences = [head + t + middle + a + tail for a in attributes for t in targets]
    log_pt = whole_sentence_log_probs(model, tokenizer, sentences)
    shape = (len(attributes), len(targets))
    return log_pt.reshape(shape), np.broadcast_to(log_pp, shape).copy()


def timed(fn, runs: int):
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["smollm2-135m", "gemma3-270m"])
    parser.add_argument("--test", default="Dis")
    parser.add_argument("--descriptor", default="terms")
    parser.add_argument("--targets", type=int, default=2, help="targets per set (X and Y)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--contexts", help="a pairs.tsv of the sample_pairs stage")
    parser.add_argument("--n", type=int, default=200, help="contexts sampled from --contexts")
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = validate_config(
        yaml.safe_load((ROOT / "config.yaml").read_text()), ROOT / "config/schema.yaml"
    )
    results = ROOT / "results"
    (wordset,) = read_wordset_files([results / f"wordsets/{args.test}/{args.descriptor}.json"])
    targets = list(wordset.sets["X"][: args.targets]) + list(wordset.sets["Y"][: args.targets])
    attributes = list(wordset.sets["A"]) + list(wordset.sets["B"])
    templates = load_double_templates(
        ROOT / "resources/templates/husse2022_double.yaml", lambda i: results / "external" / i
    )
    text = templates.categories["basic"][0][0]
    template = split_double_template(text, templates.target_slot, templates.attribute_slot)
    n = len(targets) * len(attributes)
    print(f"{args.test}/{args.descriptor}: {len(targets)} targets x {len(attributes)} attributes")
    print(f"= {n} sentences, template {text!r}, one thread, median of {args.runs} runs")
    for name in args.models:
        spec = ModelSpec.from_config(name, config["models"][name])
        model, tokenizer, masked = load_language_model(spec, results / "models" / name)
        assert not masked, f"{name} is a masked LM"
        inputs = (model, tokenizer, template, targets, attributes)
        t_base, (base_t, base_p) = timed(partial(baseline, *inputs), args.runs)
        t_ours, (ours_t, ours_p) = timed(partial(causal_log_probs, *inputs), args.runs)
        diff = max(np.abs(base_t - ours_t).max(), np.abs(base_p - ours_p).max())
        print(
            f"{name}: whole sentences {n / t_base:.1f} sent/s ({t_base:.1f} s), "
            f"pipeline {n / t_ours:.1f} sent/s ({t_ours:.1f} s): {t_base / t_ours:.2f}x; "
            f"max |diff| {diff:.1e}"
        )
        if args.contexts:
            pairs = read_tsv(args.contexts).sample(args.n, random_state=0)
            spans = [
                list(zip(pairs[f"{r}_start"], pairs[f"{r}_end"], strict=True))
                for r in ("target", "attribute")
            ]
            texts = pairs["context"].tolist()
            t_ctx, _ = timed(
                partial(causal_context_log_probs, model, tokenizer, texts, *spans), args.runs
            )
            tokens = sum(map(len, tokenizer(texts)["input_ids"])) / len(texts)
            print(
                f"{name}: p-CEAT {1000 * t_ctx / len(texts):.0f} ms per context "
                f"({tokens:.1f} tokens, {len(texts)} contexts of {args.contexts})"
            )


if __name__ == "__main__":
    main()
