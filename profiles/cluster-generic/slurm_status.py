#!/usr/bin/env python3
"""Job status for Snakemake's cluster-generic executor on SLURM, without accounting.

Usage (what `--cluster-generic-status-cmd` runs):  slurm_status.py JOBID
Prints exactly one line: success, failed or running.

Where the state comes from, in order:
1. `scontrol show job -o JOBID` - slurmctld keeps every job, finished ones too,
   for MinJobAge seconds (default 300) after it ended. Same data as squeue
   (plus ExitCode and Reason) in one call.
2. The job-completion log, when slurm.conf has JobCompType=jobcomp/filetxt
   (scripts/slurm_cluster.sh sets it): slurmctld appends one line per finished
   job there, no accounting daemon needed. Covers jobs already purged from
   slurmctld's memory, e.g. after a long Snakemake pause or a slurmctld restart.
3. `sacct` - only useful on real clusters that run slurmdbd.
If the controller does not answer at all, the job is reported as "running"
(Snakemake asks again later); if it answers but knows no such job and no other
source has it, the job is reported as "failed".

A job that is PENDING for a reason that can never clear (e.g. more CPUs than any
node of the partition has: Reason=PartitionConfig) is cancelled and reported as
"failed" instead of leaving Snakemake waiting forever.
Only the standard library; stderr carries the explanation, stdout only the word.
"""

import re
import subprocess
import sys

RUNNING = {
    "PENDING",
    "CONFIGURING",
    "RUNNING",
    "COMPLETING",
    "SUSPENDED",
    "REQUEUED",
    "REQUEUE_FED",
    "REQUEUE_HOLD",
    "RESIZING",
    "SIGNALING",
    "STAGE_OUT",
    "SPECIAL_EXIT",
    "STOPPED",
    "POWER_UP_NODE",
    "RESV_DEL_HOLD",
}
SUCCESS = {"COMPLETED"}
FAILED = {
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
    "PREEMPTED",
    "REVOKED",
}
# PENDING reasons that will not go away by waiting.
HOPELESS_REASONS = {
    "PartitionConfig",
    "PartitionNodeLimit",
    "PartitionTimeLimit",
    "BadConstraints",
    "DependencyNeverSatisfied",
    "InvalidAccount",
    "InvalidQOS",
}


def run(cmd, timeout=20):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return 255, "", str(e)


def field(text, name):
    m = re.search(rf"(?:^|\s){name}=(\S*)", text)
    return m.group(1) if m else None


def classify(state):
    state = (state or "").split()[0].rstrip("+") if state else ""
    if state in SUCCESS:
        return "success"
    if state in FAILED:
        return "failed"
    if state in RUNNING:
        return "running"
    return None


def from_scontrol(jobid):
    """(answer or None, controller_answered: bool)"""
    rc, out, err = run(["scontrol", "show", "job", "-o", jobid])
    if rc == 0 and "JobState=" in out:
        line = out.splitlines()[0]  # array jobs: the first line is enough here
        state, reason = field(line, "JobState"), field(line, "Reason")
        if state == "PENDING" and reason in HOPELESS_REASONS:
            print(
                f"slurm_status: job {jobid} can never start (Reason={reason}); cancelling it",
                file=sys.stderr,
            )
            run(["scancel", jobid])
            return "failed", True
        answer = classify(state)
        if answer == "failed":
            print(
                f"slurm_status: job {jobid} {state} ExitCode={field(line, 'ExitCode')} "
                f"Reason={reason}",
                file=sys.stderr,
            )
        if answer is None:
            print(
                f"slurm_status: job {jobid}: unknown state {state!r}, treating as running",
                file=sys.stderr,
            )
            answer = "running"
        return answer, True
    if "Invalid job id" in (out + err):
        return None, True  # the controller answered: it no longer knows the job
    print(f"slurm_status: scontrol failed for {jobid}: {err.strip()}", file=sys.stderr)
    return None, False


def jobcomp_file():
    rc, out, _ = run(["scontrol", "show", "config"])
    if rc != 0:
        return None
    kind = re.search(r"^JobCompType\s*=\s*(\S+)", out, re.M)
    loc = re.search(r"^JobCompLoc\s*=\s*(\S+)", out, re.M)
    if kind and kind.group(1) == "jobcomp/filetxt" and loc:
        return loc.group(1)
    return None


def from_jobcomp(jobid):
    path = jobcomp_file()
    if not path:
        return None
    state = None
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 8 * 1024 * 1024))  # the recent part is enough
            for raw in fh:
                line = raw.decode(errors="replace")
                if line.startswith(f"JobId={jobid} "):
                    state = field(line, "JobState")  # the last line wins
    except OSError:
        return None
    return classify(state)


def from_sacct(jobid):
    rc, out, _ = run(["sacct", "-X", "-n", "-P", "-j", jobid, "-o", "State"])
    if rc != 0 or not out.strip():
        return None
    return classify(out.splitlines()[0])


def main(argv):
    if len(argv) != 2:
        print("usage: slurm_status.py JOBID", file=sys.stderr)
        return 2
    # `sbatch --parsable` prints "id" or "id;cluster"
    jobid = argv[1].strip().split(";")[0]
    answer, controller_up = from_scontrol(jobid)
    if answer is None:
        answer = from_jobcomp(jobid) or from_sacct(jobid)
    if answer is None:
        if controller_up:
            print(
                f"slurm_status: job {jobid} is unknown to scontrol, the jobcomp log "
                "and sacct; reporting failed",
                file=sys.stderr,
            )
            answer = "failed"
        else:
            answer = "running"  # slurmctld unreachable: ask again next round
    print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
