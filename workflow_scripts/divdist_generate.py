"""Adapter: rule divdist_generate -> biasbench.models.generate.sample_texts."""

import sys
from pathlib import Path

import pandas as pd

from biasbench.io import write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import describe, resolve_device, set_threads
from biasbench.models.generate import sample_texts
from biasbench.models.load import load_language_model
from biasbench.models.specs import ModelSpec
from biasbench.stats import derived_seed

sm = snakemake  # noqa: F821
start_job(sm)
set_threads(resolve_device(sm.params.device), sm.threads)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
model, tokenizer, masked = load_language_model(
    spec, Path(sm.input.model).parent, device=sm.params.device, dtype=sm.params.dtype
)
print(f"model: {describe(model)}", file=sys.stderr)
if masked:
    raise ValueError(
        f"divdist_generate: {sm.wildcards.model} is a masked LM; sampling needs a causal LM"
    )
g = sm.params.generation
texts = sample_texts(
    model,
    tokenizer,
    g["samples"],
    g["tokens"],
    temperature=g["temperature"],
    seed=derived_seed(sm.params.seed, "divdist_generate", sm.wildcards.model),
    batch=g["batch"],
)
write_tsv(sm.output[0], pd.DataFrame({"text": texts}))
