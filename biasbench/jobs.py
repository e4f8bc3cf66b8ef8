"""Where every workflow job begins: its log file, then the check of its pinned inputs."""

from __future__ import annotations

from biasbench.data.pins import verify_inputs
from biasbench.io import log_to


def start_job(sm) -> None:
    """Send the job's stderr to its log (one console line on failure), then check every input
    that is pinned (upstream files, package data and weights) against its digest."""
    log_to(sm.log[0])
    verify_inputs(sm.input)


def inputs_by_role(sm) -> dict[str, list[str]]:
    """A job's named inputs as role -> its files: what a table or figure reads
    (:data:`biasbench.reports.targets.Inputs`)."""
    return {
        role: [files] if isinstance(files, str) else list(files) for role, files in sm.input.items()
    }
