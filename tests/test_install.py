"""scripts/install.sh: that it runs under macOS's /bin/bash 3.2 and BSD tools (a lint of the
shell scripts for what bash 3.2 and macOS lack, and the script itself run under a bash 3.2
where one is on this machine, else under this bash with BASH_COMPAT=3.2), and what it does,
with a stand-in .venv whose pip only records its arguments: TORCH=cpu refuses in seconds
where its wheel cannot be had, the lock's one sdist builds with the lock's setuptools, and
the NVIDIA driver is checked where nvidia-smi exists."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the shell a Mac user runs: `make install` and CI's entry point
MAC_SCRIPTS = [ROOT / "scripts" / "install.sh", ROOT / ".ci" / "run"]
#: every shell script: bash 3.2 must parse and run them all
SCRIPTS = sorted({*MAC_SCRIPTS, *(ROOT / "scripts").glob("*.sh")})

#: what bash 3.2 (macOS's /bin/bash) lacks, each with the bash release that added it
BASH4 = {
    r"\b(declare|typeset|local)\s+-[a-zA-Z]*A": "associative arrays (bash 4.0)",
    r"\b(declare|typeset|local)\s+-[a-zA-Z]*n\b": "namerefs (bash 4.3)",
    r"\b(mapfile|readarray)\b": "mapfile/readarray (bash 4.0)",
    r"\$\{[A-Za-z_]\w*(\[[^]]*\])?(,,?|\^\^?)": "case conversion ${x,,} ${x^^} (bash 4.0)",
    r"\$\{[^}]*@[QEPAaKkUuL]\}": "${x@Q}-style transformations (bash 4.4)",
    r"\$\{[A-Za-z_]\w*\[-\d+\]\}": "negative array indices (bash 4.3)",
    r"(^|[^;]);&|;;&": "case fall-through ;& and ;;& (bash 4.0)",
    r"\|&": "|& (bash 4.0)",
    r"&>>": "&>> (bash 4.0)",
    r"\bcoproc\b": "coproc (bash 4.0)",
    r"\bshopt\s+-s\s+(globstar|lastpipe|inherit_errexit)": "shopt options of bash 4",
    r"\*\*/": "** globs (globstar, bash 4.0)",
    r"\[\[\s+-v\b": "[[ -v ]] (bash 4.2)",
    r"\bwait\s+-n\b": "wait -n (bash 4.3)",
    r"\bread\s+(-\w+\s+)*-[a-zA-Z]*[Ni]": "read -N / -i (bash 4.0)",
    r"\$(EPOCHSECONDS|EPOCHREALTIME|BASHPID)\b": "bash 4/5 variables",
    r"%\([^)]*\)T": "printf %(...)T (bash 4.2)",
}
#: GNU-only tools and flags that macOS's BSD userland lacks or spells otherwise
GNU = {
    r"\bsed\s+(-\w+\s+)*-i(\s|$)": "sed -i without a suffix (BSD sed needs one: -i.bak)",
    r"\bsed\s+(-\w+\s+)*-r\b": "sed -r (BSD: -E)",
    r"\bgrep\s+(-\w+\s+)*-\w*P": "grep -P",
    r"\breadlink\s+-\w*f": "readlink -f",
    r"\bdate\s+(-\w+\s+)*-d\b": "date -d",
    r"\bstat\s+(-\w+\s+)*-c\b": "stat -c",
    r"\bxargs\s+(-\w+\s+)*-\w*r": "xargs -r",
    # in a command's place (a Python string's timeout=15 is no command)
    r"(^|[;&|(`]|\bthen|\bdo)\s*(sha256sum|md5sum|tac|nproc|timeout)\b": "a GNU coreutils command",
    r"\bpaste\s+-\w+(\s+'[^']*')?\s*\)": "paste without a file operand (BSD paste needs -)",
}


def arrays_expanded_unguarded(text: str) -> list[str]:
    """Arrays the script may leave empty (an ``x=()``) expanded as ``"${x[@]}"`` without
    the ``${x[@]+"${x[@]}"}`` guard: under ``set -u`` bash 3.2 calls them unbound."""
    empty = set(re.findall(r"\b([A-Za-z_]\w*)=\(\s*\)", text))
    unguarded = re.sub(r"\$\{(\w+)\[@\]\+\"\$\{\1\[@\]\}\"\}", "", text)
    return sorted(name for name in empty if f"${{{name}[@]}}" in unguarded)


def findings(text: str, rules: dict[str, str]) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = re.sub(r"(^|\s)#.*", "", line)  # a comment may name what the code avoids
        found += [f"line {number}: {why}" for rule, why in rules.items() if re.search(rule, code)]
    return found


def lint(text: str, mac: bool = True) -> list[str]:
    """What bash 3.2 (and, for a script a Mac user runs, macOS's tools) cannot run."""
    empty = [
        f"empty array {name} expanded under set -u" for name in arrays_expanded_unguarded(text)
    ]
    return empty + findings(text, {**BASH4, **(GNU if mac else {})})


@pytest.mark.parametrize(
    "snippet",
    [
        'index=()\npip install "${index[@]}" -r lock.txt',
        "declare -A seen",
        "local -n ref=x",
        "mapfile -t lines < f",
        'echo "${name,,}" "${name^^}"',
        'echo "${name@Q}"',
        'echo "${list[-1]}"',
        "case $x in a) echo ;& b) echo ;;& esac",
        "make 2>&1 |& tee log",
        "echo x &>> log",
        "coproc cat",
        "shopt -s globstar",
        "for f in src/**/*.py; do :; done",
        "[[ -v HOME ]]",
        "wait -n",
        "sed -i 's/a/b/' file",
        "sed -r 's/a+/b/' file",
        "grep -oP '\\d+' file",
        "readlink -f .",
        "sha256sum requirements/lock.txt",
        "timeout 10 sinfo",
        "x=$(grep -o a f | paste -sd ' ')",
    ],
)
def test_the_lint_rejects_what_bash_32_and_bsd_tools_lack(snippet):
    assert lint(snippet)


@pytest.mark.parametrize(
    "snippet",
    [
        'pip=(python -m pip)\n"${pip[@]}" install x',
        'index=()\npip install ${index[@]+"${index[@]}"} -r lock.txt',
        "sed -i.bak 's/a/b/' file && rm file.bak",
        "x=$(grep -o a f | paste -sd ' ' -)",
        'echo "${TORCH:-}" "${extra:+--extra-index-url "$extra"}"',
        "# sed -i is GNU's",
    ],
)
def test_the_lint_lets_portable_shell_pass(snippet):
    assert lint(snippet) == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_shell_scripts_run_on_bash_32(script):
    """Every script parses and runs on bash 3.2; the ones a Mac user runs use only tools
    macOS has (scripts/slurm_cluster.sh is Debian's SLURM on Linux: /proc, apt, timeout)."""
    assert lint(script.read_text(encoding="utf-8"), mac=script in MAC_SCRIPTS) == []


def test_make_lock_uses_no_gnu_only_tool():
    """`make lock` runs on macOS too: its recipe has no GNU sed -i, no sha256sum."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipes = "\n".join(line for line in makefile.splitlines() if line.startswith("\t"))
    assert findings(recipes, GNU) == []


def bash32() -> tuple[str, dict[str, str]]:
    """A bash 3.2 to run the script with: one on PATH as bash3.2 or bash32, or /bin/bash where
    it is 3.2 (every Mac); else this bash with BASH_COMPAT=3.2, which is only a partial check:
    it keeps bash 4's syntax and its empty arrays under set -u (the lint covers those)."""
    for candidate in (shutil.which("bash3.2"), shutil.which("bash32"), "/bin/bash"):
        if candidate and Path(candidate).exists():
            version = subprocess.run(
                [candidate, "-c", "echo $BASH_VERSION"], capture_output=True, text=True
            ).stdout
            if version.startswith("3.2"):
                return candidate, {}
    return shutil.which("bash"), {"BASH_COMPAT": "3.2"}


def fake_venv(tmp_path: Path, nvidia_driver: str | None = None) -> tuple[Path, Path]:
    """A copy of the script in ``tmp_path`` with locks of a few pins and a .venv whose python
    runs this Python, except that its pip, the CPU index probe and the driver check only
    append what they were asked (and the requirements files they were given) to a log."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "install.sh", tmp_path / "scripts")
    tag = "cp{}{}".format(*sys.version_info[:2])
    machine = os.uname().machine
    (tmp_path / "requirements").mkdir()
    common = (
        "setuptools==84.2.1 \\\n    --hash=sha256:" + "1" * 64 + "\n    # via snakemake\n"
        "connection-pool==0.0.3 \\\n    --hash=sha256:" + "2" * 64 + "\n"
    )
    (tmp_path / "requirements" / "lock.txt").write_text(
        common + "torch==2.13.0 \\\n    --hash=sha256:" + "3" * 64 + "\n"
    )
    (tmp_path / "requirements" / "lock-cpu.txt").write_text(
        "torch==2.13.0+cpu ; sys_platform == 'linux' \\\n    --hash=sha256:" + "4" * 64 + "\n"
        f"    #   wheel torch-2.13.0+cpu-{tag}-{tag}-manylinux_2_28_{machine}.whl\n"
        "torch==2.13.0 ; sys_platform == 'darwin' \\\n    --hash=sha256:" + "5" * 64 + "\n" + common
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # the report's browser driver "is there", so the script never runs apt-get
    (bin_dir / "chromedriver").write_text("#!/bin/sh\n")
    if nvidia_driver:
        (bin_dir / "nvidia-smi").write_text(f"#!/bin/sh\necho {nvidia_driver}\n")
    log = tmp_path / "log"
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        f"""#!/bin/sh
if [ "$1 $2" = "-m pip" ] || [ "$1 $2" = "-m biasbench.models.device" ]; then
    echo "$*" >>{log}
    prev=
    for arg in "$@"; do [ "$prev" = -r ] && sed 's/^/    | /' "$arg" >>{log}; prev=$arg; done
    case " $* " in *" --dry-run "*) exit "${{FAKE_PROBE:-0}}" ;; esac
    exit 0
fi
case "$2" in *urlopen*) echo "probe $2" >>{log}; exit "${{FAKE_INDEX:-1}}" ;; esac
exec {sys.executable} "$@"
"""
    )
    for tool in (python, bin_dir / "chromedriver", bin_dir / "nvidia-smi"):
        if tool.exists():
            tool.chmod(0o755)
    return log, bin_dir


def install(tmp_path: Path, nvidia_driver: str | None = None, **env: str):
    """Run the copied script under bash 3.2 (or BASH_COMPAT=3.2): its result, its log."""
    log, bin_dir = fake_venv(tmp_path, nvidia_driver)
    bash, compat = bash32()
    environment = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        **compat,
        **env,
    }
    start = time.monotonic()
    result = subprocess.run(
        [bash, "scripts/install.sh"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result.seconds = time.monotonic() - start
    return result, log.read_text() if log.exists() else ""


def test_the_default_install_runs_under_bash_32(tmp_path):
    """The default lock (no TORCH): the path every Mac takes, through to the library."""
    result, log = install(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "--extra-index-url" not in log
    assert "-e ." in log.splitlines()[-1]


def test_the_lock_installs_after_its_own_setuptools_without_build_isolation(tmp_path):
    """connection-pool is an sdist: it must build with the lock's setuptools (installed
    first, by hash), not with a build-isolation environment's unpinned one."""
    result, log = install(tmp_path)
    assert result.returncode == 0, result.stderr
    calls = [line for line in log.splitlines() if not line.startswith("    |")]
    tools = log.split(calls[1], 1)[1].split(calls[2], 1)[0]
    assert "--require-hashes" in calls[1] and "--no-build-isolation" not in calls[1]
    assert "setuptools==84.2.1" in tools and "connection-pool" not in tools
    assert "--require-hashes" in calls[2] and "--no-build-isolation" in calls[2]
    assert calls[2].endswith("-r requirements/lock.txt")


@pytest.mark.skipif(sys.platform != "linux", reason="the +cpu build is Linux's")
def test_torch_cpu_refuses_in_seconds_where_neither_index_nor_pip_has_the_wheel(tmp_path):
    """PyTorch's CPU index does not answer and pip's own configuration has no +cpu wheel:
    refused before any package is downloaded, with the ways out named."""
    result, log = install(tmp_path, TORCH="cpu", FAKE_INDEX="1", FAKE_PROBE="1")
    assert result.returncode == 1
    assert "does not answer" in result.stderr and "torch==2.13.0+cpu" in result.stderr
    assert "PIP_FIND_LINKS" in result.stderr and "no TORCH=cpu" in result.stderr
    assert "--dry-run" in log and "lock-cpu.txt" not in log
    assert result.seconds < 30


@pytest.mark.skipif(sys.platform != "linux", reason="the +cpu build is Linux's")
def test_torch_cpu_goes_on_where_pip_has_the_wheel_or_the_index_answers(tmp_path):
    result, log = install(tmp_path, TORCH="cpu", FAKE_INDEX="1", FAKE_PROBE="0")
    assert result.returncode == 0, result.stderr
    assert "comes from pip's own configuration" in result.stderr
    assert "--extra-index-url" not in log and "-r requirements/lock-cpu.txt" in log
    (tmp_path / "again").mkdir()
    result, log = install(tmp_path / "again", TORCH="cpu", FAKE_INDEX="0")
    assert result.returncode == 0, result.stderr
    assert "--dry-run" not in log
    assert (
        "--extra-index-url https://download.pytorch.org/whl/cpu -r requirements/lock-cpu.txt" in log
    )


def test_the_driver_is_checked_where_nvidia_smi_exists(tmp_path):
    result, log = install(tmp_path)
    assert "biasbench.models.device" not in log
    (tmp_path / "gpu").mkdir()
    result, log = install(tmp_path / "gpu", nvidia_driver="535.104.05")
    assert result.returncode == 0, result.stderr
    assert "-m biasbench.models.device" in log
