"""The allocator settings every workflow job inherits: set where absent, a user's own kept,
and bounded (a job must give back what it frees beyond them)."""

import subprocess
import sys

from biasbench.jobs import ALLOCATOR, tune_allocator


def test_sets_every_variable_where_absent():
    environ = {"PATH": "/bin"}
    added = tune_allocator(environ)
    assert added == ALLOCATOR
    assert environ == {"PATH": "/bin", **ALLOCATOR}


def test_keeps_what_the_user_set():
    environ = {"MALLOC_TRIM_THRESHOLD_": "0"}
    added = tune_allocator(environ)
    assert environ["MALLOC_TRIM_THRESHOLD_"] == "0"
    assert set(added) == set(ALLOCATOR) - {"MALLOC_TRIM_THRESHOLD_"}


def test_the_bounds_are_a_fraction_of_a_laptop_and_a_job_inherits_them():
    # the unbounded tuning (4 GiB buffers on the heap, 64 GiB kept) let a job keep 17 GB
    assert set(ALLOCATOR) == {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}
    assert int(ALLOCATOR["MALLOC_MMAP_THRESHOLD_"]) == 256 * 2**20
    assert int(ALLOCATOR["MALLOC_TRIM_THRESHOLD_"]) == 512 * 2**20
    environ = {}
    tune_allocator(environ)
    out = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ['MALLOC_TRIM_THRESHOLD_'])"],
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == ALLOCATOR["MALLOC_TRIM_THRESHOLD_"]
