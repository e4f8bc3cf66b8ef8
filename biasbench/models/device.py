"""Where a model runs and in what precision: the ``compute`` section of the configuration.

Every job that loads a model resolves its device here (:func:`resolve_device`), loads the
weights in the stage's dtype (:func:`torch_dtype`), moves its inputs to the model's device
and brings its outputs back to the CPU (``.cpu()`` before ``.numpy()``, :func:`to_numpy`).
A workflow job starts through :func:`start_model_job` and logs what it loaded with
:func:`log_model`. torch is imported only when a model is loaded, never when a module is
imported."""

from __future__ import annotations

import subprocess
import sys

from biasbench.errors import InputError

DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("float32", "float16", "bfloat16")
#: the oldest Linux NVIDIA driver each CUDA major release runs on (NVIDIA's CUDA release
#: notes; its minor releases share it, CUDA's minor-version compatibility)
CUDA_DRIVERS = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}


def resolve_device(setting: str, field: str = "compute.device") -> str:
    """The device a model runs on: ``auto`` is cuda when torch sees a CUDA device, else mps
    when the Apple backend is there, else cpu; an explicit accelerator that is absent is an
    :class:`InputError` naming ``field`` (the schema already refused any other value)."""
    import torch

    cuda = torch.cuda.is_available()
    mps_backend = getattr(torch.backends, "mps", None)
    mps = mps_backend is not None and mps_backend.is_available()
    if setting == "auto":
        return "cuda" if cuda else "mps" if mps else "cpu"
    if setting == "cpu":
        return "cpu"
    if setting == "cuda" and not cuda:
        raise InputError(f"config.yaml: {field} is cuda, but torch finds no CUDA device here")
    if setting == "mps" and not mps:
        raise InputError(f"config.yaml: {field} is mps, but torch finds no MPS device here")
    if setting not in DEVICES:
        raise InputError(f"config.yaml: {field} is {setting!r}, not one of {', '.join(DEVICES)}")
    return setting


def torch_build(version: str, cuda: str | None) -> str:
    """PyTorch's build in words: ``2.13.0+cpu (CPU)``, ``2.13.0 (CUDA 13.0)``; a build
    without CUDA is the CPU build (on macOS, with the MPS backend)."""
    return f"{version} ({f'CUDA {cuda}' if cuda else 'CPU'})"


def nvidia_driver() -> str | None:
    """The NVIDIA driver's version (``nvidia-smi``), or None where there is none."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return out[0] if out else None


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def driver_problem(cuda: str | None, driver: str | None) -> str | None:
    """Why torch's CUDA build ``cuda`` cannot use the GPU under NVIDIA driver ``driver``
    (torch then runs on the CPU without a word), or None: no CUDA build, no driver, or one
    new enough."""
    if not cuda or not driver:
        return None
    needed = CUDA_DRIVERS.get(_release(cuda)[0])
    if needed is None or _release(driver) >= _release(needed):
        return None
    return (
        f"NVIDIA driver {driver} is older than torch's CUDA {cuda} build needs ({needed} or"
        " newer): torch will find no GPU and run on the CPU; update the driver, or install"
        " PyTorch's CPU build on purpose (make install TORCH=cpu)"
    )


def driver_line(cuda: str | None, driver: str | None) -> str:
    """The driver in words for the provenance page: its version, and whether torch's CUDA
    build can use it."""
    if driver is None:
        return "none (no nvidia-smi)"
    if not cuda:
        return f"{driver} (torch is a CPU build)"
    needed = CUDA_DRIVERS.get(_release(cuda)[0], "?")
    verdict = "too old" if driver_problem(cuda, driver) else "enough"
    return f"{driver} ({verdict} for CUDA {cuda}, which needs {needed} or newer)"


def compute_environment(setting: str) -> dict[str, str]:
    """What the provenance page records of where a run computed: the torch build installed,
    the GPUs torch sees, and the device ``compute.device`` (``setting``) resolves to on this
    machine (every embedding file also records the device its own job used)."""
    import torch

    gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    return {
        "torch": torch_build(torch.__version__, torch.version.cuda),
        "GPUs": ", ".join(gpus) or "none",
        "NVIDIA driver": driver_line(torch.version.cuda, nvidia_driver()),
        "compute.device": f"{setting}, resolved to {resolve_device(setting)}",
    }


def torch_dtype(name: str, field: str = "compute.dtype"):
    """The torch dtype of a configured name (float32, float16, bfloat16)."""
    import torch

    if name not in DTYPES:
        raise InputError(f"config.yaml: {field} is {name!r}, not one of {', '.join(DTYPES)}")
    return getattr(torch, name)


def set_threads(device: str, threads: int) -> None:
    """The job's CPU threads for torch's intra-op pool (the cores it was given); on an
    accelerator the host threads only feed it, and torch's pool is left as it is."""
    import torch

    if device == "cpu":
        torch.set_num_threads(threads)


def adam_kernel(device) -> dict[str, bool]:
    """The keyword that makes torch's Adam update every parameter in one fused kernel per step
    on ``device`` (a torch device) where torch has one (the CPU, CUDA), instead of a dozen
    element-wise passes per tensor: the ground-truth study's top layer steps in 1.5 instead
    of 7.5 ms on one core. Equal to the unfused update up to float rounding (tested)."""
    return {"fused": True} if device.type in ("cpu", "cuda") else {}


def start_model_job(job) -> dict[str, str]:
    """Start a model job (a Snakemake job's ``params.device``, ``params.dtype`` and ``threads``):
    resolve its device, so an absent accelerator fails before any input is read, and give torch
    the job's threads on the CPU. Returns the settings to load with (``device=``, ``dtype=``):
    the configured device, which every loader resolves again in the same way."""
    set_threads(resolve_device(job.params.device), job.threads)
    return {"device": job.params.device, "dtype": job.params.dtype}


def model_device(model):
    """The torch device of a loaded model's weights (where its inputs are built): its
    ``device`` (a transformers model's, a study model's), else its first parameter's."""
    import torch

    device = getattr(model, "device", None)
    if device is not None:
        return torch.device(device)
    return next(model.parameters()).device


def to_numpy(tensor):
    """A tensor's values as a numpy array, from any device and out of any autograd graph
    (on the CPU the very array ``tensor.numpy()`` gives)."""
    return tensor.detach().cpu().numpy()


def place(model, device: str, dtype: str):
    """``model`` on ``device`` in ``dtype``, in eval mode (float32 on the CPU: unchanged)."""
    return model.to(device=device, dtype=torch_dtype(dtype)).eval()


def compute_record(model) -> dict[str, str]:
    """What a job records of how its model ran: the resolved device (``cpu``, ``cuda``,
    ``mps``) and the dtype of its weights (``float32``, ``bfloat16``, ...)."""
    weights = next(model.parameters())
    return {"device": weights.device.type, "dtype": str(weights.dtype).removeprefix("torch.")}


def describe(model) -> str:
    """The compute record as a log line: ``device cpu, dtype float32``."""
    record = compute_record(model)
    return f"device {record['device']}, dtype {record['dtype']}"


def log_model(model) -> None:
    """Write where the loaded model runs to the job's log (stderr): ``model: device cpu, dtype
    float32``, so a run on an unexpected device or precision shows there; and the CPU spent
    so far (``cpu: model loaded``: what a job paid before its first arithmetic)."""
    from biasbench.io import log_cpu

    print(f"model: {describe(model)}", file=sys.stderr)
    log_cpu("model loaded")


if __name__ == "__main__":
    # scripts/install.sh runs this where nvidia-smi exists: a warning, never a failure
    import torch

    problem = driver_problem(torch.version.cuda, nvidia_driver())
    if problem:
        print(f"install: WARNING: {problem}", file=sys.stderr)


def load_job_model(job, load):
    """A model job's model: the job started (:func:`start_model_job`), its model's spec read
    from ``params.spec``, loaded with ``load`` (``load_language_model`` or
    ``load_transformer``) from the prepared directory of ``input.model``, and logged.
    Returns (spec, *what ``load`` returns)."""
    from pathlib import Path

    from biasbench.models.specs import ModelSpec

    compute = start_model_job(job)
    spec = ModelSpec.from_config(job.wildcards.model, dict(job.params.spec))
    loaded = load(spec, Path(job.input.model).parent, **compute)
    log_model(loaded[0])
    return (spec, *loaded)
