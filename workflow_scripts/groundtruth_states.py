"""Adapter: rule groundtruth_states -> biasbench.studies.groundtruth.states.study_states."""

from pathlib import Path

from biasbench.jobs import start_job
from biasbench.models.device import log_model, start_model_job
from biasbench.studies.groundtruth.data import read_data
from biasbench.studies.groundtruth.states import load_study_lm, save_states, study_states

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
i = sm.input
data = read_data(i.occupations, i.train, i.test, i.pairs, i.professions)
model, tokenizer = load_study_lm(str(Path(i.model).parent), **compute)
log_model(model)
save_states(sm.output[0], study_states(model, tokenizer, data, sm.params.study["trainable_layers"]))
