"""Adapter: rule compare_models -> biasbench.studies.model_comparison and its card."""

import json
from pathlib import Path

from biasbench.data.wordsets import WordSet
from biasbench.encodings import available_encodings
from biasbench.io import read_json, read_npz, read_sealed, read_tsv, write_text, write_tsv
from biasbench.jobs import start_job
from biasbench.models.extract import read_embeddings
from biasbench.reports.comparison_card import comparison_card
from biasbench.reports.comparison_figure import comparison_figure
from biasbench.reports.figures import save
from biasbench.reports.lm_eval import lm_eval_comparison
from biasbench.reports.model_cards import run_or_found, zoo_comparison
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies.embedding_comparison import ModelVectors, embedding_rows
from biasbench.studies.model_comparison import compare_models
from biasbench.studies.probability_comparison import lpbs_template_rows, pceat_rows

sm = snakemake  # noqa: F821
start_job(sm)
names = (sm.wildcards.base, sm.wildcards.against)
outcomes = {
    dataset: (read_tsv(base), read_tsv(against))
    for dataset, base, against in zip(
        sm.params.datasets, sm.input.base, sm.input.against, strict=True
    )
}
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring)
contexts, wordsets = iter(sm.input.contexts), iter(sm.input.wordsets)
embedding, left_out = [], []
for (source, test, descriptors), files in zip(
    sm.params.tests["tests"],
    zip(sm.input.base_vectors, sm.input.against_vectors, strict=True),
    strict=True,
):
    for descriptor in descriptors:
        test_contexts = read_tsv(next(contexts))
        words = WordSet.from_json(read_sealed(next(wordsets)))
        vectors = []
        for path, kind in zip(files, sm.params.tests["kinds"], strict=True):
            arrays, attrs, _ = read_embeddings(path, descriptor)
            available = available_encodings(kind, bool(attrs["is_decoder"]))
            vectors.append(ModelVectors(test_contexts, arrays, kind, available))
        found, missed = embedding_rows(
            *vectors,
            test=f"{test}/{descriptor}",
            names=names,
            pairs=list(zip(words.sets["A"], words.sets["B"], strict=True))
            if words.paired
            else None,
            settings=settings.for_source(source),
            seed=sm.params.seed,
            n_perm=sm.params.tests["permutations"],
        )
        embedding += found
        left_out += [{**m, "family": "embedding"} for m in missed]
probability = []
lpbs_wordsets = iter(sm.input.lpbs_wordsets)
for (corpus, test, descriptors), base, against in zip(
    sm.params.tests["lpbs"], sm.input.base_logprobs, sm.input.against_logprobs, strict=True
):
    words = {d: WordSet.from_json(read_sealed(next(lpbs_wordsets))) for d in descriptors}
    common = {"names": names, "seed": sm.params.seed, "n_perm": sm.params.tests["permutations"]}
    if corpus == "templates":
        found, missed = lpbs_template_rows(
            read_npz(base), read_npz(against), words, test=test, **common
        )
    else:
        found, missed = pceat_rows(
            read_npz(base),
            read_npz(against),
            words,
            corpus=corpus,
            test=test,
            max_gap=sm.params.tests["max_gap"],
            ceat_samples=settings.for_source(corpus).ceat_samples,
            **common,
        )
    probability += found
    left_out += [{**m, "family": "probability"} for m in missed]
table = compare_models(
    outcomes,
    names=names,
    seed=sm.params.seed,
    alpha=sm.params.alpha,
    embedding=embedding,
    probability=probability,
)
zoo = zoo_comparison(sm.input.comparison, sm.params.comparison)
found_check = run_or_found(sm.input.check, sm.params.check)
check = found_check[0][0] if found_check else None
write_tsv(sm.output.table, table)
save(comparison_figure(table, sm.params.alpha), sm.output.figure_png, sm.output.figure_pdf)
write_text(
    sm.output.card,
    comparison_card(
        table,
        zoo.league if zoo else None,
        check,
        sm.params.alpha,
        zoo.origin if zoo else "none in this checkout",
        left_out,
    ),
)
# the base model's coverage per data set: n-samples as in the model's own harness file
coverage = {Path(p).name.removesuffix(".coverage.json"): read_json(p) for p in sm.input.coverage}
# plain JSON, as the harness writes it (its tools read it)
write_text(
    sm.output.lm_eval,
    json.dumps(lm_eval_comparison(table, coverage), indent=1, sort_keys=True) + "\n",
)
