"""Adapter: rule injected_scores -> biasbench.studies.groundtruth.study_models + the data-set
scorers, for every study model of one mean (the frozen lower layers computed once for all, each
data set read and sampled once for all)."""

import json
from pathlib import Path

import pandas as pd
import torch
from safetensors.torch import load_file
from tqdm.auto import tqdm
from transformers import AutoTokenizer, BertForMaskedLM

from biasbench.data.datasets import dataset_items
from biasbench.io import log_to, signature_of, write_tsv
from biasbench.models.logprobs import Engine
from biasbench.scoring.datasets import SCORERS
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies.groundtruth import study_models

sm = snakemake  # noqa: F821
log_to(sm.log[0])
torch.set_num_threads(sm.threads)
where = str(Path(sm.input.model).parent)
base = BertForMaskedLM.from_pretrained(where, dtype="float32").eval()
tokenizer = AutoTokenizer.from_pretrained(where)
weights = load_file(sm.input.weights)
records = json.loads(Path(sm.input.records).read_text(encoding="utf-8"))["models"]
settings = ScoreSettings(seed=sm.params.seed, **sm.params.scoring).for_source("templates")
signature = signature_of(
    [sm.input.weights, *sm.input.files, sm.input.model],
    f"limits:{sorted(sm.params.limits.items())}",
)
items = {
    d: dataset_items(d, dict(sm.params.files[d]), sm.params.limits.get(d), sm.params.seed)[0]
    for d in sm.params.datasets
}
frames = []
names = [r["name"] for r in records]
for name, model in tqdm(study_models(base, weights, names), total=len(names), desc="study models"):
    engine = Engine(model, tokenizer, True, sm.params.batch)
    for dataset in sm.params.datasets:
        frames.append(
            SCORERS[dataset](
                engine,
                items[dataset],
                model=name,
                settings=settings,
                seed=sm.params.seed,
                signature=signature,
            )
        )
write_tsv(sm.output[0], pd.concat(frames, ignore_index=True))
