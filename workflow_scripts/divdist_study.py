"""Adapter: rule divdist_study -> biasbench.studies.bommasani2022.run."""

import json
from pathlib import Path

from biasbench.io import read_npz, read_tsv, signature_of, write_json, write_tsv
from biasbench.jobs import start_job
from biasbench.models.load import load_static
from biasbench.models.specs import ModelSpec
from biasbench.studies import bommasani2022 as study

sm = snakemake  # noqa: F821
start_job(sm)
settings = sm.params.study
data = study.load_data(*sm.input.data, year=settings["census_year"])
pairs = json.loads(Path(sm.input.definitional).read_text(encoding="utf-8"))
equality = json.loads(Path(sm.input.equality).read_text(encoding="utf-8"))
vocabulary = set(data.stimuli()) | {w for pair in pairs + equality for w in pair}
static = {}
for path in sm.input.static:
    name = Path(path).parent.name
    vectors = load_static(Path(path).parent, ModelSpec.from_config(name, sm.params.specs[name]))
    static[name] = study.static_lookup(vectors.lookup, sorted(vocabulary))
inputs = study.Inputs(
    data=data,
    text={Path(p).stem: read_tsv(p) for p in sm.input.text},
    contexts=read_tsv(sm.input.contexts),
    vectors={Path(p).stem: read_npz(p)["vectors"] for p in sm.input.vectors},
    generated={Path(p).stem: read_tsv(p)["text"].astype(str).tolist() for p in sm.input.generated},
    static=static,
    definitional=[tuple(p) for p in pairs],
    equality=[tuple(p) for p in equality],
)
strengths, bias, validity, accuracy = study.run(
    inputs, settings["k"], settings["negative"], sm.params.seed
)
write_tsv(sm.output.strengths, strengths)
write_tsv(sm.output.bias, bias)
doc = {name: frame.to_dict(orient="records") for name, frame in validity.items()}
doc["probe_accuracy"] = accuracy
write_json(sm.output.validity, doc, default=float)
signature = signature_of(sm.input, f"census_year:{settings['census_year']}")
write_tsv(
    sm.output.scores,
    study.score_rows(strengths, data, settings["negative"], sm.params.seed, signature),
)
