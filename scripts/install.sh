#!/usr/bin/env bash
# Installs everything into ./.venv (idempotent): CPU torch first, so no dependency can pull a
# CUDA build, then the library with its workflow and test tools, then the model zoo.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" torch==2.13.0
"${pip[@]}" -e ".[workflow,dev]"
"${pip[@]}" --no-deps -r requirements/zoo.txt
