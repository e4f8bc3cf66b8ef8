"""Adapter: rule score_<model>_<source> -> biasbench.scoring.score, per descriptor of each
test's embeddings file, each test's files through the cache of per-test results."""

import json

import pandas as pd

from biasbench.data.wordsets import WordSet, merged_notes
from biasbench.io import read_sealed, read_tsv, signature_of, write_npz, write_tsv
from biasbench.jobs import start_job
from biasbench.models.extract import read_embeddings, stimulus_notes_of
from biasbench.models.specs import ModelSpec
from biasbench.scoring import EncodedContexts, score
from biasbench.scoring.settings import ScoreSettings
from biasbench.test_cache import job_works, run_job_tests

sm = snakemake  # noqa: F821
start_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring)


def compute(work, files):
    roles = sm.params.tests[work.test]
    (embeddings,) = roles["embeddings"]
    samples = {}
    frames = []
    for descriptor, contexts, wordset in zip(
        work.settings["descriptors"], roles["contexts"], roles["wordsets"], strict=True
    ):
        arrays, attrs, checksum = read_embeddings(embeddings, descriptor)
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
            test=work.test,
            descriptor=descriptor,
            expected=words.sets,
            pairs=list(zip(words.sets["A"], words.sets["B"], strict=True))
            if words.paired
            else None,
            single_token=single_token,
            # what is suspect in a stimulus's vector (static vectors: a word listed twice, an
            # all-zero vector), where the embeddings file records any, and in its spelling (a
            # Unicode form the word set's file wrote otherwise than NFC)
            stimulus_notes=merged_notes(stimulus_notes_of(attrs), words.notes),
            samples=samples,
        )
        signature = signature_of([contexts], checksum)
        frames.append(score(encoded, model=spec.name, settings=settings, signature=signature))
    write_tsv(files["scores"], pd.concat(frames, ignore_index=True))
    write_npz(files["samples"], samples)


run_job_tests(sm, job_works(sm, per_test=["descriptors"]), compute, "score.py")
