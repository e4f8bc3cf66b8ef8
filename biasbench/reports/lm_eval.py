"""A model's data-set scores in lm-evaluation-harness's results layout, so they sit beside a
harness run: per task ``results`` with ``<metric>,<filter>`` and ``<metric>_stderr,<filter>``
keys, ``configs``, ``versions``, ``n-shot``, ``higher_is_better``, ``n-samples`` and the run's
``config``.

A filter names how the score was computed: ``none`` is the row that equals the harness's own
metric (CrowS-Pairs' ``pct_stereotype`` of a causal LM: the summed sentence log-likelihood,
``causal-sentence``; checked from outside against the harness on 1,508 pairs), every other
row is filtered by its encoding and variant. The harness reports a share as a fraction: the
CrowS-Pairs and StereoSet percentages are divided by 100, their stderr likewise (a row's
``se``: the bootstrap over its items or terms, :func:`biasbench.scoring.datasets.bootstrap_se`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from biasbench import __version__
from biasbench.methods.probability.crows_pairs import HARNESS_ROWS

#: method -> (task, metric, as a fraction, higher is better)
TASKS = {
    "CrowS-Pairs": ("crows_pairs_english", "pct_stereotype", True, False),
    "AUL": ("crows_pairs_english", "aul_pct_stereotype", True, False),
    "StereoSet SS": ("stereoset", "ss", True, False),
    "StereoSet LMS": ("stereoset", "lms", True, True),
    "StereoSet ICAT": ("stereoset", "icat", True, True),
    "BEC-Pro": ("bec_pro", "association_gap", False, False),
    "DisCo": ("disco", "fills", False, False),
    "WinoBias F1 gap": ("winobias", "f1_gap", False, False),
    "WinoBias skew": ("winobias", "skew", False, False),
    "WinoBias stereotype": ("winobias", "stereotype", False, False),
    "LPBS he/she": ("lpbs_salaries", "he_she_bias", False, False),
}


def _value(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def lm_eval_results(rows: pd.DataFrame, model: str, run: Mapping[str, object]) -> dict:
    """The results file of ``model`` from its score rows (the data sets' whole-set rows);
    ``run``: the harness's ``config`` entries this run has (model_args, batch_size, device,
    limit, random_seed)."""
    mine = rows[(rows["model"] == model) & rows["method"].isin(TASKS)]
    mine = mine[mine["descriptor"].astype(str).isin(("all", ""))]
    out: dict = {"results": {}, "group_subtasks": {}, "configs": {}, "versions": {}}
    out |= {"n-shot": {}, "higher_is_better": {}, "n-samples": {}}
    for row in mine.sort_values(["method", "encoding", "variant"]).to_dict("records"):
        task, metric, fraction, higher = TASKS[row["method"]]
        value = _value(row["effect_size"])
        if value is None:
            continue
        scale = 100.0 if fraction else 1.0
        filtered = (
            "none"
            if (row["method"], row["encoding"]) in HARNESS_ROWS
            else f"{row['encoding']}/{row['variant']}"
        )
        stderr = _value(row["se"])
        entry = out["results"].setdefault(task, {"alias": task})
        entry[f"{metric},{filtered}"] = value / scale
        entry[f"{metric}_stderr,{filtered}"] = "N/A" if stderr is None else stderr / scale
        out["group_subtasks"][task] = []
        config = out["configs"].setdefault(
            task, {"task": task, "output_type": "multiple_choice", "metric_list": []}
        )
        if all(m["metric"] != metric for m in config["metric_list"]):
            config["metric_list"].append(
                {"metric": metric, "aggregation": "mean", "higher_is_better": higher}
            )
        config["metadata"] = {"version": __version__, "computed_by": "biasbench"}
        out["versions"][task] = __version__
        out["n-shot"][task] = 0
        out["higher_is_better"].setdefault(task, {})[metric] = higher
        items = int(_value(row.get("n_x")) or 0)
        samples = out["n-samples"].setdefault(task, {"original": items, "effective": items})
        samples["effective"] = max(samples["effective"], items)
        samples["original"] = samples["effective"]
    out["config"] = {"model": "biasbench", **run}
    out["biasbench_version"] = __version__
    return out
