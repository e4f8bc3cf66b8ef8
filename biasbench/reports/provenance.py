"""The report's provenance page: the configuration, where each model's weights came from,
each score's seed, settings and signature, and the versions of the locked packages."""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from importlib import metadata
from pathlib import Path

import pandas as pd
import yaml

from biasbench.rows import KEY_COLUMNS

STYLE = (
    "<style>body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse}"
    " td,th{border:1px solid #ccc;padding:2px 6px} pre{background:#f6f6f6;padding:8px}</style>"
)
#: the pinned environment of the checkout the library is installed from (editable, as
#: scripts/install.sh installs it); `make lock` writes it
LOCK_FILE = Path(__file__).resolve().parents[2] / "requirements" / "lock.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)", re.MULTILINE)


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_packages(lock_text: str, installed: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Each package that ``lock_text`` (a pip requirements file of ``name==version`` pins)
    pins: the locked version, the installed one (``installed``, name -> version, by default
    what importlib.metadata finds; "" where it is missing) and ``differs``, "yes" where the
    two are not the same."""
    if installed is None:
        installed = {d.metadata["Name"]: d.version for d in metadata.distributions()}
    found = {_name(name): version for name, version in installed.items()}
    rows = [
        (_name(name), locked, found.get(_name(name), "")) for name, locked in PIN.findall(lock_text)
    ]
    table = pd.DataFrame(rows, columns=["package", "locked", "installed"])
    table["differs"] = (table["locked"] != table["installed"]).map({True: "yes", False: ""})
    return table


def packages_section(lock: Path = LOCK_FILE) -> str:
    """The page's section on the software environment: the locked packages, those whose
    installed version differs from the lock first."""
    name = escape(f"{lock.parent.name}/{lock.name}")
    if not lock.is_file():
        return f"<h2>Packages</h2><p>No {name} beside the installed library.</p>"
    table = locked_packages(lock.read_text(encoding="utf-8"))
    differ = int((table["differs"] == "yes").sum())
    table = table.sort_values(["differs", "package"], ascending=[False, True])
    return (
        f"<h2>Packages: {len(table)} locked in {name}, {differ} installed at another"
        " version</h2>" + table.to_html(index=False, na_rep="", border=0)
    )


def provenance_page(scores: pd.DataFrame, models: list[dict], config: dict) -> str:
    """One HTML page: the configuration as run, each model's source and version, per score
    row the seed of its random stream, the settings it was computed with and the signature
    of its inputs and settings, and the locked packages with their installed versions."""
    model_table = pd.DataFrame(models)[
        [
            c
            for c in ("name", "kind", "source", "revision", "package_version", "weights")
            if c in pd.DataFrame(models)
        ]
    ]
    rows = scores[[*KEY_COLUMNS, "paper", "seed", "settings", "signature"]]
    return (
        "<!doctype html><meta charset='utf-8'><title>Provenance</title>"
        + STYLE
        + "<h2>Configuration</h2><pre>"
        + escape(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
        + "</pre><h2>Models</h2>"
        + model_table.to_html(index=False, na_rep="", border=0)
        + f"<h2>Scores ({len(rows)} rows): seed, settings and signature</h2>"
        + rows.to_html(index=False, na_rep="", border=0)
        + packages_section()
        + "\n"
    )
