"""Adapter: rule null_calibration -> biasbench.studies.null_calibration."""

import sys
from pathlib import Path

from biasbench import paths
from biasbench.data.datasets import dataset_items
from biasbench.data.designs import check_designs, design_seed, word_pool
from biasbench.data.templates import load_double_templates
from biasbench.data.wordsets import LpbsSpec, read_wordset_files
from biasbench.io import read_sealed, read_tsv, signature_of, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import start_model_job
from biasbench.models.load import load_static, stimulus_normaliser
from biasbench.models.specs import ModelSpec
from biasbench.rows import sort_rows
from biasbench.scoring.corpus import pair_contexts
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies import null_calibration as nc
from biasbench.studies.generated import draw_design

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
prepared = Path(sm.input.model).parent
settings = nc.capped(ScoreSettings(seed=sm.params.seed, **sm.params.scoring), sm.params.partitions)
tests = nc.read_tests(
    {t: {d: tuple(pair) for d, pair in ds.items()} for t, ds in sm.params.tests.items()},
    signature_of([sm.input.model]),
)
log = lambda line: print(line, file=sys.stderr)  # noqa: E731
stimuli = [
    s for ws in read_wordset_files(sm.input.pool) for words in ws.sets.values() for s in words
]
seed_of_designs = design_seed(sm.params.seed, spec.name)
designs_field = f"null_calibration.models.{spec.name}.designs"  # where it is set for this model
shared = {"settings": settings, "seed": sm.params.seed, "log": log}  # every kind of base
if spec.kind == "static":
    vectors = load_static(prepared, spec)
    pool = word_pool(
        stimuli,
        lambda word: vectors.lookup(word) is not None,
        stimulus_normaliser(spec),
    )
    what = "the single words of the word sets of config: tests in the model's vocabulary"
    check_designs(len(pool), sm.params.designs, seed_of_designs, designs_field, what)
    designs = [draw_design(pool, i, seed_of_designs) for i in range(sm.params.designs)]
    frame = nc.static_null_rows(spec, vectors, sm.params.seeds, tests, designs=designs, **shared)
else:
    from biasbench.models.null import Architecture
    from biasbench.models.word_pieces import word_pieces

    architecture = Architecture.of(spec, prepared)
    pool = word_pool(stimuli, normalise=stimulus_normaliser(spec, architecture.tokenizer))
    pieces = {w: word_pieces(architecture.tokenizer, w, 0, len(w)) for w in pool}
    what = "the single words of the word sets of config: tests, one per form its tokenizer reads"
    check_designs(len(pool), sm.params.designs, seed_of_designs, designs_field, what)
    designs = [draw_design(pool, i, seed_of_designs, pieces) for i in range(sm.params.designs)]

    lpbs = {}
    if sm.params.lpbs:
        pairs = {c: read_tsv(path) for c, path in sm.params.pairs.items()}
        templates = load_double_templates(sm.input.templates, paths.external)
        for test, files in sm.params.lpbs.items():
            spec_file = paths.LPBS_SPEC.format(test=test)
            wordsets = {ws.descriptor: ws for ws in read_wordset_files(files)}
            lpbs[test] = nc.LpbsInputs(
                wordsets,
                LpbsSpec.from_json(read_sealed(spec_file)),
                templates,
                signature_of(
                    [spec_file, *files, sm.input.templates, *sm.input.external, *sm.input.pairs]
                ),
                {c: pair_contexts(pairs[c], wordsets) for c in pairs},
            )
    datasets = {}
    for dataset, entry in sm.params.datasets.items():
        files = {role: list(paths) for role, paths in entry["files"].items()}
        items, _coverage = dataset_items(dataset, files, entry["limit"], sm.params.seed)
        datasets[dataset] = nc.DatasetInputs(
            items,
            signature_of([f for fs in files.values() for f in fs], f"limit:{entry['limit']}"),
        )
    frame = nc.transformer_null_rows(
        spec,
        architecture,
        sm.params.seeds,
        tests,
        extraction=dict(sm.params.extraction),
        lpbs=lpbs,
        datasets=datasets,
        batch=sm.params.batch,
        lpbs_batch=sm.params.lpbs_batch,
        max_gap=sm.params.max_gap,
        **compute,
        designs=designs,
        **shared,
    )
write_tsv(sm.output[0], sort_rows(frame))
