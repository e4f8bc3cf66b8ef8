"""Adapter: rule groundtruth_models -> biasbench.studies.groundtruth."""

import json
from pathlib import Path

import torch
import yaml
from safetensors.torch import save_file

from biasbench.io import atomic_path, log_to, write_text
from biasbench.studies.groundtruth import StudySettings, grid, load_data, run_grid

sm = snakemake  # noqa: F821
log_to(sm.log[0])
torch.set_num_threads(sm.threads)


def read(path):
    text = Path(path).read_text(encoding="utf-8")
    return yaml.safe_load(text) if path.endswith(".yaml") else json.loads(text)


study = sm.params.study
data = load_data(
    read(sm.input.occupations)["words"],
    read(sm.input.train),
    read(sm.input.test),
    read(sm.input.pairs),
    read(sm.input.professions),
)
settings = StudySettings(
    trainable=study["trainable_layers"],
    epochs=study["epochs"],
    batch=study["batch"],
    learning_rate=study["learning_rate"],
    test_share=study["test_share"],
    r2_threshold=study["r2_threshold"],
    seed=sm.params.seed,
)
models = grid([float(sm.wildcards.mu)], study["sigma"], study["repeats"])
records, weights = run_grid(str(Path(sm.input.model).parent), data, models, settings)
with atomic_path(sm.output.weights) as tmp:
    save_file({k: v.contiguous() for k, v in weights.items()}, str(tmp))
write_text(sm.output.records, json.dumps({"settings": study, "models": records}) + "\n")
