"""Adapter: rule lpbs_templates -> biasbench.models.logprobs + biasbench.scoring.templates."""

from functools import partial

from biasbench import paths
from biasbench.data.templates import load_double_templates
from biasbench.data.wordsets import LpbsSpec, check_distinct_after, read_wordset_files
from biasbench.io import read_sealed, signature_of, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.load import (
    load_language_model,
    stimulus_normaliser,
    tokenizer_vocabulary_test,
)
from biasbench.models.logprobs.causal import causal_log_probs
from biasbench.models.logprobs.masked import mlm_log_probs
from biasbench.scoring.settings import ScoreSettings
from biasbench.scoring.templates import lpbs_rows

sm = snakemake  # noqa: F821
start_job(sm)
spec, model, tokenizer, masked = load_job_model(sm, load_language_model)
if masked:
    log_probs = partial(mlm_log_probs, model, tokenizer)
else:
    log_probs = partial(causal_log_probs, model, tokenizer, batch=sm.params.batch)
wordsets = {ws.descriptor: ws for ws in read_wordset_files(sm.input.wordsets)}
for ws in wordsets.values():  # stimuli the model cannot tell apart fail before any scoring
    check_distinct_after(
        ws.sets, stimulus_normaliser(spec, tokenizer), f"{ws.test}/{ws.descriptor}"
    )
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring).for_source("templates")
frame = lpbs_rows(
    log_probs,
    tokenizer_vocabulary_test(tokenizer),
    wordsets,
    LpbsSpec.from_json(read_sealed(sm.input.spec)),
    load_double_templates(sm.input.templates, paths.external),
    model=spec.name,
    encoding="mlm" if masked else "causal",
    settings=settings,
    seed=sm.params.seed,
    signature=signature_of(
        [sm.input.spec, *sm.input.wordsets, sm.input.templates, *sm.input.external, sm.input.model]
    ),
)
write_tsv(sm.output[0], frame)
