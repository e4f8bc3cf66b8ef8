"""Adapter: rule train_mlm_head -> biasbench.models.mlm_head."""

import json
from pathlib import Path

from biasbench.data.corpora import iter_corpus_parts
from biasbench.data.sampling import sentence_spans
from biasbench.jobs import start_job
from biasbench.models.device import start_model_job
from biasbench.models.load import transformer_location
from biasbench.models.mlm_head import HeadSettings, train_mlm_head
from biasbench.models.prepare import write_provenance
from biasbench.models.specs import ModelSpec

sm = snakemake  # noqa: F821
start_job(sm)
compute = start_model_job(sm)
base_name = Path(sm.input.base).parent.name
base = ModelSpec.from_config(base_name, dict(sm.params.base))
sentences = [
    doc[a:b]
    for doc in iter_corpus_parts(sm.params.parts)
    for a, b in sentence_spans(doc)
    if 40 <= b - a <= 200
]
settings = HeadSettings(seed=sm.params.seed, **sm.params.settings)
out = Path(sm.output[0]).parent
report = train_mlm_head(
    transformer_location(base, Path(sm.input.base).parent),
    sentences,
    out,
    settings,
    **compute,
    base_source=sm.params.base["source"],
)
print(json.dumps(report, indent=1))
layers = settings.trainable_layers
trained = f"its top {layers} layers trained here too" if layers else "frozen"
provenance = {
    "name": sm.wildcards.model,
    "kind": "transformer",
    "source": f"mlm-head:{base_name}",
    "weights": f"{base_name}'s encoder ({trained}) with a masked-LM head trained here",
    "mlm_head": report,
}
write_provenance(out, provenance, out)
