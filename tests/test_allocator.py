"""The allocator settings every workflow job inherits: set where absent, a user's own kept,
and bounded (a job must give back what it frees beyond them)."""

import os
import subprocess
import sys

import pytest

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


# a child process: bytes glibc holds in buffers mapped on their own (mallinfo2's hblkhd)
# before and after a 40 MiB array is made, with map_large_buffers called first or not
MAPPED = """
import ctypes, sys
import numpy as np
from biasbench.jobs import map_large_buffers

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
changed = map_large_buffers() if sys.argv[1] == "call" else None
before = libc.mallinfo2().hblkhd
buffer = np.ones(40 << 20, dtype=np.uint8)
print(changed, libc.mallinfo2().hblkhd - before >= buffer.nbytes)
"""


def mapped(environ, call):
    """(what map_large_buffers returned, whether a 40 MiB buffer was mapped on its own)"""
    if sys.platform != "linux":
        pytest.skip("glibc's allocator")
    out = subprocess.run(
        [sys.executable, "-c", MAPPED, "call" if call else "no"],
        env={**os.environ, **environ},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return tuple(out)


def test_a_job_of_many_copies_maps_its_large_buffers_on_their_own():
    # under the bound a 40 MiB buffer comes from the heap; after map_large_buffers it is mapped
    # on its own and goes back to the kernel when freed (the null job's runaway, CHANGELOG)
    assert mapped(ALLOCATOR, call=False) == ("None", "False")
    assert mapped(ALLOCATOR, call=True) == ("True", "True")


def test_a_users_own_threshold_is_kept_in_a_job_of_many_copies():
    assert mapped({"MALLOC_MMAP_THRESHOLD_": str(1 << 30)}, call=True) == ("False", "False")
