"""Adapter: rule null_calibration -> biasbench.studies.null_calibration."""

import sys
from pathlib import Path

from biasbench import paths
from biasbench.data.datasets import DATASETS, dataset_items, disjoint_samples, limited
from biasbench.data.designs import design_seed
from biasbench.data.templates import load_double_templates
from biasbench.data.wordsets import LpbsSpec, read_wordset_files
from biasbench.io import read_sealed, read_tsv, signature_of, write_tsv
from biasbench.jobs import map_large_buffers, start_job
from biasbench.models.device import start_model_job
from biasbench.models.load import load_static
from biasbench.models.specs import ModelSpec
from biasbench.rows import sort_rows
from biasbench.scoring.corpus import pair_contexts
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies import null_calibration as nc
from biasbench.studies.generated import draw_designs, lexicon

sm = snakemake  # noqa: F821
start_job(sm)
map_large_buffers()  # a random copy per design, built and freed
compute = start_model_job(sm)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
prepared = Path(sm.input.model).parent
settings = nc.capped(ScoreSettings(seed=sm.params.seed, **sm.params.scoring), sm.params.partitions)
tests = nc.read_tests(
    {t: {d: tuple(pair) for d, pair in ds.items()} for t, ds in sm.params.tests.items()},
    signature_of([sm.input.model]),
)
log = lambda line: print(line, file=sys.stderr)  # noqa: E731
seed_of_designs = design_seed(sm.params.seed, spec.name)
shared = {"settings": settings, "seed": sm.params.seed, "log": log}  # every kind of base
words = []
if sm.params.lexicon:  # the generated designs' lexicon: a static model's vocabulary
    entry = dict(sm.params.lexicon)
    lexicon_spec = ModelSpec.from_config(entry.pop("name"), entry)
    vocabulary = load_static(Path(sm.input.pool[0]).parent, lexicon_spec).words
    words = lexicon(vocabulary)
if spec.kind == "static":
    vectors = load_static(prepared, spec)
    words = [w for w in words if vectors.lookup(w) is not None]
    designs = draw_designs(words, sm.params.designs, seed_of_designs)
    frame = nc.static_null_rows(spec, vectors, sm.params.seeds, tests, designs=designs, **shared)
else:
    from biasbench.models.null import Architecture
    from biasbench.models.word_pieces import bare_word_pieces

    architecture = Architecture.of(spec, prepared)
    pieces = bare_word_pieces(architecture.tokenizer, words) if sm.params.designs else {}
    words = [w for w in words if w in pieces]  # those the tokenizer reads without [UNK]
    designs = draw_designs(words, sm.params.designs, seed_of_designs, pieces)

    lpbs = {}
    if sm.params.lpbs or sm.params.lpbs_designs:
        templates = load_double_templates(sm.input.templates, paths.external)
    if sm.params.lpbs:
        pairs = {c: read_tsv(path) for c, path in sm.params.pairs.items()}
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
    every_item = {}  # a data set's items, read once for its seeded sample and its designs
    for dataset, entry in (sm.params.datasets | sm.params.item_designs).items():
        files = {role: list(paths) for role, paths in entry["files"].items()}
        every_item[dataset] = (dataset_items(dataset, files, None, sm.params.seed)[0], files)
    datasets = {}
    for dataset, entry in sm.params.datasets.items():
        items, files = every_item[dataset]
        datasets[dataset] = nc.DatasetInputs(
            limited(dataset, items, entry["limit"], sm.params.seed),
            signature_of([f for fs in files.values() for f in fs], f"limit:{entry['limit']}"),
        )
    item_designs = {}
    for dataset, entry in sm.params.item_designs.items():
        items, files = every_item[dataset]
        samples = disjoint_samples(
            items,
            entry["designs"],
            entry["items"],
            sm.params.seed,
            dataset,
            DATASETS[dataset].unit,
            entry["field"],
        )
        digest = signature_of([f for fs in files.values() for f in fs], f"items:{entry['items']}")
        item_designs[dataset] = [nc.DatasetInputs(sample, digest) for sample in samples]
    frame = nc.transformer_null_rows(
        spec,
        architecture,
        sm.params.seeds,
        tests,
        extraction=dict(sm.params.extraction),
        lpbs=lpbs,
        datasets=datasets,
        item_designs=item_designs,
        batch=sm.params.batch,
        lpbs_batch=sm.params.lpbs_batch,
        max_gap=sm.params.max_gap,
        **compute,
        designs=designs,
        lpbs_designs=nc.GeneratedLpbs(
            sm.params.lpbs_designs, templates, next(iter(templates.categories))
        )
        if sm.params.lpbs_designs
        else None,
        **shared,
    )
write_tsv(sm.output[0], sort_rows(frame))
