"""Adapter: rule groundtruth_models -> biasbench.studies.groundtruth."""

import json
from pathlib import Path

import torch
from safetensors.torch import save_file

from biasbench.io import atomic_path, log_to, write_text
from biasbench.studies.groundtruth import StudySettings, grid, load_states, read_data, run_grid

sm = snakemake  # noqa: F821
log_to(sm.log[0])
torch.set_num_threads(sm.threads)
i = sm.input
study = sm.params.study
settings = StudySettings(
    trainable=study["trainable_layers"],
    epochs=study["epochs"],
    batch=study["batch"],
    learning_rate=study["learning_rate"],
    test_share=study["test_share"],
    r2_threshold=study["r2_threshold"],
    seed=sm.params.seed,
)
records, weights = run_grid(
    str(Path(i.model).parent),
    read_data(i.occupations, i.train, i.test, i.pairs, i.professions),
    grid([float(sm.wildcards.mu)], study["sigma"], study["repeats"]),
    settings,
    load_states(i.states),
)
with atomic_path(sm.output.weights) as tmp:
    save_file({k: v.contiguous() for k, v in weights.items()}, str(tmp))
write_text(sm.output.records, json.dumps({"settings": study, "models": records}) + "\n")
