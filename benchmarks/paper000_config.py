"""Print the default configuration cut down to paper 000 (Husse & Spitz): its eight tests on
the static models, MiniLM (templates and natural contexts), SmolLM2 and Gemma 3 (templates),
LPBS and p-CEAT; no null models, data sets, template, ground-truth or DivDist study. Used to
time paper 000's part of the DAG alone, in a scratch clone:

    .venv/bin/python benchmarks/paper000_config.py > config.yaml
    BIAS_DATA_MIRROR=... /usr/bin/time -v .venv/bin/snakemake --cores 2

(A ``--configfile`` is merged into ``config.yaml``, so it cannot remove models: hence a whole
file.) The tables and figures of the other papers still build, from what this run has.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PAPER_TESTS = ["C1", "C3", "C6", "C9", "Occ", "I1", "I2", "Dis"]


def paper000(config: dict) -> dict:
    config = dict(config, tests=PAPER_TESTS, groundtruth=None, delobelle=None, bommasani=None)
    models = {
        name: dict(spec)
        for name, spec in config["models"].items()
        if not name.endswith("-null") and "+" not in name
    }
    models["minilm-l6"]["tests"] = {"templates": "all", "natural": "all"}
    for name in ("smollm2-135m", "gemma3-270m"):
        models[name]["tests"] = {"templates": PAPER_TESTS}
    models["word2vec-gnews"]["tests"] = [
        t for t in models["word2vec-gnews"]["tests"] if t.split("/")[0] in PAPER_TESTS
    ]
    config["models"] = models
    config["datasets"] = dict(config["datasets"], models={})
    return config


if __name__ == "__main__":
    default = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    yaml.safe_dump(paper000(default), sys.stdout, sort_keys=False)
