"""Adapter: rule lpbs_corpus -> biasbench.lpbs (log-probabilities) + biasbench.lpbs_corpus."""

from pathlib import Path

import numpy as np
import torch

from biasbench.io import log_to, read_tsv, write_npz, write_tsv
from biasbench.lpbs import causal_context_log_probs, mlm_context_log_probs
from biasbench.lpbs_corpus import pair_list, probability_ceat_rows
from biasbench.lpbs_scoring import tokenizer_vocabulary_test
from biasbench.models import ModelSpec, load_language_model
from biasbench.wordsets import read_wordset_files

sm = snakemake  # noqa: F821
log_to(sm.log[0])
torch.set_num_threads(sm.threads)
lpbs = sm.params.lpbs
wordsets = {ws.descriptor: ws for ws in read_wordset_files(sm.input.wordsets)}
pairs = read_tsv(sm.input.pairs)
wanted = {pair for ws in wordsets.values() for pair in pair_list(ws.sets)}
contexts = pairs[[p in wanted for p in zip(pairs["target"], pairs["attribute"], strict=True)]]
contexts = contexts.reset_index(drop=True)
spec = ModelSpec.from_config(sm.wildcards.model, dict(sm.params.spec))
model, tokenizer, masked = load_language_model(spec, Path(sm.input.model).parent)
probe = mlm_context_log_probs if masked else causal_context_log_probs
log_pt, log_pp = np.zeros(0), np.zeros(0)
if len(contexts):
    log_pt, log_pp = probe(
        model,
        tokenizer,
        contexts["context"].tolist(),
        list(zip(contexts["target_start"], contexts["target_end"], strict=True)),
        list(zip(contexts["attribute_start"], contexts["attribute_end"], strict=True)),
    )
contexts = contexts.assign(log_pt=log_pt, log_pp=log_pp)
print(f"{len(contexts)} contexts of {contexts.groupby(['target', 'attribute']).ngroups} pairs")
rows, sweep, samples = probability_ceat_rows(
    contexts,
    wordsets,
    tokenizer_vocabulary_test(tokenizer),
    model=spec.name,
    corpus=sm.wildcards.corpus,
    test=sm.wildcards.test,
    max_gap=lpbs.get("max_gap", 18),
    windows=lpbs.get("window_sweep", []),
    primary_descriptor="names" if "names" in wordsets else next(iter(wordsets)),
    n_samples=sm.params.scoring["ceat_samples"],
    seed=sm.params.seed,
)
write_tsv(sm.output.scores, rows)
write_tsv(sm.output.sweep, sweep)
write_npz(sm.output.samples, samples)
