"""Adapter: rule lpbs_templates -> biasbench.lpbs_scoring.lpbs_rows."""

from functools import partial
from pathlib import Path

import torch

from biasbench.io import log_to, write_tsv
from biasbench.lpbs import causal_log_probs, mlm_log_probs
from biasbench.lpbs_scoring import load_double_templates, lpbs_rows, tokenizer_vocabulary_test
from biasbench.models import ModelSpec, load_language_model
from biasbench.wordsets import LpbsSpec, read_wordset_files

sm = snakemake  # noqa: F821
log_to(sm.log[0])
torch.set_num_threads(sm.threads)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
model, tokenizer, masked = load_language_model(spec, Path(sm.input.model).parent)
if masked:
    log_probs = partial(mlm_log_probs, model, tokenizer)
else:
    log_probs = partial(causal_log_probs, model, tokenizer, batch=sm.params.batch)
wordsets = {ws.descriptor: ws for ws in read_wordset_files(sm.input.wordsets)}
frame = lpbs_rows(
    log_probs,
    tokenizer_vocabulary_test(tokenizer),
    wordsets,
    LpbsSpec.from_json(Path(sm.input.spec).read_text(encoding="utf-8")),
    load_double_templates(sm.input.templates, lambda i: Path("results/external") / i),
    model=spec.name,
    exact_max=sm.params.scoring["exact_max"],
    n_samples=sm.params.scoring["n_samples"],
    seed=sm.params.seed,
)
write_tsv(sm.output[0], frame)
