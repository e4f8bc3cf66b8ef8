"""The machine's speed at the time of a run: a fixed workload timed in CPU seconds.

This machine's speed drifts by tens of percent within an hour, so two runs timed one after the
other compare only with a reference taken beside each. The workload is fixed (seeded): 200
fp32 512 x 512 matrix products on one thread, 2 million normal draws and 20 sorts of them,
five times; the median CPU seconds are printed. Run it just before and just after a timed
run:

    .venv/bin/python benchmarks/speed_reference.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import torch


def workload_seconds(a: torch.Tensor, b: torch.Tensor) -> float:
    """CPU seconds of one pass of the fixed workload."""
    start = time.process_time()
    for _ in range(200):
        a @ b
    values = np.random.default_rng(0).standard_normal(2_000_000)
    for _ in range(20):
        np.sort(values)
    return time.process_time() - start


def main() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    a, b = torch.randn(512, 512), torch.randn(512, 512)
    runs = [round(workload_seconds(a, b), 3) for _ in range(5)]
    print(f"speed reference: {statistics.median(runs):.3f} CPU-s (median of 5: {runs})")


if __name__ == "__main__":
    main()
