"""Adapter: rule lpbs_templates -> biasbench.models.logprobs + biasbench.scoring.score (the
scores and the templates' log-probabilities)."""

from functools import partial

from biasbench import paths
from biasbench.data.templates import load_double_templates
from biasbench.data.wordsets import LpbsSpec, check_distinct_after, read_wordset_files
from biasbench.io import read_sealed, signature_of, write_npz, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.load import (
    load_language_model,
    stimulus_normaliser,
    tokenizer_vocabulary_test,
)
from biasbench.models.logprobs.causal import causal_log_probs
from biasbench.models.logprobs.common import naming_too_long
from biasbench.models.logprobs.masked import mlm_log_probs
from biasbench.scoring import TemplateProbabilities, score
from biasbench.scoring.settings import ScoreSettings

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
probabilities = TemplateProbabilities(
    log_probs=log_probs,
    in_vocabulary=tokenizer_vocabulary_test(tokenizer),
    wordsets=wordsets,
    spec=LpbsSpec.from_json(read_sealed(sm.input.spec)),
    templates=load_double_templates(sm.input.templates, paths.external),
    encoding="mlm" if masked else "causal",
)
with naming_too_long(
    f"LPBS templates {sm.input.templates} on {spec.name}",
    "Use shorter templates or a model with a longer context",
):
    frame = score(
        probabilities,
        model=spec.name,
        settings=ScoreSettings(seed=sm.params.seed, **sm.params.scoring),
        signature=signature_of(
            [
                sm.input.spec,
                *sm.input.wordsets,
                sm.input.templates,
                *sm.input.external,
                sm.input.model,
            ]
        ),
    )
write_tsv(sm.output.scores, frame)
write_npz(sm.output.logprobs, probabilities.arrays)
