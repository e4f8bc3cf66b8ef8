"""Where every workflow job begins: its log file, then the check of its pinned inputs; and the
allocator settings every job inherits."""

from __future__ import annotations

import atexit
import ctypes
import os

from biasbench.data.pins import verify_inputs
from biasbench.io import log_cpu, log_to


def start_job(sm) -> None:
    """Send the job's stderr to its log (one console line on failure), then check every input
    that is pinned (upstream files, package data and weights) against its digest. The log
    records the CPU the job's start took (the interpreter, the script's imports, the checks)
    and, at exit, its whole CPU."""
    log_to(sm.log[0])
    verify_inputs(sm.input)
    log_cpu("start-up")
    atexit.register(log_cpu, "total")


def inputs_by_role(sm) -> dict[str, list[str]]:
    """A job's named inputs as role -> its files: what a table or figure reads
    (:data:`biasbench.reports.targets.Inputs`)."""
    return {
        role: [files] if isinstance(files, str) else list(files) for role, files in sm.input.items()
    }


#: glibc's allocator in every job the workflow starts, bounded: a freed buffer of up to 256 MiB
#: (activations, logits, partitions) stays in the job's heap for the next one of its size
#: instead of going back to the kernel and being faulted in again page by page, and at most
#: 512 MiB free at the heap's top is kept. Unbounded (e857dc6: 4 GiB and 64 GiB) a job once
#: kept 17 GB it had freed; these bounds and what they save: CHANGELOG.md. Other
#: allocators (macOS's) ignore the variables.
ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": str(256 << 20), "MALLOC_TRIM_THRESHOLD_": str(512 << 20)}


def tune_allocator(environ) -> dict[str, str]:
    """Set :data:`ALLOCATOR` in ``environ`` (the Snakefile's process, whose jobs inherit it)
    where the user has not set the variable; returns what was set."""
    added = {k: v for k, v in ALLOCATOR.items() if k not in environ}
    environ.update(added)
    return added


#: glibc's ``mallopt`` parameter of the size from which a buffer is mapped on its own
M_MMAP_THRESHOLD = -3

#: Where a job builds and frees model copies by the hundred (the null calibration: a random
#: copy per design), buffers from this size on are mapped on their own and unmapped when
#: freed. Under :data:`ALLOCATOR`'s bound each copy's largest tensors went to the heap, and in
#: some runs (more often with some hash seeds) the freed copies' memory was not reused:
#: MiniLM's job grew by ~85 MB/s to the kernel's OOM killer (CHANGELOG.md, 2026-12-07).
#: 32 MiB is the ceiling of glibc's own adaptive threshold.
COPIES_MMAP_THRESHOLD = 32 << 20


def map_large_buffers(environ=os.environ) -> bool:
    """Map every buffer of :data:`COPIES_MMAP_THRESHOLD` or more on its own in this process;
    kept as it is where the user set ``MALLOC_MMAP_THRESHOLD_`` to a value of their own.
    False where nothing changed (the user's value, an allocator other than glibc's)."""
    own = environ.get("MALLOC_MMAP_THRESHOLD_")
    if own is not None and own != ALLOCATOR["MALLOC_MMAP_THRESHOLD_"]:
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    return bool(mallopt and mallopt(M_MMAP_THRESHOLD, COPIES_MMAP_THRESHOLD))
