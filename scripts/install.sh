#!/usr/bin/env bash
# Installs everything into ./.venv (idempotent): every package at the version and sha256 that
# requirements/lock.txt pins (`make lock` regenerates it), with nothing resolved, so nothing
# can pull another release or a CUDA build of torch (the lock's torch is the CPU build); then
# the library itself, editable, without dependencies. As root with apt-get, also Debian's
# headless Chromium and its driver (the report's browser test); the SLURM test installs
# slurm-wlm and munge itself (scripts/slurm_cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" --require-hashes --no-deps -r requirements/lock.txt
"${pip[@]}" --no-deps --no-build-isolation -e .
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v chromedriver >/dev/null; then
    apt=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver)
    "${apt[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && "${apt[@]}" >/dev/null; } \
        || echo "install: Chromium could not be installed; the report's browser test will skip" >&2
fi
