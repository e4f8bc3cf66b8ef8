"""Writes requirements/lock-cpu.txt, the lock `make install TORCH=cpu` installs: the universal
lock (requirements/lock.txt) without torch's CUDA stack, and on Linux PyTorch's CPU build
(``torch==<version>+cpu``) with the sha256 of each of its wheels for the Pythons the lock
claims. The hashes come from PyTorch's CPU index (its page lists every file with its sha256);
where that index cannot be reached, from wheel files given with ``--wheel`` (hashed here).
Each wheel the torch line covers is named in a comment, which scripts/install.sh reads to
refuse an interpreter or machine the lock has no CPU build for. On macOS the public index's
torch is already the CPU (and MPS) build: its pin and hashes stay as they are. It also writes
the lock's sha256 into envs/biasbench.post-deploy.sh (in Python, not `sed -i`, whose GNU and
BSD forms differ, so `make lock` runs on macOS too).

    python scripts/cpu_lock.py [--wheel FILE ...]
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
#: packages only the public index's Linux torch needs (its CUDA libraries and compiler)
CUDA_STACK = re.compile(r"^(nvidia-.*|cuda-.*|triton)$")
#: the CPython versions the lock claims (pyproject's requires-python)
PYTHONS = ("cp311", "cp312", "cp313")
BLOCK = re.compile(r"^(?=[A-Za-z0-9])", re.MULTILINE)


def blocks(lock: str) -> tuple[str, list[str]]:
    """The lock's header (comments before the first pin) and one text per pinned package."""
    head, *rest = BLOCK.split(lock)
    return head, rest


def package(block: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", block).group(0).lower()


def cpu_wheels(version: str, wheels: list[Path]) -> dict[str, str]:
    """File name -> sha256 of PyTorch's CPU wheels of ``version`` for Linux and PYTHONS."""
    wanted = re.compile(
        rf"torch-{re.escape(version)}\+cpu-({'|'.join(PYTHONS)})-\1-manylinux[^/]*\.whl"
    )
    if wheels:
        found = {w.name: hashlib.sha256(w.read_bytes()).hexdigest() for w in wheels}
    else:
        with urllib.request.urlopen(f"{CPU_INDEX}/torch/", timeout=60) as page:
            html = page.read().decode()
        found = {
            name.replace("%2B", "+"): digest
            for name, digest in re.findall(r"/([^/#\"]+\.whl)#sha256=([0-9a-f]{64})", html)
        }
    chosen = {name: digest for name, digest in found.items() if wanted.fullmatch(name)}
    if not chosen:
        sys.exit(f"cpu_lock: no CPU wheel of torch {version} for {', '.join(PYTHONS)} on Linux")
    return dict(sorted(chosen.items()))


def cpu_lock(lock: str, wheels: dict[str, str]) -> str:
    """``lock`` with the CUDA stack dropped and torch's Linux pin moved to the CPU build."""
    head, pins = blocks(lock)
    out = [
        "# requirements/lock.txt with PyTorch's CPU build on Linux (make install TORCH=cpu);\n"
        f"# written by scripts/cpu_lock.py, which `make lock` runs; torch from {CPU_INDEX}\n"
    ]
    for block in pins:
        name = package(block)
        if CUDA_STACK.match(name):
            continue
        if name == "torch":
            version = re.match(r"torch==([^\s;\\]+)", block).group(1)
            out.append(f"torch=={version}+cpu ; sys_platform == 'linux' \\\n")
            out.append(
                " \\\n".join(f"    --hash=sha256:{digest}" for digest in wheels.values()) + "\n"
            )
            out.extend(f"    #   wheel {name}\n" for name in wheels)
            darwin = f"torch=={version} ; sys_platform == 'darwin' "
            block = block.replace(f"torch=={version} ", darwin, 1)
        out.append(block)
    return "".join(out)


def stamp(script: str, lock: bytes) -> str:
    """The post-deploy ``script`` naming ``lock``'s sha256 on its ``LOCK_SHA256=`` line."""
    digest = hashlib.sha256(lock).hexdigest()
    return re.sub(r"^LOCK_SHA256=.*$", f"LOCK_SHA256={digest}", script, flags=re.MULTILINE)


def write(target: Path, text: str) -> None:
    """Replace ``target`` whole (never half-written), keeping its mode (the script's x bit)."""
    tmp = target.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(target.stat().st_mode if target.exists() else 0o644)
    tmp.replace(target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, action="append", default=[])
    args = parser.parse_args()
    lock = (ROOT / "requirements" / "lock.txt").read_text(encoding="utf-8")
    version = re.search(r"^torch==([^\s;\\+]+)", lock, re.MULTILINE).group(1)
    write(ROOT / "requirements" / "lock-cpu.txt", cpu_lock(lock, cpu_wheels(version, args.wheel)))
    post_deploy = ROOT / "envs" / "biasbench.post-deploy.sh"
    lock_bytes = (ROOT / "requirements" / "lock.txt").read_bytes()
    write(post_deploy, stamp(post_deploy.read_text(encoding="utf-8"), lock_bytes))


if __name__ == "__main__":
    main()
