"""Where every workflow job begins: its log file, then the check of its pinned inputs."""

from __future__ import annotations

from biasbench.data.pins import verify_inputs
from biasbench.io import log_to


def start_job(sm) -> None:
    """Send the job's stderr to its log (one console line on failure), then check every input
    that is pinned (upstream files, package data and weights) against its digest."""
    log_to(sm.log[0])
    verify_inputs(sm.input)


#: glibc's allocator in every job the workflow starts: memory a job frees is kept for its next
#: tensors instead of going back to the kernel and being faulted in again, page by page. On
#: the ground-truth study's scoring job (mu 0.30): 15.8 -> 5.2 s of system time, 105 -> 97 s
#: wall, peak RSS 1.7 -> 3.1 GB, the same bytes out (docs/performance.md). Other allocators
#: (macOS's) ignore the variables.
ALLOCATOR = {
    "MALLOC_MMAP_THRESHOLD_": str(2**32),
    "MALLOC_TRIM_THRESHOLD_": str(2**36),
    "MALLOC_TOP_PAD_": str(2**30),
}


def tune_allocator(environ) -> dict[str, str]:
    """Set :data:`ALLOCATOR` in ``environ`` (the Snakefile's process, whose jobs inherit it)
    where the user has not set the variable; returns what was set."""
    added = {k: v for k, v in ALLOCATOR.items() if k not in environ}
    environ.update(added)
    return added
