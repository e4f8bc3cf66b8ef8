"""Pin the package files the default configuration reads: writes resources/package_files.yaml
(run after a deliberate package update, then review the diff; every job checks these digests).
"""

import os
from pathlib import Path

import yaml

from biasbench.config import read_schema, validate_config
from biasbench.data.pins import pins_of
from biasbench.plan import make_plan, package_files

ROOT = Path(__file__).resolve().parents[1]
HEADER = """\
# sha256 of every file inside an installed package that the default configuration reads
# (corpora, data sets, packaged model weights), checked by every job that reads one;
# written by scripts/pin_package_files.py after a deliberate package update.
"""

os.chdir(ROOT)  # the configuration's paths are relative to the workflow directory
config = validate_config(read_schema(ROOT / "config.yaml"))
pins = pins_of(package_files(make_plan(config, ROOT)))
out = ROOT / "resources" / "package_files.yaml"
out.write_text(HEADER + yaml.safe_dump({"files": pins}, sort_keys=True), encoding="utf-8")
print(f"{out}: {len(pins)} files")
