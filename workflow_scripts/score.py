"""Adapter: rule score -> biasbench.scoring.score_file."""

import json
from pathlib import Path

from biasbench.external import sha256_of
from biasbench.extract import read_embeddings
from biasbench.io import log_to, read_tsv, write_npz, write_tsv
from biasbench.models import ModelSpec
from biasbench.scoring import ScoreSettings, score_file
from biasbench.wordsets import WordSet

sm = snakemake  # noqa: F821
log_to(sm.log[0])
arrays, attrs = read_embeddings(sm.input.embeddings, sm.wildcards.descriptor)
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
in_vocabulary = None
if spec.kind == "transformer":  # CEAT on targets reduced to the model's vocabulary too
    in_vocabulary = set(json.loads(attrs["single_token_stimuli"])).__contains__
samples = {}
frame = score_file(
    read_tsv(sm.input.contexts),
    arrays,
    model=sm.wildcards.model,
    kind=spec.kind,
    is_decoder=bool(attrs["is_decoder"]),
    source=sm.wildcards.source,
    test=sm.wildcards.test,
    descriptor=sm.wildcards.descriptor,
    settings=settings,
    signature=sha256_of(sm.input.contexts)[:12],
    expected=WordSet.from_json(Path(sm.input.wordset).read_text(encoding="utf-8")).sets,
    in_vocabulary=in_vocabulary,
    samples=samples,
)
write_tsv(sm.output.scores, frame)
write_npz(sm.output.samples, samples)
