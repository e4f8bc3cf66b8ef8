"""Adapter: rule groundtruth_models -> biasbench.studies.groundtruth.models.run_grid."""

from pathlib import Path

from biasbench.io import save_tensors, write_json
from biasbench.jobs import start_job
from biasbench.models.device import start_model_job
from biasbench.studies.groundtruth.data import StudySettings, design_points, read_data
from biasbench.studies.groundtruth.models import run_grid
from biasbench.studies.groundtruth.states import load_states

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
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
    design_points(study, float(sm.wildcards.mu), sm.params.seed),
    settings,
    load_states(i.states),
    retest=study["retest"],
    **compute,
)
save_tensors(sm.output.weights, weights)
write_json(sm.output.records, {"settings": study, "models": records})
