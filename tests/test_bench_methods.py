"""The method benchmark's synthetic inputs are inputs every registered method scores: a new
method (or a new requirement of an input type, such as definitional pairs) that the
benchmark cannot feed fails here, not in the next timing run."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from biasbench.methods import contract as c
from biasbench.methods.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "bench_methods", ROOT / "benchmarks" / "bench_methods.py"
)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
#: the default statistics with few resamples: what is checked is that each method runs
FAST = c.Settings(n_samples=200, ceat_samples=50, same_samples=200)


@pytest.mark.parametrize("method", REGISTRY, ids=lambda m: m.name)
def test_every_method_scores_the_benchmark_s_inputs(method):
    score = method(bench.inputs_of(method.consumes, np.random.default_rng(1)), FAST, seed=0)
    assert math.isfinite(score.effect_size), f"{method.name}: {score.effect_size}"
