"""A model's data-set scores in lm-evaluation-harness's results layout, so they sit beside a
harness run and its tools read them: every key the harness writes for a task, with the same
meaning, except those in :data:`ABSENT` (each with why); checked key by key against a results
file the harness wrote for SmolLM2 on the same CrowS-Pairs pairs (tests/data/lm_eval/).

A filter names how the score was computed: ``none`` is the model kind's default row: on a
causal LM the row that equals the harness's own metric (CrowS-Pairs' ``pct_stereotype``: the
summed sentence log-likelihood, ``causal-sentence``; checked from outside against the harness
on 1,508 pairs), on a masked LM the data set's own pseudo-log-likelihood (``mlm-pll``, which
the harness cannot run), and the causal LM's ``likelihood_diff`` (the data set's coverage
carries it: ``scoring.dataset_stage.score_dataset``); every other row is filtered by its encoding
and variant. The harness reports a share as a
fraction: the CrowS-Pairs and StereoSet percentages and WinoBias' percentage points are
divided by 100, their stderr likewise (a row's ``se``: the bootstrap over its items or terms,
:func:`biasbench.scoring.datasets.bootstrap_se`; likelihood_diff's, the harness's standard
error of a mean).

``n-samples``: ``original`` the items the data set holds, ``effective`` those scored (the
seeded sample of ``datasets.limits``). The harness's ``config.limit`` means its first N
items; a seeded sample is what its ``--samples`` selects, for which it writes null: so does
the export, the limits themselves under ``config.biasbench_limits``.
"""

from __future__ import annotations

import math
import re
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
    "WinoBias F1 gap": ("winobias", "f1_gap", True, False),
    "WinoBias skew": ("winobias", "skew", True, False),
    "WinoBias stereotype": ("winobias", "stereotype", True, False),
    "LPBS he/she": ("lpbs_salaries", "he_she_bias", False, False),
}
#: task -> the data set it scores (its coverage file: results/datasets/<model>/<data set>)
DATASETS = {
    "crows_pairs_english": "crows_pairs",
    "stereoset": "stereoset",
    "bec_pro": "becpro",
    "disco": "disco",
    "winobias": "winobias",
    "lpbs_salaries": "lpbs_salaries",
}
#: a task's version (``versions``, its config's metadata.version): crows_pairs_english's is
#: the harness task's own, whose metrics its filter "none" reproduces; the others are this
#: package's tasks, at 1.0 until a metric's definition changes
VERSIONS = dict.fromkeys(DATASETS, 1.0)
#: the harness release whose results layout this follows: the one that wrote the test's file
LAYOUT_VERSION = "0.4.13"
#: (method, encoding) of the rows filtered ``none``: a causal LM's rows equal to the harness's
#: own metric, and a masked LM's CrowS-Pairs row under the data set's own scoring (Nangia et
#: al.'s pseudo-log-likelihood), so ``pct_stereotype,none`` is read alike for either kind
DEFAULT_ROWS = HARNESS_ROWS | {("CrowS-Pairs", "mlm-pll")}
#: CrowS-Pairs' second harness metric, lower is better (the data set's coverage has it)
LIKELIHOOD_DIFF = "likelihood_diff"
#: keys the harness writes that the export leaves out, by level, and why (docs/outputs.md)
ABSENT = {
    "": {
        "tokenizer_pad_token": "the export is written without loading the tokenizer",
        "tokenizer_eos_token": "the export is written without loading the tokenizer",
        "tokenizer_bos_token": "the export is written without loading the tokenizer",
        "eot_token_id": "the export is written without loading the tokenizer",
        "max_length": "the export is written without loading the model",
        "total_evaluation_time_seconds": "each log-probability job's time is in "
        "results/benchmarks/logprobs/<model>.tsv",
    },
    "config": {"model_num_parameters": "the export is written without loading the model"},
    "configs.<task>": {
        key: "biasbench builds no prompt: how a sentence is scored is the filter (encoding/variant)"
        for key in (
            "test_split",
            "doc_to_text",
            "doc_to_target",
            "doc_to_choice",
            "process_results",
            "target_delimiter",
            "fewshot_delimiter",
            "fewshot_config",
            "unsafe_code",
        )
    },
}


def filter_of(row: Mapping) -> str:
    """A row's filter: ``none`` for its model kind's default scoring (:data:`DEFAULT_ROWS`),
    else its encoding and variant."""
    if (row["method"], row["encoding"]) in DEFAULT_ROWS:
        return "none"
    return f"{row['encoding']}/{row['variant']}"


def _value(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def sanitized(name: str) -> str:
    """A model name safe in a file path, as the harness's ``model_name_sanitized``."""
    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", name)


def _data_files(files: Mapping[str, Mapping], task: str) -> str | dict | None:
    """The files a task reads, as the split it scores: one file's path, or each role's."""
    mine = dict(files.get(DATASETS[task]) or {})
    return mine["data"] if set(mine) == {"data"} else mine or None


def _samples(task: str, items: int, coverage: Mapping[str, Mapping]) -> dict[str, int]:
    """n-samples of a task: the data set's items and those scored (its coverage), or the
    rows' count for both where no coverage counts them."""
    found = coverage.get(DATASETS[task]) or {}
    read, scored = found.get("items"), found.get("scored")
    if isinstance(read, int) and isinstance(scored, int):
        return {"original": read, "effective": scored}
    return {"original": items, "effective": items}


def lm_eval_results(
    rows: pd.DataFrame,
    model: str,
    run: Mapping[str, object],
    coverage: Mapping[str, Mapping] | None = None,
    env: Mapping[str, object] | None = None,
) -> dict:
    """The results file of ``model`` from its score rows (the data sets' whole-set rows) and
    its data sets' ``coverage`` (data set -> its coverage file). ``run``: source, dtype,
    revision, model_sha (its weights' sha256), batch_size, device, limits (datasets.limits),
    random_seed, bootstrap_iters (the stderr's resamples), files (data set -> its files);
    ``env``: what the job tells of its environment and run (date, git_hash,
    transformers_version, pretty_env_info)."""
    coverage, files = coverage or {}, run.get("files") or {}
    model_args = {"pretrained": run.get("source"), "dtype": run.get("dtype")}
    mine = rows[(rows["model"] == model) & rows["method"].isin(TASKS)]
    mine = mine[mine["descriptor"].astype(str).isin(("all", ""))]
    out: dict = {"results": {}, "group_subtasks": {}, "configs": {}, "versions": {}}
    out |= {"n-shot": {}, "higher_is_better": {}, "n-samples": {}}
    items: dict[str, int] = {}

    def add(task: str, metric: str, filtered: str, value: float, stderr, higher: bool) -> None:
        entry = out["results"].setdefault(task, {"name": task, "alias": task})
        entry[f"{metric},{filtered}"] = value
        entry[f"{metric}_stderr,{filtered}"] = "N/A" if stderr is None else stderr
        out["higher_is_better"].setdefault(task, {})[metric] = higher
        metrics = configs(task)["metric_list"]
        if all(m["metric"] != metric for m in metrics):
            metrics.append({"metric": metric, "aggregation": "mean", "higher_is_better": higher})

    def configs(task: str) -> dict:
        return out["configs"].setdefault(
            task,
            {
                "task": task,
                "dataset_path": DATASETS[task],
                "dataset_kwargs": {"data_files": {"test": _data_files(files, task)}},
                "description": "",
                "num_fewshot": 0,
                "metric_list": [],
                "output_type": "multiple_choice",
                "repeats": 1,
                "should_decontaminate": False,
                "metadata": {
                    "version": VERSIONS[task],
                    **model_args,
                    "config_source": "biasbench/reports/lm_eval.py",
                    "computed_by": "biasbench",
                },
            },
        )

    for row in mine.sort_values(["method", "encoding", "variant"]).to_dict("records"):
        task, metric, fraction, higher = TASKS[row["method"]]
        value = _value(row["effect_size"])
        if value is None:
            continue
        scale = 100.0 if fraction else 1.0
        filtered = filter_of(row)
        stderr = _value(row["se"])
        stderr = None if stderr is None else stderr / scale
        add(task, metric, filtered, value / scale, stderr, higher)
        items[task] = max(items.get(task, 0), int(_value(row.get("n_x")) or 0))
    # the harness's second CrowS-Pairs metric, beside the row equal to its first
    task = "crows_pairs_english"
    harness = (coverage.get(DATASETS[task]) or {}).get("lm_eval") or {}
    diff, diff_se = (_value(harness.get(k)) for k in (LIKELIHOOD_DIFF, f"{LIKELIHOOD_DIFF}_stderr"))
    if diff is not None and "pct_stereotype,none" in out["results"].get(task, {}):
        add(task, LIKELIHOOD_DIFF, "none", diff, diff_se, False)
    for task, entry in out["results"].items():
        samples = _samples(task, items[task], coverage)
        entry["sample_len"] = samples["effective"]
        out["n-samples"][task] = samples
        out["versions"][task] = VERSIONS[task]
        out["n-shot"][task] = 0
        out["configs"][task]["metric_list"].sort(key=lambda m: m["metric"])
    out["config"] = {
        "model": "biasbench",
        "model_args": model_args,
        "model_dtype": run.get("dtype"),
        "model_revision": run.get("revision"),
        "model_sha": run.get("model_sha"),
        "batch_size": run.get("batch_size"),
        "batch_sizes": [],
        "device": run.get("device"),
        "use_cache": None,
        "limit": None,  # the harness's first N items; a seeded sample: biasbench_limits
        "biasbench_limits": dict(run.get("limits") or {}),
        "bootstrap_iters": run.get("bootstrap_iters"),  # likelihood_diff's: a formula
        "gen_kwargs": None,
        "random_seed": run.get("random_seed"),
        "numpy_seed": run.get("random_seed"),
        "torch_seed": None,
        "fewshot_seed": None,
    }
    env = dict(env or {})
    out |= {
        "git_hash": env.get("git_hash"),
        "date": env.get("date"),
        "pretty_env_info": env.get("pretty_env_info"),
        "transformers_version": env.get("transformers_version"),
        "lm_eval_version": LAYOUT_VERSION,
        "upper_git_hash": None,
        "task_hashes": {},  # the harness hashes logged samples only; none are logged
        "model_source": "biasbench",
        "model_name": model,
        "model_name_sanitized": sanitized(model),
        "system_instruction": None,
        "system_instruction_sha": None,
        "fewshot_as_multiturn": None,
        "chat_template": None,
        "chat_template_sha": None,
        "biasbench_version": __version__,
    }
    return out


def lm_eval_comparison(table: pd.DataFrame, coverage: Mapping[str, Mapping] | None = None) -> dict:
    """A paired comparison (``studies.model_comparison``) in the harness's results layout, its
    data-set measures (the embedding and probability measures are no harness task: the table
    has them): per task and filter (named as in :func:`lm_eval_results`), each metric's
    paired difference ``<metric>_diff`` (against minus base, a fraction like the metric), its
    stderr over the independent units, its p (the swap-level test) and Holm's p over the
    comparison, with the task's ``versions`` and ``n-shot`` as the model's own file, so the
    harness's ``make_table`` renders it.
    ``n-samples`` as the model's own file (:func:`_samples`, from the base model's data-set
    ``coverage``, data set -> its coverage file): ``original`` the items the data set holds,
    ``effective`` those scored (the rows' items for both where no coverage counts them)."""
    base, against = table["base"].iloc[0], table["against"].iloc[0]
    coverage = coverage or {}
    out: dict = {"results": {}, "versions": {}, "n-shot": {}, "higher_is_better": {}}
    out["n-samples"] = {}
    items: dict[str, int] = {}
    tasks = table[table["method"].isin(TASKS)]  # LPBS, the embedding measures: no harness task
    for row in tasks.sort_values(["method", "encoding", "variant"]).to_dict("records"):
        task, metric, fraction, higher = TASKS[row["method"]]
        scale = 100.0 if fraction else 1.0
        filtered = filter_of(row)
        entry = out["results"].setdefault(task, {"name": task, "alias": task})
        name = f"{metric}_diff"
        stderr = _value(row["stderr"] / scale)
        entry[f"{name},{filtered}"] = _value(row["difference"] / scale)
        entry[f"{name}_stderr,{filtered}"] = "N/A" if stderr is None else stderr
        entry[f"{name}_p,{filtered}"] = _value(row["p_value"])
        entry[f"{name}_p_holm,{filtered}"] = _value(row["p_holm"])
        out["higher_is_better"].setdefault(task, {})[name] = higher
        items[task] = max(items.get(task, 0), int(row["items"]))
    for task, count in items.items():
        out["n-samples"][task] = _samples(task, count, coverage)
        out["versions"][task] = VERSIONS[task]
        out["n-shot"][task] = 0
    out["config"] = {"model": "biasbench", "base_model": base, "compared_model": against}
    out |= {
        "model_name": f"{against} - {base}",
        "model_name_sanitized": sanitized(f"{against}__minus__{base}"),
        "lm_eval_version": LAYOUT_VERSION,
        "biasbench_version": __version__,
    }
    return out
