import json
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from biasbench.rows import COLUMNS

# no per-example deadline: the suite makes no timing assertions (a loaded machine is slow)
settings.register_profile("biasbench", deadline=None)
settings.load_profile("biasbench")

ROOT = Path(__file__).resolve().parents[1]
#: what a test needs of the checkout to run the workflow in a folder of its own
WORKFLOW = ("Snakefile", "rules", "workflow_scripts", "resources", "config", "profiles", "envs")


def copy_workflow(dest: Path) -> Path:
    """The workflow (:data:`WORKFLOW`) copied into ``dest``, which is returned."""
    for name in WORKFLOW:
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / name)
    return dest


@pytest.fixture
def write(tmp_path):
    """Write a text file under tmp_path and return its path."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return _write


@pytest.fixture
def external(tmp_path):
    """A resolver for external ids backed by JSON files written in the test."""
    files = {}

    def _add(file_id: str, data) -> None:
        path = tmp_path / "external" / file_id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), encoding="utf-8")
        files[file_id] = path

    def _resolve(file_id: str) -> Path:
        return files[file_id]

    _resolve.add = _add
    return _resolve


def score_row(**values):
    """A score row with every column of the schema (defaults: a full-variant row, no drops)."""
    row = dict.fromkeys(COLUMNS, "")
    row.update(
        {f"n_{r}": 1 for r in "xyab"}
        | {f"dropped_{r}": 0 for r in "XYAB"}
        | {"variant": "full", "primary": True, "effect_size": float("nan")}
        | {"p_value": float("nan"), "seed": 0, "exact": False, "n_partitions": 0}
        | {"p_floor": float("nan"), "p_word_floor": float("nan")}
        | {"p_word_strata": float("nan"), "p_word_strata_floor": float("nan")}
    )
    row.update(values)
    return row


def method_cards(inputs: dict[str, list[str]], settings, folder: Path) -> dict[str, str]:
    """The method cards as the workflow makes them: from the league's and the agreement's
    tables written to ``folder`` with their checksums and read back as the rule reads them."""
    from biasbench.io import write_table_csv
    from biasbench.reports.cards import cards
    from biasbench.reports.catalog import TABLES
    from biasbench.reports.model_cards import read_table
    from biasbench.reports.targets import render_table

    def table(name):
        csv, _md, _html = render_table(TABLES[name], inputs, settings)
        write_table_csv(folder / f"{name}.csv", csv)
        return read_table(folder / f"{name}.csv")

    return cards(table("synthesis_league"), table("synthesis_agreement"), settings.alpha)
