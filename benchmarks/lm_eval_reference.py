"""lm-evaluation-harness's own results file for crows_pairs_english on a local model, on the
CrowS-Pairs pairs the workflow scores (config.yaml's data file, its seeded sample of
``datasets.limits.crows_pairs`` pairs), the reference the export is compared with key by key
(tests/data/lm_eval/README.md).

The harness is not a dependency of biasbench: it runs from its own environment (``--harness``,
the python of a virtual environment with ``lm-eval[hf]`` installed). Its task is the harness's
own crows_pairs_english YAML, included unchanged from the installed package, with the data
set pointed at the local CSV (no download); every pair of the file is the split
(n-samples.original) and the workflow's sample is passed as ``--samples`` (effective).

    .venv/bin/python benchmarks/lm_eval_reference.py --harness /tmp/lmeval-venv/bin/python \\
        --pretrained results/models/smollm2-135m --workdir /tmp/lmeval-ref \\
        --fixture tests/data/lm_eval/smollm2-135m_crows_pairs_english.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from pathlib import Path

import yaml

from biasbench.data.datasets import sample
from biasbench.data.pairsets import read_crows_pairs
from biasbench.plan import resolve_files

ROOT = Path(__file__).resolve().parents[1]
TASK = "crows_pairs_english"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--harness", required=True, help="python of the harness's environment")
    parser.add_argument("--pretrained", type=Path, required=True, help="the model's directory")
    parser.add_argument("--workdir", type=Path, required=True, help="outside the repository")
    parser.add_argument("--pairs", type=int, default=None, help="default: config.yaml's limit")
    parser.add_argument("--batch-size", default="64")
    parser.add_argument("--fixture", type=Path, help="where to copy the results file to")
    args = parser.parse_args()
    config = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    data = resolve_files([config["datasets"]["files"]["crows_pairs"]["data"]], "reference")[0]
    n = len(read_crows_pairs(data))
    limit = args.pairs or config["datasets"]["limits"].get("crows_pairs")
    # the workflow's sample (biasbench.data.datasets.dataset_items): pair indices, file order
    chosen = sample(list(range(n)), limit, config["seed"], "crows_pairs")
    command, env = harness_command(
        args.harness, args.pretrained, args.workdir, chosen, args.batch_size
    )
    shown = [f"'<the {len(chosen)} pair indices>'" if c.startswith("{") else c for c in command]
    print(" ".join(shown), flush=True)
    subprocess.run(command, check=True, env=os.environ | env)
    written = max((args.workdir / "out").rglob("results_*.json"))
    print(written)
    if args.fixture:
        results = json.loads(written.read_text(encoding="utf-8"))
        config = results["configs"][TASK]
        # the task's functions are written as their source: the harness's code, left out
        for place, key in ((config, "doc_to_choice"), (config, "process_results")):
            place[key] = f"<the harness's utils.{key} (its source, left out of this copy)>"
        config["fewshot_config"]["doc_to_choice"] = "<the harness's utils.doc_to_choice>"
        text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
        args.fixture.write_text(text, encoding="utf-8")


def harness_command(
    harness: str, pretrained: Path, workdir: Path, chosen: list[int] | None, batch_size: str
) -> tuple[list[str], dict[str, str]]:
    """(the command, the environment variables it needs): the harness's own
    crows_pairs_english task on the local data file, on the pairs ``chosen`` (indices into
    the file; None: every pair), the model at ``pretrained`` in float32 on the CPU."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    data = resolve_files([config["datasets"]["files"]["crows_pairs"]["data"]], "reference")[0]
    installed = subprocess.run(
        [harness, "-c", "import lm_eval, os; print(os.path.dirname(lm_eval.__file__))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    tasks = workdir / "tasks"
    tasks.mkdir(parents=True, exist_ok=True)
    (tasks / f"{TASK}_local.yaml").write_text(
        yaml.safe_dump(
            {
                "include": f"{installed}/tasks/crows_pairs/{TASK}.yaml",
                "task": TASK,
                "dataset_path": "csv",
                "dataset_name": None,
                "dataset_kwargs": {"data_files": {"test": str(Path(data).resolve())}},
            },
            sort_keys=False,
        ),
        encoding="utf-8",
    )
    command = [
        harness,
        "-m",
        "lm_eval",
        "run",
        "--model",
        "hf",
        "--model_args",
        f"pretrained={pretrained.resolve()},dtype=float32",
        "--tasks",
        TASK,
        "--include_path",
        str(tasks),
        *(["--samples", json.dumps({TASK: chosen})] if chosen is not None else []),
        "--device",
        "cpu",
        "--batch_size",
        batch_size,
        "--output_path",
        str(workdir / "out"),
    ]
    return command, {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}


if __name__ == "__main__":
    main()
