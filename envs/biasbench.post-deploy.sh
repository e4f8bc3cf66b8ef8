#!/usr/bin/env bash
# Run by Snakemake inside the new conda environment, from the workflow's directory: the same
# pins as `make install` (requirements/lock.txt, nothing resolved), then the library. The
# lock's sha256 below (`make lock` writes it) is part of this script, so Snakemake builds a
# new environment when the lock changes, and a lock that differs from it is refused.
set -euo pipefail
LOCK_SHA256=f9f83359586c7063d7e2f20484adcd80c09ad82558145461ec4bcb4b3f10d3c4
found=$(python -c "import hashlib; print(hashlib.sha256(open('requirements/lock.txt', 'rb').read()).hexdigest())")
[ "$found" = "$LOCK_SHA256" ] || {
    echo "envs/biasbench.post-deploy.sh: requirements/lock.txt is not the lock this script names (run make lock)" >&2
    exit 1
}
python -m pip install --require-hashes --no-deps -r requirements/lock.txt
python -m pip install --no-deps --no-build-isolation -e .
