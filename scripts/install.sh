#!/usr/bin/env bash
# Installs everything into ./.venv (idempotent): every package at the version and sha256 that
# the lock pins (`make lock` regenerates it), with nothing resolved, so nothing can pull another
# release; then the library itself, editable, without dependencies. The lock is
# requirements/lock.txt (the public index's torch: on Linux the build that uses a GPU where
# there is one) or, with TORCH=cpu, requirements/lock-cpu.txt (PyTorch's lean CPU build on
# Linux, from PyTorch's CPU index). The Python is $PYTHON, or the first of python3,
# python3.13, python3.12, python3.11 that is 3.11-3.13. As root with apt-get, also Debian's
# headless Chromium and its driver (the report's browser test); the SLURM test installs
# slurm-wlm and munge itself (scripts/slurm_cluster.sh).
#
# It runs under macOS's /bin/bash 3.2 and its BSD tools: no bash 4 constructs (an empty
# array expanded under `set -u` is an error there), no GNU-only flags; tests/test_install.py
# lints it for them.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "install: $*" >&2; }

case "${TORCH:-}" in
    "" | default) LOCK=requirements/lock.txt ;;
    cpu) LOCK=requirements/lock-cpu.txt ;;
    *) say "TORCH=$TORCH: use TORCH=cpu for PyTorch's CPU build, or leave TORCH unset"; exit 1 ;;
esac

version() { "$1" -c 'import platform; print(platform.python_version())' 2>/dev/null || echo "not runnable"; }
supported() { "$1" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))' 2>/dev/null; }
if [ -x .venv/bin/python ]; then
    supported .venv/bin/python || { say ".venv holds Python $(version .venv/bin/python), not 3.11-3.13: remove .venv and run again"; exit 1; }
else
    if [ -n "${PYTHON:-}" ]; then
        supported "$PYTHON" || { say "PYTHON=$PYTHON is Python $(version "$PYTHON"); biasbench supports Python 3.11-3.13"; exit 1; }
    else
        for candidate in python3 python3.13 python3.12 python3.11; do
            supported "$candidate" && { PYTHON=$candidate; break; }
        done
        [ -n "${PYTHON:-}" ] || { say "no Python 3.11-3.13 found (python3 is $(version python3)); set PYTHON=/path/to/python3.1x"; exit 1; }
    fi
    "$PYTHON" -m venv .venv
fi

if [ "${TORCH:-}" = cpu ] && [ "$(uname -s)" = Linux ]; then
    tag=$(.venv/bin/python -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
    grep -Eq "wheel torch-.*\+cpu-$tag-$tag-manylinux.*_$(uname -m)\.whl" "$LOCK" || {
        say "TORCH=cpu: $LOCK has PyTorch's CPU build for $(grep -o 'cp3[0-9]*-manylinux[^ ]*\.whl' "$LOCK" | paste -sd ' ' -), not for $tag on $(uname -m);" \
            "regenerate it with 'make lock' where https://download.pytorch.org is reachable, or install the default lock (no TORCH=cpu)"
        exit 1
    }
fi
say "Python $(.venv/bin/python -c 'import platform; print(platform.python_version())') in .venv, packages from $LOCK"

pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
# one block of the lock (a pin and its hashes) as a requirements file of its own
lock_block() { awk -v name="$1" '/^[^ #]/ { keep = index($0, name "==") == 1 } keep' "$LOCK"; }
extra_index=
if [ "${TORCH:-}" = cpu ] && [ "$(uname -s)" = Linux ]; then
    # PyTorch's CPU index serves the +cpu build; where it does not answer (an offline mirror),
    # pip looks only where its own configuration points. Ask pip for that one wheel first
    # (seconds), rather than learn it is missing after every other package has downloaded.
    cpu_index=https://download.pytorch.org/whl/cpu
    if .venv/bin/python -c "import urllib.request as u; u.urlopen('$cpu_index/torch/', timeout=15)" 2>/dev/null; then
        extra_index=$cpu_index
    else
        probe=$(mktemp)
        lock_block torch >"$probe"
        pin=$(head -n 1 "$probe" | cut -d' ' -f1)
        "${pip[@]}" --dry-run --ignore-installed --require-hashes --no-deps -r "$probe" >/dev/null 2>&1 || {
            rm -f "$probe"
            say "TORCH=cpu: $cpu_index does not answer, and pip's own configuration has no wheel of $pin for this Python;" \
                "reach that index, point pip at the wheel (PIP_FIND_LINKS=/dir/with/the/wheel), or install the default lock (no TORCH=cpu)"
            exit 1
        }
        rm -f "$probe"
        say "$cpu_index does not answer: torch's CPU build comes from pip's own configuration"
    fi
fi
# a torch of the other build satisfies the pin's version: remove it so the lock's build goes in
if [ "$(cat .venv/biasbench-lock 2>/dev/null || :)" != "$LOCK" ]; then
    .venv/bin/python -m pip uninstall --quiet --yes torch 2>/dev/null || :
fi
# The lock's one sdist (connection-pool) is built with the lock's own setuptools, installed
# first, not with whatever setuptools a build-isolation environment would fetch unpinned.
build_tools=$(mktemp)
lock_block setuptools >"$build_tools"
"${pip[@]}" --require-hashes --no-deps -r "$build_tools"
rm -f "$build_tools"
"${pip[@]}" --require-hashes --no-deps --no-build-isolation --use-pep517 \
    ${extra_index:+--extra-index-url "$extra_index"} -r "$LOCK"
echo "$LOCK" >.venv/biasbench-lock
"${pip[@]}" --no-deps --no-build-isolation -e .
# PyPI's torch is a CUDA build on Linux; with a driver older than its CUDA needs, torch finds
# no GPU and runs on the CPU without a word: say so now
if command -v nvidia-smi >/dev/null; then
    .venv/bin/python -m biasbench.models.device || :
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v chromedriver >/dev/null; then
    apt=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver)
    "${apt[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && "${apt[@]}" >/dev/null; } \
        || echo "install: Chromium could not be installed; the report's browser test will skip" >&2
fi
