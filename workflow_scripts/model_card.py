"""Adapter: rule model_card -> biasbench.reports.model_cards."""

import contextlib
import json
import os
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pandas as pd

from biasbench.data.wordsets import read_wordset_files
from biasbench.io import read_json, read_tsv, write_text
from biasbench.jobs import start_job
from biasbench.models.load import lm_head_of
from biasbench.models.prepare import weights_directory
from biasbench.models.specs import ModelSpec
from biasbench.reports.lm_eval import lm_eval_results
from biasbench.reports.model_cards import ModelFacts, model_card, zoo_comparison
from biasbench.rows import COLUMNS
from biasbench.scoring.datasets import SE_RESAMPLES

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


rows = [read_tsv(p) for p in sm.input.scores]
scores = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=COLUMNS)
null_rows = read_tsv(sm.input.null[0]) if sm.input.null else None
labels = {
    f"{ws.test}/{ws.descriptor}": dict(ws.labels) for ws in read_wordset_files(sm.input.wordsets)
}
card = model_card(
    scores,
    facts,
    zoo_comparison(sm.input.comparison, sm.params.comparison),
    null_rows,
    list(sm.params.copies),
    labels,
)
write_text(sm.output.card, card)


def environment() -> dict:
    """The harness's top-level run facts this job can tell: when the data sets were scored
    (their coverage files' newest time), the checkout's commit, the library versions."""
    git, commit = ["git", "rev-parse", "--short", "HEAD"], ""
    with contextlib.suppress(OSError):  # no git: no commit
        commit = subprocess.run(git, capture_output=True, text=True, check=False).stdout.strip()
    versions = {"torch": "N/A", "transformers": "N/A"}  # N/A: not installed, as the harness
    for package in versions:
        with contextlib.suppress(PackageNotFoundError):
            versions[package] = version(package)
    times = [os.path.getmtime(p) for p in sm.input.coverage]
    return {
        "date": max(times) if times else None,
        "git_hash": commit or None,
        "transformers_version": versions["transformers"],
        "pretty_env_info": f"Python {platform.python_version()} on {platform.platform()}; "
        f"torch {versions['torch']}",
    }


coverage = {Path(p).name.removesuffix(".coverage.json"): read_json(p) for p in sm.input.coverage}
run = dict(sm.params.run) | {
    "model_sha": read_json(sm.input.model).get("weights_sha256"),
    "bootstrap_iters": SE_RESAMPLES,
}
results = lm_eval_results(scores, name, run, coverage, environment())
# plain JSON (no seal line): what the harness's tooling reads
write_text(sm.output.lm_eval, json.dumps(results, indent=1, sort_keys=True) + "\n")
