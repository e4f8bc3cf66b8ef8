"""Adapter: rule model_card -> biasbench.reports.model_cards."""

import contextlib
import json
from pathlib import Path

import pandas as pd

from biasbench.io import read_tsv, write_text
from biasbench.jobs import start_job
from biasbench.models.prepare import weights_directory
from biasbench.models.specs import ModelSpec
from biasbench.reports.model_cards import ModelFacts, has_lm_head, model_card
from biasbench.rows import COLUMNS

sm = snakemake  # noqa: F821
start_job(sm)
name, spec = sm.wildcards.model, dict(sm.params.spec)


def architectures() -> tuple[str, ...] | None:
    """The architectures in the config.json of a transformer's weights (None: none found)."""
    if spec["kind"] != "transformer":
        return None
    prepared = Path(sm.input.model).parent
    places = [prepared]
    # a hub model not in the local cache, a package moved: the prepared directory only
    with contextlib.suppress(Exception):
        places.insert(0, weights_directory(ModelSpec.from_config(name, spec), prepared))
    for place in places:
        if place is not None and (place / "config.json").is_file():
            return tuple(json.loads((place / "config.json").read_text()).get("architectures") or ())
    return None


found = architectures()
facts = ModelFacts(
    name=name,
    kind=spec["kind"],
    source=spec["source"],
    paper_model=spec.get("paper_model"),
    lowercase=bool(spec.get("lowercase")),
    runs_tests=sm.params.runs_tests,
    lpbs=sm.params.lpbs,
    datasets=tuple(sm.params.datasets),
    divdist=sm.params.divdist,
    divdist_files=tuple(sm.params.divdist_files),
    lm_head=None if found is None else has_lm_head(found),
    architectures=found or (),
    audit=sm.params.audit,
)
rows = [read_tsv(p) for p in sm.input.scores]
scores = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=COLUMNS)
write_text(sm.output[0], model_card(scores, facts))
