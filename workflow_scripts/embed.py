"""Adapter: rule embed -> biasbench.models (static lookup or transformer forward passes).

All descriptors of a test are encoded in one pass: the model loads once, and the attribute
sentences they share are encoded once.
"""

import json
from pathlib import Path

import pandas as pd

from biasbench.data.contexts import check_contexts
from biasbench.data.wordsets import check_distinct_after
from biasbench.io import read_json, read_tsv
from biasbench.jobs import start_job
from biasbench.models.extract import encode_static, encode_transformer, split_rows, write_embeddings
from biasbench.models.load import (
    corpus_normaliser,
    load_static,
    load_transformer,
    loaded_revision,
    stimulus_normaliser,
    tokenizer_vocabulary_test,
)
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
start_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
prepared = Path(sm.input.model).parent
frames = {}
for descriptor, path in zip(sm.params.descriptors, sm.input.contexts, strict=True):
    frames[descriptor] = read_tsv(path)
    check_contexts(
        frames[descriptor], path, allow_empty=sm.wildcards.source not in ("templates", "words")
    )
contexts = pd.concat(frames.values(), ignore_index=True)
provenance = read_json(sm.input.model)
attrs = {
    "model": spec.name,
    "model_source": provenance["source"],
    "weights_sha256": provenance["weights_sha256"],
    "revision": spec.revision or provenance.get("package_version") or "",
    "layer": spec.layer,
    "context_source": sm.wildcards.source,
    "test": sm.wildcards.test,
}


def check_stimuli(tokenizer=None):
    """Stimuli the model cannot tell apart fail the job before any encoding."""
    normalise = stimulus_normaliser(spec, tokenizer)
    if sm.wildcards.source not in ("templates", "words"):
        normalise = corpus_normaliser(normalise, spec.case)
    for descriptor, frame in frames.items():
        sets = {r: list(dict.fromkeys(g["stimulus"])) for r, g in frame.groupby("role", sort=False)}
        where = f"{sm.wildcards.test}/{descriptor} on {spec.name} ({sm.wildcards.source})"
        check_distinct_after(sets, normalise, where)


if spec.kind == "static":
    check_stimuli()
    arrays = encode_static(load_static(prepared, spec), contexts)
    attrs["is_decoder"] = False
else:
    import torch

    torch.set_num_threads(sm.threads)
    model, tokenizer, is_decoder = load_transformer(spec, prepared)
    attrs["revision"] = loaded_revision(spec, model) or attrs["revision"]
    check_stimuli(tokenizer)
    arrays = encode_transformer(
        model, tokenizer, contexts, layer=spec.layer, **sm.params.extraction
    )
    attrs["is_decoder"] = is_decoder
    # the stimuli the tokenizer keeps as one token (CEAT's reduced sets): recorded here so
    # that scoring never loads the tokenizer (importing transformers costs ~6 s per job)
    in_vocabulary = tokenizer_vocabulary_test(tokenizer)
    single = sorted(s for s in contexts["stimulus"].unique() if in_vocabulary(s))
    attrs["single_token_stimuli"] = json.dumps(single)
write_embeddings(sm.output[0], split_rows(frames, arrays), attrs)
