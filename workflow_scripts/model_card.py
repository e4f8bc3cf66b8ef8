"""Adapter: rule model_card -> biasbench.reports.model_cards."""

import contextlib
import json
from pathlib import Path

import pandas as pd

from biasbench.data.wordsets import read_wordset_files
from biasbench.errors import InputError
from biasbench.io import read_tsv, sha256_of, write_text
from biasbench.jobs import start_job
from biasbench.models.load import lm_head_of
from biasbench.models.prepare import weights_directory
from biasbench.models.specs import ModelSpec
from biasbench.reports.lm_eval import lm_eval_results
from biasbench.reports.model_cards import Comparison, ModelFacts, model_card, read_table
from biasbench.rows import COLUMNS

sm = snakemake  # noqa: F821
start_job(sm)
name, spec = sm.wildcards.model, dict(sm.params.spec)


def weights_config() -> dict | None:
    """The config.json of a transformer's weights (None: none found)."""
    if spec["kind"] != "transformer":
        return None
    prepared = Path(sm.input.model).parent
    places = [prepared]
    # a hub model not in the local cache, a package moved: the prepared directory only
    with contextlib.suppress(Exception):
        places.insert(0, weights_directory(ModelSpec.from_config(name, spec), prepared))
    for place in places:
        if place is not None and (place / "config.json").is_file():
            return json.loads((place / "config.json").read_text())
    return None


found = weights_config()
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
    lm_head=None if found is None else lm_head_of(found),
    architectures=tuple((found or {}).get("architectures") or ()),
    audit=sm.params.audit,
    alpha=sm.params.alpha,
    scores_file=sm.params.scores_file,
)


def comparison() -> Comparison | None:
    """This run's comparison, or (an audit) the one found in the checkout when it was planned,
    checked to be the same bytes."""
    if sm.input.comparison:
        cells, league = sm.input.comparison
        return Comparison(read_table(cells), read_table(league), "this run's comparison")
    found = dict(sm.params.comparison)
    if not found:
        return None
    for path, planned in found.items():
        if sha256_of(path) != planned:
            raise InputError(
                f"{path} changed after this audit was planned (sha256 {planned[:12]}): a "
                "default run is writing it; rerun the audit when it ends"
            )
    cells, league = found
    origin = (
        "the finished default run in this checkout ("
        + ", ".join(f"{path} sha256 {digest[:12]}" for path, digest in found.items())
        + ")"
    )
    return Comparison(read_table(cells), read_table(league), origin)


rows = [read_tsv(p) for p in sm.input.scores]
scores = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=COLUMNS)
null_rows = read_tsv(sm.input.null[0]) if sm.input.null else None
labels = {
    f"{ws.test}/{ws.descriptor}": dict(ws.labels) for ws in read_wordset_files(sm.input.wordsets)
}
card = model_card(scores, facts, comparison(), null_rows, list(sm.params.copies), labels)
write_text(sm.output.card, card)
# plain JSON (no seal line): what the harness's tooling reads
results = lm_eval_results(scores, name, dict(sm.params.run))
write_text(sm.output.lm_eval, json.dumps(results, indent=1, sort_keys=True) + "\n")
