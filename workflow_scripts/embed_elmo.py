"""Adapter: rule embed_elmo -> biasbench.models.elmo.pool + biasbench.models.extract."""

import json

import pandas as pd

from biasbench.data.contexts import check_contexts
from biasbench.io import read_json, read_tsv
from biasbench.jobs import start_job
from biasbench.models.elmo import pool, read_layers, single_token_stimuli
from biasbench.models.extract import split_rows, write_embeddings
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
start_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
frames = {}
for descriptor, path in zip(sm.params.descriptors, sm.input.contexts, strict=True):
    frames[descriptor] = read_tsv(path)
    check_contexts(
        frames[descriptor], path, allow_empty=sm.wildcards.source not in ("templates", "words")
    )
contexts = pd.concat(frames.values(), ignore_index=True)
tokens = read_json(sm.input.tokens)
layers = read_layers(sm.input.layers)
arrays = pool(contexts, tokens["sentences"], tokens["offsets"], layers, spec.layer)
provenance = read_json(sm.input.model)
attrs = {
    "model": spec.name,
    "model_source": provenance["source"],
    "revision": spec.revision or "",
    "layer": "sum of the 3 layers" if spec.layer == -1 else spec.layer,
    "context_source": sm.wildcards.source,
    "test": sm.wildcards.test,
    "is_decoder": False,
    "single_token_stimuli": json.dumps(single_token_stimuli(contexts["stimulus"])),
}
write_embeddings(sm.output[0], split_rows(frames, arrays), attrs)
