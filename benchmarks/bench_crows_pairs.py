"""CrowS-Pairs on a causal LM over every pair of the file: the product's scoring (the
library calls of a model's ``logprobs`` job: every CrowS-Pairs method and encoding, with
their tests and bootstrap standard errors) against lm-evaluation-harness's
crows_pairs_english (log-likelihoods and its two metrics), one after the other on this
machine, one thread each, the same torch. Each side runs as a child process from a cold
start (imports and model loading included) and is measured by its CPU seconds (user +
system, ``getrusage`` of the child); the ratio is lm-evaluation-harness's over ours. The
two pct_stereotype values are printed side by side (they must agree: the export's check).

Run from a finished run's directory (its prepared model and fetched data file), with the
harness in its own environment (benchmarks/lm_eval_reference.py says how):

    .venv/bin/python benchmarks/bench_crows_pairs.py --harness /tmp/lmeval-venv/bin/python \\
        --model smollm2-135m --workdir /tmp/crows-bench
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from lm_eval_reference import TASK, harness_command

ROOT = Path(__file__).resolve().parents[1]
#: the product's side: what workflow_scripts/logprob_scores.py does, every pair of the file
OURS = """
import json, sys, yaml
from pathlib import Path
from biasbench.config import validate_config
from biasbench.models.device import start_model_job
from biasbench.models.load import load_language_model
from biasbench.models.logprobs import Engine
from biasbench.models.specs import ModelSpec
from biasbench.plan import resolve_files
from biasbench.scoring.dataset_stage import score_dataset
from biasbench.scoring.settings import ScoreSettings

config_file, name = sys.argv[1:]
config = yaml.safe_load(Path(config_file).read_text(encoding="utf-8"))
validate_config(config, str(Path(config_file).parent / "config" / "schema.yaml"))  # defaults
class Job:  # the parts of a Snakemake job start_model_job reads
    class params:
        device = config["compute"]["device"]
        dtype = config["compute"]["dtype"]["logprobs"]
    threads = 1
spec = ModelSpec.from_config(name, config["models"][name])
compute = start_model_job(Job)
model, tokenizer, masked = load_language_model(spec, Path("results/models") / name, **compute)
files = {r: resolve_files([p], r) for r, p in config["datasets"]["files"]["crows_pairs"].items()}
frame, coverage, _ = score_dataset(
    Engine(model, tokenizer, masked, batch=config["datasets"]["batch"]), "crows_pairs", files,
    None, model=name, signature="bench",
    settings=ScoreSettings(seed=config["seed"], **config["scoring"]),
)
row = frame[(frame["method"] == "CrowS-Pairs") & (frame["encoding"] == "causal-sentence")]
print(json.dumps({"pairs": coverage["items"], "pct_stereotype": float(row["effect_size"].iloc[0])}))
"""


def child_cpu(command: list[str], env: dict) -> tuple[float, str]:
    """(CPU seconds of the child, user + system; its standard output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, check=True, env=env, stdout=subprocess.PIPE, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--harness", required=True, help="python of the harness's environment")
    parser.add_argument("--model", default="smollm2-135m", help="a causal LM of config.yaml")
    parser.add_argument("--workdir", type=Path, required=True, help="outside the repository")
    parser.add_argument("--batch-size", default="64")
    args = parser.parse_args()
    config_file = ROOT / "config.yaml"
    one_thread = os.environ | {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    ours, out = child_cpu([sys.executable, "-c", OURS, str(config_file), args.model], one_thread)
    ours_result = json.loads(out.strip().splitlines()[-1])
    command, env = harness_command(
        args.harness, Path("results/models") / args.model, args.workdir, None, args.batch_size
    )
    theirs, _ = child_cpu(command, one_thread | env)
    written = max((args.workdir / "out").rglob("results_*.json"))
    harness = json.loads(written.read_text(encoding="utf-8"))["results"][TASK]
    print(f"pairs: {ours_result['pairs']} (ours), lm-evaluation-harness: every pair of the file")
    print(
        f"pct_stereotype: ours {ours_result['pct_stereotype']:.4f}, "
        f"lm-evaluation-harness {100 * harness['pct_stereotype,none']:.4f}"
    )
    print(f"CPU seconds: ours {ours:.1f}, lm-evaluation-harness {theirs:.1f}")
    print(f"ratio (lm-evaluation-harness / ours): {theirs / ours:.2f}")


if __name__ == "__main__":
    main()
