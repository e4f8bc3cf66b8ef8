"""Adapter: rule logprobs__<model> -> every log-probability measure of one model, the model
loaded once, for the first of them the cache of per-test results does not hold:

- each data set's rows, coverage and outcomes (biasbench.scoring.dataset_stage);
- LPBS on double-slot templates, test by test: its rows and the templates' log-probabilities
  (biasbench.scoring.score on TemplateProbabilities);
- p-CEAT, (corpus, test) by (corpus, test): its rows, window sweep, per-sample effect sizes
  and the contexts' log-probabilities (biasbench.scoring.score on PairContextProbabilities);
- what the studies read: the template study's KL (biasbench.studies.delobelle2022) and
  DivDist's generated text (biasbench.models.generate.sample_texts).

Each part records the settings that reach its numbers, so a change to one part's settings
recomputes that part alone."""

from functools import cache, partial

import pandas as pd

from biasbench import paths
from biasbench.config import read_yaml
from biasbench.data.templates import load_double_templates
from biasbench.data.wordsets import LpbsSpec, check_distinct_after, read_wordset_files
from biasbench.io import read_sealed, read_tsv, signature_of, write_json, write_npz, write_tsv
from biasbench.jobs import start_job
from biasbench.models.device import load_job_model
from biasbench.models.generate import sample_texts
from biasbench.models.load import (
    load_language_model,
    stimulus_normaliser,
    tokenizer_vocabulary_test,
)
from biasbench.models.logprobs import Engine
from biasbench.models.logprobs.causal import causal_context_log_probs, causal_log_probs
from biasbench.models.logprobs.common import naming_too_long
from biasbench.models.logprobs.masked import mlm_context_log_probs, mlm_log_probs
from biasbench.scoring import PairContextProbabilities, TemplateProbabilities, score
from biasbench.scoring.corpus import log_prob_arrays, pair_contexts, with_log_probs
from biasbench.scoring.dataset_stage import score_dataset
from biasbench.scoring.settings import ScoreSettings
from biasbench.stats import derived_seed
from biasbench.studies import delobelle2022
from biasbench.test_cache import job_works, run_job_study, run_job_tests

sm = snakemake  # noqa: F821
start_job(sm)
SCRIPT = "logprob_scores.py"
p = sm.params


@cache
def loaded():
    return load_job_model(sm, load_language_model)


def settings():
    return ScoreSettings(seed=p.seed, **p.scoring)


def dataset(work, files):
    spec, model, tokenizer, masked = loaded()
    roles = {r: f for r, f in p.tests[work.test].items() if r != "model"}
    limit = work.settings["limits"]
    frame, coverage, outcomes = score_dataset(
        Engine(model, tokenizer, masked, batch=p.batch),
        work.test,
        roles,
        limit,
        model=spec.name,
        settings=settings(),
        signature=signature_of(work.inputs, f"limit:{limit}"),
        too_long=p.too_long,
    )
    write_tsv(files["scores"], frame)
    write_tsv(files["outcomes"], outcomes)
    write_json(files["coverage"], coverage, sort_keys=True)


def lpbs_wordsets(roles, spec, tokenizer):
    """The test's word sets by descriptor; stimuli the model cannot tell apart fail here,
    before any scoring."""
    wordsets = {ws.descriptor: ws for ws in read_wordset_files(roles["wordsets"])}
    for ws in wordsets.values():
        check_distinct_after(
            ws.sets, stimulus_normaliser(spec, tokenizer), f"{ws.test}/{ws.descriptor}"
        )
    return wordsets


def lpbs_templates(work, files):
    spec, model, tokenizer, masked = loaded()
    roles = p.lpbs_tests[work.test]
    if masked:
        log_probs = partial(mlm_log_probs, model, tokenizer)
    else:
        log_probs = partial(causal_log_probs, model, tokenizer, batch=p.lpbs_batch)
    (templates,) = roles["templates"]
    probabilities = TemplateProbabilities(
        log_probs=log_probs,
        in_vocabulary=tokenizer_vocabulary_test(tokenizer),
        wordsets=lpbs_wordsets(roles, spec, tokenizer),
        spec=LpbsSpec.from_json(read_sealed(roles["spec"][0])),
        templates=load_double_templates(templates, paths.external),
        encoding="mlm" if masked else "causal",
    )
    with naming_too_long(
        f"LPBS templates {templates} on {spec.name}",
        "Use shorter templates or a model with a longer context",
    ):
        frame = score(
            probabilities,
            model=spec.name,
            settings=settings(),
            signature=signature_of(work.inputs),
        )
    write_tsv(files["lpbs_scores"], frame)
    write_npz(files["lpbs_logprobs"], probabilities.arrays)


def pceat(work, files):
    corpus, test = work.test.split("/")
    roles = p.pceat_tests[work.test]
    (pairs,) = roles["pairs"]
    spec, model, tokenizer, masked = loaded()
    wordsets = lpbs_wordsets(roles, spec, tokenizer)
    contexts = pair_contexts(read_tsv(pairs), wordsets)
    probe = mlm_context_log_probs if masked else causal_context_log_probs
    with naming_too_long(
        f"LPBS contexts {pairs} on {spec.name}",
        "Lower lpbs.max_gap (the most words between target and attribute: shorter contexts) "
        "or use a model with a longer context",
    ):
        contexts = with_log_probs(contexts, partial(probe, model, tokenizer))
    pairs_scored = contexts.groupby(["target", "attribute"]).ngroups
    print(f"{work.test}: {len(contexts)} contexts of {pairs_scored} pairs")
    probabilities = PairContextProbabilities(
        contexts=contexts,
        wordsets=wordsets,
        in_vocabulary=tokenizer_vocabulary_test(tokenizer),
        corpus=corpus,
        test=test,
        encoding="mlm" if masked else "causal",
        max_gap=p.lpbs["max_gap"],
        windows=p.lpbs["window_sweep"],
        primary_descriptor="names" if "names" in wordsets else next(iter(wordsets)),
    )
    rows = score(
        probabilities,
        model=spec.name,
        settings=settings(),
        signature=signature_of(work.inputs),
    )
    (sweep,) = probabilities.sweep
    write_tsv(files["pceat_scores"], rows)
    write_tsv(files["pceat_sweep"], sweep)
    write_npz(files["pceat_samples"], probabilities.samples)
    write_npz(
        files["pceat_logprobs"],
        log_prob_arrays(
            contexts, probabilities.encoding, model=spec.name, corpus=corpus, test=test
        ),
    )


def template_kl(_work, files):
    _spec, model, tokenizer, masked = loaded()
    (templates,), (lists,) = sm.input.templates, sm.input.lists
    gendered = read_yaml(lists)["gendered"]
    frame = delobelle2022.template_kl(
        Engine(model, tokenizer, masked),
        read_yaml(templates)["templates"],
        gendered["female"] + gendered["male"],
        candidates=p.kl["kl_candidates"],
    )
    write_tsv(files["kl"], frame)


def divdist_generate(_work, files):
    _spec, model, tokenizer, masked = loaded()
    if masked:
        raise ValueError(
            f"{sm.rule}: {sm.wildcards.model} is a masked LM; sampling needs a causal LM"
        )
    g = p.generation
    texts = sample_texts(
        model,
        tokenizer,
        g["samples"],
        g["tokens"],
        temperature=g["temperature"],
        seed=derived_seed(p.seed, "divdist_generate", sm.wildcards.model),
        batch=g["batch"],
    )
    write_tsv(files["generated"], pd.DataFrame({"text": texts}))


# what reaches each part's numbers: the model, its precision and the scoring (with the seed),
# and the part's own settings
shared = {"spec": p.spec, "dtype": p.dtype, "scoring": p.scoring, "seed": p.seed}
PARTS = [
    # (part, its tests' param, its outputs, its own settings, its per-test param, compute)
    (
        "datasets",
        "tests",
        ["scores", "coverage", "outcomes"],
        ["batch", "too_long"],
        ["limits"],
        dataset,
    ),
    (
        "lpbs_templates",
        "lpbs_tests",
        ["lpbs_scores", "lpbs_logprobs"],
        ["lpbs_batch"],
        [],
        lpbs_templates,
    ),
    (
        "pceat",
        "pceat_tests",
        ["pceat_scores", "pceat_sweep", "pceat_samples", "pceat_logprobs"],
        ["lpbs"],
        [],
        pceat,
    ),
]
for part, tests, roles, own, per_test, compute in PARTS:
    settings_of_part = {**shared, **{name: p[name] for name in own}}
    works = job_works(sm, per_test, roles, tests=tests, settings=settings_of_part)
    run_job_tests(sm, works, compute, SCRIPT, cache=p.caches[part])
study = {"spec": p.spec, "dtype": p.dtype}
run_job_study(
    sm,
    "template_kl",
    "kl",
    template_kl,
    [*sm.input.templates, *sm.input.lists],
    {**study, "study": p.kl},
    SCRIPT,
)
generation = {"generation": p.generation, "seed": p.seed}
run_job_study(
    sm, "divdist_generate", "generated", divdist_generate, [], {**study, **generation}, SCRIPT
)
