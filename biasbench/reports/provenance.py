"""The report's provenance page: the configuration, where each model's weights came from,
each score's seed, settings and signature, and the versions of the locked packages."""

from __future__ import annotations

import re
import sys
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
ROOT = Path(__file__).resolve().parents[2]
#: the pinned environment of the checkout the library is installed from (editable, as
#: scripts/install.sh installs it); `make lock` writes it
LOCK_FILE = ROOT / "requirements" / "lock.txt"
#: a pin ``name==version`` and its environment marker (``; sys_platform == 'linux'``), if any
PIN = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)[ \t]*(?:;([^\\\n]*))?",
    re.MULTILINE,
)


def installed_lock() -> Path:
    """The lock scripts/install.sh installed into the running environment (it records the
    file's path in the venv: requirements/lock.txt, or lock-cpu.txt with TORCH=cpu); the
    universal lock where nothing was recorded."""
    record = Path(sys.prefix) / "biasbench-lock"
    return ROOT / record.read_text().strip() if record.is_file() else LOCK_FILE


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_packages(
    lock_text: str,
    installed: Mapping[str, str] | None = None,
    environment: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Each package that ``lock_text`` (a pip requirements file of ``name==version`` pins)
    pins for ``environment`` (marker variables; by default this interpreter's and platform's:
    a pin whose marker does not hold, such as another platform's, is left out): the locked
    version, the installed one (``installed``, name -> version, by default what
    importlib.metadata finds; "" where it is missing) and ``differs``, "yes" where the two
    are not the same."""
    from packaging.markers import Marker

    if installed is None:
        installed = {d.metadata["Name"]: d.version for d in metadata.distributions()}
    found = {_name(name): version for name, version in installed.items()}
    rows = [
        (_name(name), locked, found.get(_name(name), ""))
        for name, locked, marker in PIN.findall(lock_text)
        if not marker.strip() or Marker(marker).evaluate(environment)
    ]
    table = pd.DataFrame(rows, columns=["package", "locked", "installed"])
    table["differs"] = (table["locked"] != table["installed"]).map({True: "yes", False: ""})
    return table


def packages_section(lock: Path | None = None) -> str:
    """The page's section on the software environment: the locked packages, those whose
    installed version differs from the lock first (``lock``: by default the installed one)."""
    lock = installed_lock() if lock is None else lock
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


def compute_section(compute: Mapping[str, str]) -> str:
    """The page's section on where the run computed: ``compute`` (the torch build, the GPUs
    and the resolved device, :func:`biasbench.models.device.compute_environment`) and the
    lock the environment was installed from."""
    rows = {**compute, "lock": installed_lock().relative_to(ROOT).as_posix()}
    return (
        "<h2>Compute</h2><table>"
        + "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows.items())
        + "</table>"
    )


def provenance_page(
    scores: pd.DataFrame, models: list[dict], config: dict, compute: Mapping[str, str]
) -> str:
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
        + "</pre>"
        + compute_section(compute)
        + "<h2>Models</h2>"
        + model_table.to_html(index=False, na_rep="", border=0)
        + f"<h2>Scores ({len(rows)} rows): seed, settings and signature</h2>"
        + rows.to_html(index=False, na_rep="", border=0)
        + packages_section()
        + "\n"
    )
