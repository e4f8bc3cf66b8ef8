"""Time per model of the ground-truth study: the pipeline (frozen lower layers computed once, the
top layer trained at the pronoun slot) against a plain fine-tune of the whole masked LM with
the loss at the slot, in one run, on the same data and settings.

The plain fine-tune is timed over ``--plain-steps`` steps and extrapolated to the epochs of
the study (it would take the better part of an hour per model on this machine); the pipeline
runs whole models. Needs the masked LM the workflow trains:

    .venv/bin/snakemake --cores 2 results/models/minilm-l6+mlm-head/biasbench_model.json
    BIAS_DATA_MIRROR=../shared/external .venv/bin/python benchmarks/bench_groundtruth.py
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from biasbench.data.external import fetch, load_manifest
from biasbench.studies.groundtruth.data import (
    PRONOUNS,
    StudyData,
    StudySettings,
    draw_labels,
    fill,
    grid,
    male_probabilities,
    read_data,
)
from biasbench.studies.groundtruth.models import run_grid
from biasbench.studies.groundtruth.states import load_study_lm, study_states

ROOT = Path(__file__).resolve().parents[1]


def study_data(results: Path) -> StudyData:
    manifest = load_manifest(ROOT / "resources/external.yaml")
    files = {}
    for key in ("debiaswe_definitional_pairs", "debiaswe_professions"):
        files[key] = results / "external" / key
        if not files[key].exists():
            fetch(manifest[key], files[key])
    resources = ROOT / "resources"
    return read_data(
        str(resources / "lists/schroeder2021_occupations.yaml"),
        str(resources / "templates/schroeder2021_train.yaml"),
        str(resources / "templates/schroeder2021_test.yaml"),
        str(files["debiaswe_definitional_pairs"]),
        str(files["debiaswe_professions"]),
    )


def plain_step_seconds(model_dir: str, data: StudyData, settings: StudySettings, steps: int):
    """Seconds per step of fine-tuning the whole masked LM, loss at the slot (full vocabulary)."""
    from transformers import AutoTokenizer, BertForMaskedLM

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = BertForMaskedLM.from_pretrained(model_dir).train()
    train = fill(data.occupations, data.train, data.slot, data.mask, tokenizer.mask_token)
    p = male_probabilities(data.stereotype, 0.5, 0.2, 0.0, 0, settings.seed)
    male, fit, _ = draw_labels(p, train, 0.5, 0.2, 0.0, 0, settings)
    pronouns = [w for pair in PRONOUNS.values() for w in pair]
    ids = torch.tensor(tokenizer.convert_tokens_to_ids(pronouns))
    target = ids[torch.as_tensor(train.kind * 2 + (~male).astype(int))]
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    rng = np.random.default_rng(0)
    times = []
    for _ in range(steps):
        batch = rng.choice(fit, settings.batch, replace=False)
        enc = tokenizer([train.texts[i] for i in batch], return_tensors="pt", padding=True)
        start = time.perf_counter()
        logits = model(**enc).logits
        at_slot = logits[enc["input_ids"] == tokenizer.mask_token_id]
        loss = torch.nn.functional.cross_entropy(at_slot, target[batch])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        times.append(time.perf_counter() - start)
    steps_per_model = settings.epochs * int(np.ceil(len(fit) / settings.batch))
    return statistics.median(times), steps_per_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=ROOT / "results")
    parser.add_argument("--model", default="minilm-l6+mlm-head")
    parser.add_argument("--models", type=int, default=3, help="pipeline models timed")
    parser.add_argument("--plain-steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model_dir = str(args.results / "models" / args.model)
    data = study_data(args.results)
    settings = StudySettings()
    model, tokenizer = load_study_lm(model_dir)
    start = time.perf_counter()
    states = study_states(model, tokenizer, data, settings.trainable)
    setup = time.perf_counter() - start
    times = []
    for one in grid([0.5], [0.2], args.models):  # each with loading the masked LM (~1 s)
        start = time.perf_counter()
        run_grid(model_dir, data, [one], settings, states)
        times.append(time.perf_counter() - start)
    per_model = statistics.median(times)
    step, steps = plain_step_seconds(model_dir, data, settings, args.plain_steps)
    plain = step * steps
    print(f"{args.threads} thread(s), {settings.epochs} epochs of batch {settings.batch}")
    print(
        f"pipeline: {per_model:.1f} s per model (median of {args.models}); "
        f"frozen states once for the study: {setup:.1f} s"
    )
    print(
        f"plain fine-tune of the whole model: {step:.3f} s per step (median of "
        f"{args.plain_steps}) x {steps} steps = {plain:.0f} s per model (extrapolated)"
    )
    print(f"ratio: {plain / per_model:.1f}x")


if __name__ == "__main__":
    main()
