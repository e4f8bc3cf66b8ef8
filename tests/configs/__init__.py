"""The tests' configurations: config.yaml with the sections of ``tests/configs/<name>.yaml`` in
place of its own (a section the file sets replaces config.yaml's whole: a model or corpus it does
not name is not configured). Snakemake's ``--configfile`` merges nested sections into
config.yaml instead (it cannot remove a model), so a run by hand takes the combined file with
``--replace-workflow-config``; ``python -m tests.configs <name>`` prints it (docs/running.md)."""

from pathlib import Path

import yaml

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


def load(name: str) -> dict:
    """config.yaml with the sections of tests/configs/<name>.yaml in place of its own."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    config.update(yaml.safe_load((HERE / f"{name}.yaml").read_text(encoding="utf-8")))
    return config
