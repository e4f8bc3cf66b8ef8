"""The allocator settings every workflow job inherits: set where absent, a user's own kept."""

import subprocess
import sys

from biasbench.jobs import ALLOCATOR, tune_allocator


def test_sets_every_variable_where_absent():
    environ = {"PATH": "/bin"}
    added = tune_allocator(environ)
    assert added == ALLOCATOR
    assert environ == {"PATH": "/bin", **ALLOCATOR}


def test_keeps_what_the_user_set():
    environ = {"MALLOC_TOP_PAD_": "0"}
    added = tune_allocator(environ)
    assert environ["MALLOC_TOP_PAD_"] == "0"
    assert "MALLOC_TOP_PAD_" not in added
    assert set(added) == set(ALLOCATOR) - {"MALLOC_TOP_PAD_"}


def test_values_are_byte_counts_a_job_inherits():
    environ = {}
    tune_allocator(environ)
    assert all(int(v) >= 2**30 for v in environ.values())
    out = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ['MALLOC_TRIM_THRESHOLD_'])"],
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == ALLOCATOR["MALLOC_TRIM_THRESHOLD_"]
