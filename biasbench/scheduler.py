"""One pending re-evaluation timer in Snakemake's job scheduler (applied by the Snakefile).

Snakemake 9 ends every scheduling round by starting a timer that wakes the scheduler again
after the job-rate limit's timespan (the limit is always set from the command line). A round
that a finishing job started thus starts one more timer chain that never ends: after n
finished jobs, n chains wake the scheduler every timespan, and every wake-up resets the
parameters and sizes the inputs of every ready job. On the default DAG the main process took
a fifth of a core by mid-run, and its share grew with every finished job: time taken from
the jobs. With at most one pending timer the scheduler still wakes within one timespan of
any round that asked for it, which is all the rate limiter needs.
"""

from __future__ import annotations

import threading
from typing import Any

#: the scheduler method this replaces (its name is misspelt upstream)
METHOD = "_schedule_reevalutation"


def schedule_once(scheduler: Any, delay: float) -> None:
    """Wake ``scheduler`` after ``delay`` seconds unless a wake-up is already pending."""
    lock = scheduler.__dict__.setdefault("_reevaluation_lock", threading.Lock())
    with lock:
        if scheduler.__dict__.get("_reevaluation_pending"):
            return
        scheduler._reevaluation_pending = True

    def wake() -> None:
        with lock:  # cleared before the round it starts asks for the next one
            scheduler._reevaluation_pending = False
        scheduler._open_jobs.release()

    timer = threading.Timer(delay, wake)
    timer.daemon = True  # a pending wake-up never holds the finished run open
    timer.start()


def patch_job_scheduler() -> bool:
    """Install :func:`schedule_once` in Snakemake's scheduler; False where this Snakemake
    has no such method (another version: it runs unpatched, only slower)."""
    from snakemake.scheduling.job_scheduler import JobScheduler

    if not callable(getattr(JobScheduler, METHOD, None)):
        return False
    setattr(JobScheduler, METHOD, schedule_once)
    return True
