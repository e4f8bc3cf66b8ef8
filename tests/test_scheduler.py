"""The scheduler fix: at most one pending wake-up, and a wake-up whenever a round asks after
the last one fired (what the job-rate limiter relies on)."""

import threading
import time

from biasbench.scheduler import METHOD, patch_job_scheduler, schedule_once


class FakeScheduler:
    def __init__(self):
        self._open_jobs = threading.Semaphore(0)


def wake_ups(scheduler, wait=0.3):
    time.sleep(wait)
    n = 0
    while scheduler._open_jobs.acquire(blocking=False):
        n += 1
    return n


def test_many_requests_while_one_is_pending_wake_the_scheduler_once():
    scheduler = FakeScheduler()
    for _ in range(50):
        schedule_once(scheduler, 0.05)
    assert wake_ups(scheduler) == 1


def test_a_request_after_the_wake_up_is_served_again():
    scheduler = FakeScheduler()
    schedule_once(scheduler, 0.02)
    assert wake_ups(scheduler) == 1
    schedule_once(scheduler, 0.02)
    schedule_once(scheduler, 0.02)
    assert wake_ups(scheduler) == 1


def test_a_scheduler_loop_with_finishing_jobs_wakes_once_per_timespan():
    """Snakemake's loop asks for a wake-up after every round, and every finishing job starts
    a round: unpatched, each finished job adds a timer chain. Here 40 jobs finish in 0.2 s and
    the loop then runs 0.6 s with a 0.1 s timespan: ~6 timer rounds, not 40 x 6."""
    scheduler = FakeScheduler()
    rounds = []
    done = threading.Event()

    def loop():
        while not done.is_set():
            if scheduler._open_jobs.acquire(timeout=0.05):
                rounds.append(time.monotonic())
                schedule_once(scheduler, 0.1)

    thread = threading.Thread(target=loop)
    thread.start()
    for _ in range(40):  # finishing jobs release the semaphore
        scheduler._open_jobs.release()
        time.sleep(0.005)
    after_jobs = time.monotonic() + 0.05
    time.sleep(0.65)
    done.set()
    thread.join()
    late = [t for t in rounds if after_jobs < t <= after_jobs + 0.6]
    assert 3 <= len(late) <= 8


def test_the_installed_snakemake_has_the_method_and_takes_the_patch():
    from snakemake.scheduling.job_scheduler import JobScheduler

    original = getattr(JobScheduler, METHOD)
    try:
        assert patch_job_scheduler()
        assert getattr(JobScheduler, METHOD) is schedule_once
    finally:
        setattr(JobScheduler, METHOD, original)
