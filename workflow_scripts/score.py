"""Adapter: rule score -> biasbench.scoring.score, per descriptor of the embeddings file."""

import json

import pandas as pd

from biasbench.data.wordsets import WordSet, merged_notes
from biasbench.io import read_sealed, read_tsv, signature_of, write_npz, write_tsv
from biasbench.jobs import start_job
from biasbench.models.extract import read_embeddings, stimulus_notes_of
from biasbench.models.specs import ModelSpec
from biasbench.scoring import EncodedContexts, score
from biasbench.scoring.settings import ScoreSettings

sm = snakemake  # noqa: F821
start_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring)
samples = {}
frames = []
for descriptor, contexts, wordset in zip(
    sm.params.descriptors, sm.input.contexts, sm.input.wordsets, strict=True
):
    arrays, attrs, checksum = read_embeddings(sm.input.embeddings, descriptor)
    words = WordSet.from_json(read_sealed(wordset))
    single_token = None
    if spec.kind != "static":  # the reduced variants keep the targets that are one token
        single_token = set(json.loads(attrs["single_token_stimuli"]))
    encoded = EncodedContexts(
        contexts=read_tsv(contexts),
        arrays=arrays,
        kind=spec.kind,
        is_decoder=bool(attrs["is_decoder"]),
        source=sm.wildcards.source,
        test=sm.wildcards.test,
        descriptor=descriptor,
        expected=words.sets,
        pairs=list(zip(words.sets["A"], words.sets["B"], strict=True)) if words.paired else None,
        single_token=single_token,
        # what is suspect in a stimulus's vector (static vectors: a word listed twice, an
        # all-zero vector), where the embeddings file records any, and in its spelling (a
        # Unicode form the word set's file wrote otherwise than NFC)
        stimulus_notes=merged_notes(stimulus_notes_of(attrs), words.notes),
        samples=samples,
    )
    signature = signature_of([contexts], checksum)
    frames.append(score(encoded, model=spec.name, settings=settings, signature=signature))
write_tsv(sm.output.scores, pd.concat(frames, ignore_index=True))
write_npz(sm.output.samples, samples)
