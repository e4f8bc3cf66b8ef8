"""The workflow on a real single-node SLURM cluster started for the test run, through both
cluster profiles (the SLURM executor plugin, and the generic executor with sbatch / status /
scancel commands): a slice of the DAG (word sets, a model's preparation and embeddings, its
scores, one table) goes through sbatch, and its outputs are byte-identical to a local run.

Needs root (to install and start slurm-wlm and munge); elsewhere the test is skipped and says
why. ``scripts/slurm_cluster.sh stop`` runs at the end, also when a run fails."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from . import configs
from .conftest import ROOT, copy_workflow

CLUSTER = ROOT / "scripts" / "slurm_cluster.sh"
#: SLURM's own executor plugin and what it needs beyond the workflow (pyproject: extra ``slurm``)
SLURM_PLUGIN = (
    "snakemake-executor-plugin-slurm==2.8.0",
    "snakemake-executor-plugin-slurm-jobstep==0.6.1",
)
TARGET = "results/tables/weat_static.md"


@pytest.fixture(scope="module")
def cluster():
    if os.geteuid() != 0:
        pytest.skip("a SLURM cluster needs root to install and start slurm-wlm and munge")
    if shutil.which("apt-get") is None and shutil.which("slurmctld") is None:
        pytest.skip("SLURM is not installed and apt-get is not available to install it")
    start = subprocess.run([CLUSTER, "start"], capture_output=True, text=True, timeout=900)
    if start.returncode == 3:
        pytest.skip(f"SLURM cannot be started here: {start.stderr.strip()}")
    assert start.returncode == 0, start.stdout + start.stderr
    yield
    subprocess.run([CLUSTER, "stop"], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def slurm_plugin():
    """A directory holding the SLURM executor plugin, put on PYTHONPATH for the runs that use
    it. It stays out of the environment itself: at import the plugin asks scontrol and sacct for
    the cluster's settings, and after this test the SLURM tools stay installed with no
    controller answering, so every local Snakemake run would wait ~9 s for their timeouts."""
    target = Path(sys.prefix) / "slurm-plugin"
    if not (target / "snakemake_executor_plugin_slurm").is_dir():
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, "--no-deps", "--target", target, *SLURM_PLUGIN], check=True)
    return {"PYTHONPATH": str(target)}


def workdir(tmp_path, name):
    work = tmp_path / name
    work.mkdir()
    copy_workflow(work)
    # GloVe on C6, every study off (tests/configs/cluster.yaml)
    (work / "config.yaml").write_text(yaml.safe_dump(configs.load("cluster")))
    return work


def snakemake(work, *args, env=None, timeout=900):
    """Run Snakemake (``env``: variables added to ours); on a timeout interrupt it (SIGINT
    cancels its SLURM jobs), then kill it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakemake", *args, TARGET],
        cwd=work,
        env=os.environ | (env or {}),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        subprocess.run(["scancel", "--user=root"], check=False)
        pytest.fail(f"snakemake {' '.join(args)} took over {timeout} s:\n{out[-3000:]}")
    assert proc.returncode == 0, out[-4000:]
    return out


def outputs(work):
    return {
        str(p.relative_to(work)): p.read_bytes()
        for p in (work / "results").glob("**/*")
        if p.suffix in (".tsv", ".md", ".csv", ".json")
        and "logs" not in p.parts
        and "benchmarks" not in p.parts
    }


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    work = workdir(tmp_path_factory.mktemp("local"), "local")
    snakemake(work, "--cores", "2")
    return outputs(work)


@pytest.mark.parametrize(
    "profile, submitted",
    [("slurm", "with SLURM jobid"), ("cluster-generic", "with external jobid")],
)
def test_a_slice_of_the_dag_runs_through_sbatch_and_matches_a_local_run(
    cluster, slurm_plugin, local_run, tmp_path, profile, submitted
):
    work = workdir(tmp_path, profile)
    env = slurm_plugin if profile == "slurm" else None
    log = snakemake(work, "--workflow-profile", f"profiles/{profile}", env=env)
    jobs = [line for line in log.splitlines() if submitted in line]
    assert len(jobs) >= 3, log[-3000:]  # prepare_model, embed and the score job
    assert all(line.split(submitted)[1].strip(" '")[:1].isdigit() for line in jobs)
    assert not list(work.glob("slurm-*.out"))  # no scheduler logs in the working directory
    assert outputs(work) == local_run
