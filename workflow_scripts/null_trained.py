"""Adapter: rule null_trained -> biasbench.studies.null_calibration.trained_null_rows, of the
job's trained-weight null kind (biasbench.nulls)."""

import sys

import pandas as pd

from biasbench.io import signature_of, write_tsv
from biasbench.jobs import start_job
from biasbench.models.extract import read_embeddings
from biasbench.models.specs import ModelSpec
from biasbench.nulls import trained_null_kind
from biasbench.rows import sort_rows
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies import null_calibration as nc

sm = snakemake  # noqa: F821
start_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
settings = nc.capped(ScoreSettings(seed=sm.params.seed, **sm.params.scoring), sm.params.partitions)
frames = []
for (test, descriptors), embeddings in zip(
    sm.params.tests.items(), sm.input.embeddings, strict=True
):
    files = {d: tuple(pair) for d, pair in descriptors.items()}
    read = nc.read_tests({test: files})[test]
    arrays, checksums, is_decoder = {}, [], False
    for descriptor in files:
        arrays[descriptor], attrs, checksum = read_embeddings(embeddings, descriptor)
        checksums.append(checksum)
        is_decoder = bool(attrs["is_decoder"])
    inputs = nc.TrainedInputs(
        read.contexts,
        arrays,
        read.wordsets,
        is_decoder,
        signature_of([], read.signature, *checksums),
    )
    frames.append(
        nc.trained_null_rows(
            spec,
            test,
            inputs,
            sm.params.draws,
            source=sm.params.source,
            settings=settings,
            seed=sm.params.seed,
            kind=trained_null_kind(sm.wildcards.kind),
        )
    )
    print(f"{test}: {sm.params.draws} draws scored", file=sys.stderr)
write_tsv(sm.output[0], sort_rows(pd.concat(frames, ignore_index=True)))
