"""Adapter: rule divdist_generate -> biasbench.models.generate.sample_texts."""

import pandas as pd

from biasbench.io import write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.generate import sample_texts
from biasbench.models.load import load_language_model
from biasbench.stats import derived_seed

sm = snakemake  # noqa: F821
start_job(sm)
_spec, model, tokenizer, masked = load_job_model(sm, load_language_model)
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
