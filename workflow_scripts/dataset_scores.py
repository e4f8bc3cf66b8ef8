"""Adapter: rule dataset_scores -> biasbench.models.logprobs.Engine +
biasbench.scoring.dataset_stage."""

from biasbench.io import signature_of, write_json, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.scoring.dataset_stage import score_dataset
from biasbench.scoring.settings import ScoreSettings

sm = snakemake  # noqa: F821
start_job(sm)
spec, model, tokenizer, masked = load_job_model(sm, load_language_model)
frame, coverage, outcomes = score_dataset(
    Engine(model, tokenizer, masked, batch=sm.params.batch),
    sm.wildcards.dataset,
    dict(sm.params.files),
    sm.params.limit,
    model=spec.name,
    settings=ScoreSettings(seed=sm.params.seed, **sm.params.scoring),
    signature=signature_of([*sm.input.files, sm.input.model], f"limit:{sm.params.limit}"),
    too_long=sm.params.too_long,
)
write_tsv(sm.output.scores, frame)
write_tsv(sm.output.outcomes, outcomes)
write_json(sm.output.coverage, coverage, sort_keys=True)
