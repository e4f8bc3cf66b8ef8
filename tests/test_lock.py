"""The pinned environment: every pin of the lock servable by the public index for every
Python and platform the lock claims, the CPU lock derived from it, and the lock's packages
against what is installed, as the provenance page shows them."""

import hashlib
import importlib.util
import io
import json
import re
import tarfile
import time
import tomllib
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from packaging import tags
from packaging.markers import Marker
from packaging.specifiers import SpecifierSet
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from biasbench.models.device import compute_environment, torch_build
from biasbench.reports.provenance import (
    LOCK_FILE,
    PIN,
    ROOT,
    compute_section,
    installed_lock,
    locked_packages,
    packages_section,
)

LOCK = """\
#    make lock
numpy==2.4.6 \\
    --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93
    # via biasbench (pyproject.toml)
Typing_Extensions==4.16.0 \\
    --hash=sha256:0000000000000000000000000000000000000000000000000000000000000000
colorama==0.4.6 ; sys_platform == 'win32' \\
    --hash=sha256:2222222222222222222222222222222222222222222222222222222222222222
nvidia-cublas==13.1.1.3 ; sys_platform == 'linux' \\
    --hash=sha256:3333333333333333333333333333333333333333333333333333333333333333
torch==2.13.0+cpu \\
    --hash=sha256:6746dbcbeb526eb61330b76b41ff1b4eb848951103a892eeb080dfa2b264667b
# the model zoo (requirements/zoo.txt), pinned without its dependencies
gensim==4.4.0 \\
    --hash=sha256:1111111111111111111111111111111111111111111111111111111111111111
"""

#: scripts/cpu_lock.py, a script (the lock tool's Python runs it, without this library)
_spec = importlib.util.spec_from_file_location("cpu_lock", ROOT / "scripts" / "cpu_lock.py")
cpu_lock = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cpu_lock)
INSTALL = (ROOT / "scripts" / "install.sh").read_text(encoding="utf-8")

#: the platforms the lock claims (README, docs/environment.md): Linux with glibc >= 2.28 on
#: x86_64 and aarch64, macOS 14 or newer on Apple silicon
PLATFORMS = {
    "linux-x86_64": ("linux", "Linux", "x86_64"),
    "linux-aarch64": ("linux", "Linux", "aarch64"),
    "macos-arm64": ("darwin", "Darwin", "arm64"),
}


def claimed_pythons() -> list[tuple[int, int]]:
    """The CPython versions pyproject's requires-python admits, of 3.8-3.19."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    spec = SpecifierSet(project["project"]["requires-python"])
    return [(3, minor) for minor in range(8, 20) if f"3.{minor}.0" in spec]


def target_tags(python: tuple[int, int], platform: str) -> set[tags.Tag]:
    """The wheel tags pip accepts for CPython ``python`` on ``platform``."""
    machine = PLATFORMS[platform][2]
    if platform == "macos-arm64":
        platforms = list(tags.mac_platforms((14, 0), "arm64"))
    else:
        platforms = [f"manylinux_2_{glibc}_{machine}" for glibc in range(28, 4, -1)]
        platforms += [f"manylinux2014_{machine}"]
        platforms += [f"manylinux2010_{machine}", f"manylinux1_{machine}"] * (machine == "x86_64")
    abi = f"cp{python[0]}{python[1]}"
    return {
        *tags.cpython_tags(python, abis=[abi], platforms=platforms),
        *tags.compatible_tags(python, interpreter=abi, platforms=platforms),
    }


def marker_environment(python: tuple[int, int], platform: str) -> dict[str, str]:
    sys_platform, system, machine = PLATFORMS[platform]
    return {
        "python_version": f"{python[0]}.{python[1]}",
        "python_full_version": f"{python[0]}.{python[1]}.0",
        "sys_platform": sys_platform,
        "platform_system": system,
        "platform_machine": machine,
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": "",
    }


def pins(lock_text: str) -> list[tuple[str, str, str, set[str]]]:
    """(name, version, marker, hashes) of each pin of a requirements file: its blocks as
    scripts/cpu_lock.py splits them, each block's pin as the provenance page reads it."""
    found = []
    for block in cpu_lock.blocks(lock_text)[1]:
        name, release, marker = PIN.match(block).groups()
        digests = set(re.findall(r"--hash=sha256:([0-9a-f]{64})", block))
        found.append((name.lower(), release, (marker or "").strip(), digests))
    return found


def unservable(lock_text: str, index_files, pythons, platforms=tuple(PLATFORMS)) -> list[str]:
    """What the public index cannot serve of a lock: a local version (``+cpu``), a hash of a
    file the index does not hold, and a pin with no hashed file for a Python and platform
    where its marker holds. ``index_files(name, version)`` lists the index's files of a
    release as (file name, sha256)."""
    problems = []
    releases = list(pins(lock_text))
    with ThreadPoolExecutor(8) as pool:
        files = list(pool.map(lambda p: index_files(p[0], p[1]), releases))
    for (name, release, marker, digests), listed in zip(releases, files, strict=True):
        if "+" in release:
            problems.append(f"{name}=={release}: a local version, which no public index serves")
            continue
        stray = digests - {digest for _, digest in listed}
        if stray:
            problems.append(f"{name}=={release}: {len(stray)} hash(es) of no file on the index")
        for python in pythons:
            for platform in platforms:
                environment = marker_environment(python, platform)
                if marker and not Marker(marker).evaluate(environment):
                    continue
                accepted = target_tags(python, platform)
                usable = [
                    digest
                    for filename, digest in listed
                    if digest in digests
                    and (
                        not filename.endswith(".whl")
                        or accepted & parse_wheel_filename(filename)[3]
                    )
                ]
                if not usable:
                    problems.append(
                        f"{name}=={release}: no hashed file for Python"
                        f" {python[0]}.{python[1]} on {platform}"
                    )
    return problems


class IndexUnreachable(Exception):
    """The index did not answer (the network, not the lock): the check cannot be made."""


def pypi_files(name: str, release: str) -> list[tuple[str, str]]:
    """The public index's files of a release, from its simple API (PEP 691); a name the
    index does not know has none. A network failure is retried, then IndexUnreachable."""
    request = urllib.request.Request(
        f"https://pypi.org/simple/{canonicalize_name(name)}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    for attempt in range(4):
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                listing = json.load(response)["files"]
            break
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return []
            raise
        except OSError as error:
            if attempt == 3:
                raise IndexUnreachable(f"{request.full_url}: {error}") from error
            time.sleep(2**attempt)
    wanted = Version(release) if "+" not in release else None
    found = []
    for entry in listing:
        filename = entry["filename"]
        try:
            parsed = (
                parse_wheel_filename(filename)
                if filename.endswith(".whl")
                else parse_sdist_filename(filename)
            )
        except (InvalidWheelFilename, InvalidSdistFilename):
            continue
        if parsed[1] == wanted and "sha256" in entry["hashes"]:
            found.append((filename, entry["hashes"]["sha256"]))
    return found


def test_the_lock_claims_python_311_to_313():
    assert claimed_pythons() == [(3, 11), (3, 12), (3, 13)]


def test_a_local_version_and_a_one_platform_hash_are_unservable():
    """A hand-built index: numpy with a Linux x86_64 wheel for 3.11 only, six pure Python,
    torch's +cpu build, which the public index never holds."""
    index = {
        ("numpy", "2.4.6"): [
            ("numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", "a" * 64),
            ("numpy-2.4.6-cp313-cp313-macosx_14_0_arm64.whl", "b" * 64),
        ],
        ("six", "1.17.0"): [("six-1.17.0-py2.py3-none-any.whl", "c" * 64)],
        ("nvidia-nccl-cu13", "2.29.7"): [
            ("nvidia_nccl_cu13-2.29.7-py3-none-manylinux_2_18_x86_64.whl", "d" * 64),
            ("nvidia_nccl_cu13-2.29.7-py3-none-manylinux_2_18_aarch64.whl", "e" * 64),
        ],
    }
    lock = (
        f"numpy==2.4.6 \\\n    --hash=sha256:{'a' * 64}\n"
        f"six==1.17.0 \\\n    --hash=sha256:{'c' * 64}\n"
        f"nvidia-nccl-cu13==2.29.7 ; sys_platform == 'linux' \\\n"
        f"    --hash=sha256:{'d' * 64} \\\n    --hash=sha256:{'e' * 64}\n"
    )
    files = lambda name, release: index.get((name, release), [])  # noqa: E731
    pythons = [(3, 11), (3, 13)]
    assert unservable(lock, files, pythons) == [
        "numpy==2.4.6: no hashed file for Python 3.11 on linux-aarch64",
        "numpy==2.4.6: no hashed file for Python 3.11 on macos-arm64",
        "numpy==2.4.6: no hashed file for Python 3.13 on linux-x86_64",
        "numpy==2.4.6: no hashed file for Python 3.13 on linux-aarch64",
        "numpy==2.4.6: no hashed file for Python 3.13 on macos-arm64",
    ]
    both = lock.replace(f"{'a' * 64}\n", f"{'a' * 64} \\\n    --hash=sha256:{'b' * 64}\n", 1)
    assert "numpy==2.4.6: no hashed file for Python 3.13 on macos-arm64" not in unservable(
        both, files, pythons
    )
    local = lock + f"torch==2.13.0+cpu \\\n    --hash=sha256:{'f' * 64}\n"
    assert unservable(local, files, [(3, 11)], ["linux-x86_64"]) == [
        "torch==2.13.0+cpu: a local version, which no public index serves"
    ]
    stray = lock.replace(f"{'c' * 64}\n", f"{'c' * 64} \\\n    --hash=sha256:{'9' * 64}\n")
    assert "six==1.17.0: 1 hash(es) of no file on the index" in unservable(
        stray, files, [(3, 11)], ["linux-x86_64"]
    )


def test_the_public_index_serves_every_pin_for_every_claimed_python_and_platform():
    """requirements/lock.txt against PyPI itself (no pip configuration, no local wheels)."""
    try:
        urllib.request.urlopen("https://pypi.org/simple/", timeout=20).close()
    except OSError as error:
        pytest.skip(f"the public index is not reachable here: {error}")
    lock = LOCK_FILE.read_text(encoding="utf-8")
    try:
        problems = unservable(lock, pypi_files, claimed_pythons())
    except IndexUnreachable as error:
        pytest.skip(f"the public index stopped answering: {error}")
    assert problems == []


def test_the_cpu_lock_is_the_lock_with_pytorchs_cpu_build():
    """requirements/lock-cpu.txt is what scripts/cpu_lock.py makes of the current lock: the
    same pins without the CUDA stack, torch's CPU build on Linux, the public build on macOS."""
    text = (ROOT / "requirements" / "lock-cpu.txt").read_text(encoding="utf-8")
    linux_torch = re.search(r"^torch==\S+ ; sys_platform == 'linux'.*?(?=^\S)", text, re.M | re.S)
    digests = re.findall(r"sha256:([0-9a-f]{64})", linux_torch.group(0))
    wheels = re.findall(r"#   wheel (\S+)", linux_torch.group(0))
    assert len(wheels) == len(digests) > 0
    lock = LOCK_FILE.read_text(encoding="utf-8")
    assert text == cpu_lock.cpu_lock(lock, dict(zip(wheels, digests, strict=True)))
    names = {p[0] for p in pins(text)}
    assert "torch" in names and not {n for n in names if cpu_lock.CUDA_STACK.match(n)}
    assert {(n, v, frozenset(h)) for n, v, _, h in pins(text) if n != "torch"} <= {
        (n, v, frozenset(h)) for n, v, _, h in pins(lock)
    }


def test_pins_of_other_platforms_are_left_out_and_installed_versions_compared():
    installed = {"numpy": "2.4.6", "typing-extensions": "4.16.0", "torch": "2.13.0+cu130"}
    linux = marker_environment((3, 11), "linux-x86_64")
    table = locked_packages(LOCK, installed, linux).set_index("package")
    assert list(table.index) == ["numpy", "typing-extensions", "nvidia-cublas", "torch", "gensim"]
    assert table.loc["torch", ["locked", "installed", "differs"]].tolist() == [
        "2.13.0+cpu",
        "2.13.0+cu130",
        "yes",
    ]
    assert table.loc["gensim", ["installed", "differs"]].tolist() == ["", "yes"]
    assert table.loc[["numpy", "typing-extensions"], "differs"].tolist() == ["", ""]
    mac = locked_packages(LOCK, installed, marker_environment((3, 13), "macos-arm64"))
    assert "nvidia-cublas" not in set(mac["package"]) and "colorama" not in set(mac["package"])


def test_the_section_names_the_lock_and_puts_the_differing_packages_first(tmp_path):
    lock = tmp_path / "requirements" / "lock.txt"
    assert "No requirements/lock.txt" in packages_section(lock)
    lock.parent.mkdir()
    lock.write_text(f"numpy=={version('numpy')}\npytest==0.0.1\n")
    html = packages_section(lock)
    assert "2 locked in requirements/lock.txt, 1 installed at another version" in html
    assert html.index("<td>pytest</td>") < html.index("<td>numpy</td>")


def test_torch_build_in_words_and_the_device_auto_takes_here():
    assert torch_build("2.13.0+cpu", None) == "2.13.0+cpu (CPU)"
    assert torch_build("2.13.0", "13.0") == "2.13.0 (CUDA 13.0)"
    import torch

    here = compute_environment("auto")
    on = "cuda" if torch.cuda.is_available() else "cpu"  # this machine: no GPU, so cpu
    assert here["compute.device"] == f"auto, resolved to {on}"
    assert here["torch"].startswith(torch.__version__)
    assert compute_section(here).count("<tr>") == 5


def test_the_environment_is_the_locked_one():
    """What `make install` installed: every package at the version the lock it installed
    pins (requirements/lock.txt, or lock-cpu.txt with TORCH=cpu)."""
    lock = installed_lock()
    assert lock.parent == ROOT / "requirements" and lock.is_file()
    table = locked_packages(lock.read_text(encoding="utf-8"))
    assert len(table) > 100 and "torch" in set(table["package"])
    assert table[table["differs"] == "yes"].empty, table[table["differs"] == "yes"]
    assert Path(lock).name in packages_section()


def test_the_conda_route_installs_the_same_pins():
    """envs/biasbench.yaml brings only Python and pip; its post-deploy script installs
    requirements/lock.txt and names the lock's sha256 (so a new lock is a new environment)."""
    environment = yaml.safe_load((ROOT / "envs" / "biasbench.yaml").read_text(encoding="utf-8"))
    assert all(isinstance(d, str) for d in environment["dependencies"])  # no pip: section
    script = (ROOT / "envs" / "biasbench.post-deploy.sh").read_text(encoding="utf-8")
    named = re.search(r"^LOCK_SHA256=([0-9a-f]{64})$", script, re.MULTILINE).group(1)
    assert named == hashlib.sha256(LOCK_FILE.read_bytes()).hexdigest()
    assert "--require-hashes --no-deps -r requirements/lock.txt" in script


def build_tools() -> list[str]:
    """The build tools scripts/install.sh installs from the lock before the rest, which it
    then installs without build isolation (so an sdist builds with these pins, nothing
    fetched)."""
    found = re.search(r"^lock_block (\S+) >\"\$build_tools\"", INSTALL, re.MULTILINE)
    return found.group(1).split() if found else []


@pytest.mark.parametrize("name", ["lock.txt", "lock-cpu.txt"])
def test_every_line_of_the_locks_is_a_hash_pinned_package(name):
    """Each non-comment line is a pin (``name==version``, a marker at most), a hash or a
    comment: nothing unpinned, no option, and every pin has at least one sha256."""
    text = (ROOT / "requirements" / name).read_text(encoding="utf-8")
    for line in text.splitlines():
        stripped = line.strip()
        assert (
            not stripped
            or stripped.startswith("#")
            or re.fullmatch(r"--hash=sha256:[0-9a-f]{64}( \\)?", stripped)
            or re.fullmatch(r"[A-Za-z0-9._-]+==[^\s;]+( ; [^\\]+)? \\", line)
        ), line
    assert all(digests for *_, digests in pins(text))


def test_the_build_tools_are_pinned_and_the_lock_installs_without_build_isolation():
    assert build_tools() == ["setuptools"]
    for name in ("lock.txt", "lock-cpu.txt"):
        locked = {p[0]: p[3] for p in pins((ROOT / "requirements" / name).read_text())}
        assert all(locked.get(tool) for tool in build_tools()), name
    lock_install = re.search(
        r'^"\$\{pip\[@\]\}" --require-hashes.*-r "\$LOCK"$', INSTALL, re.M | re.S
    )
    assert "--no-build-isolation" in lock_install.group(0)


def test_the_sdists_of_the_lock_build_with_the_pinned_build_tools(tmp_path):
    """The pins PyPI holds no wheel of are built at install: each one's build requirements
    (its pyproject.toml's, else setuptools, pip's default) are the lock's build tools."""
    try:
        urllib.request.urlopen("https://pypi.org/simple/", timeout=20).close()
    except OSError as error:
        pytest.skip(f"the public index is not reachable here: {error}")
    releases = [(name, release) for name, release, *_ in pins(LOCK_FILE.read_text())]
    try:
        with ThreadPoolExecutor(8) as pool:
            files = dict(zip(releases, pool.map(lambda p: pypi_files(*p), releases), strict=True))
    except IndexUnreachable as error:
        pytest.skip(f"the public index stopped answering: {error}")
    sdists = {
        release: listed
        for release, listed in files.items()
        if listed and not any(f.endswith(".whl") for f, _ in listed)
    }
    assert set(sdists) == {("connection-pool", "0.0.3")}  # a new one: check its build here
    for (name, _), [(filename, digest)] in sdists.items():
        request = urllib.request.Request(
            f"https://pypi.org/simple/{name}/",
            headers={"Accept": "application/vnd.pypi.simple.v1+json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            url = next(f["url"] for f in json.load(response)["files"] if f["filename"] == filename)
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
        assert hashlib.sha256(data).hexdigest() == digest
        with tarfile.open(fileobj=io.BytesIO(data)) as sdist:
            pyproject = [
                m
                for m in sdist.getmembers()
                if m.name.count("/") == 1 and m.name.endswith("/pyproject.toml")
            ]
            requires = ["setuptools"]
            if pyproject:
                build = tomllib.loads(sdist.extractfile(pyproject[0]).read().decode())
                requires = build.get("build-system", {}).get("requires", requires)
        names = {canonicalize_name(re.match(r"[A-Za-z0-9._-]+", r).group(0)) for r in requires}
        assert names <= set(build_tools()), (name, requires)


def test_the_post_deploy_script_is_stamped_with_the_locks_sha256():
    """`make lock` stamps it through scripts/cpu_lock.py (in Python: GNU's and BSD's sed -i
    differ)."""
    script = "#!/bin/sh\nLOCK_SHA256=old\npip install\n"
    digest = hashlib.sha256(b"numpy==2.4.6\n").hexdigest()
    assert cpu_lock.stamp(script, b"numpy==2.4.6\n") == script.replace("old", digest)
