"""The compute settings: where a model runs (compute.device) and in what precision
(compute.dtype), resolved by one function that every model stage asks."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from biasbench.config import model_entry, validate_config
from biasbench.errors import InputError
from biasbench.models import device as dev
from biasbench.models.extract import encode_transformer
from biasbench.models.load import load_language_model, load_transformer
from biasbench.models.logprobs import Engine
from biasbench.models.specs import ModelSpec

from .tiny_models import tiny_bert, tiny_gpt2

FRAME = pd.DataFrame(
    [
        {
            "role": "X",
            "stimulus": w,
            "sentence": f"{p}{w}{s}",
            "start": len(p),
            "end": len(p) + len(w),
        }
        for p, w, s in [
            ("This is ", "person", "."),
            ("There is ", "thing", " here."),
            ("Here is a ", "person", " that is there."),
        ]
    ]
)


@pytest.fixture(scope="module", params=["bert", "gpt2"])
def tiny(request, tmp_path_factory):
    where = tmp_path_factory.mktemp(request.param)
    path = tiny_bert(where, mlm_head=True) if request.param == "bert" else tiny_gpt2(where, True)
    spec = ModelSpec.from_config(
        request.param, model_entry(kind="transformer", source=f"path:{path}")
    )
    return spec, path


def _no_accelerator(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)


def test_auto_resolves_to_the_cpu_without_an_accelerator(monkeypatch):
    _no_accelerator(monkeypatch)
    assert dev.resolve_device("auto") == "cpu"
    assert dev.resolve_device("cpu") == "cpu"


def test_auto_prefers_cuda_then_mps(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert dev.resolve_device("auto") == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert dev.resolve_device("auto") == "mps"


def test_auto_on_this_machine_is_what_torch_finds():
    expected = "cuda" if torch.cuda.is_available() else None
    if expected is None:
        expected = "mps" if torch.backends.mps.is_available() else "cpu"
    assert dev.resolve_device("auto") == expected


@pytest.mark.parametrize("setting", ["cuda", "mps"])
def test_an_absent_accelerator_is_an_input_error_naming_the_field(monkeypatch, setting):
    _no_accelerator(monkeypatch)
    with pytest.raises(InputError, match=r"compute\.device is " + setting):
        dev.resolve_device(setting)


def test_the_schema_refuses_an_unknown_device_or_dtype():
    with open("config.yaml", encoding="utf-8") as f:
        config = yaml.safe_load(f)
    filled = validate_config(copy.deepcopy(config))
    assert filled["compute"] == {
        "device": "auto",
        "dtype": dict.fromkeys(
            ["extraction", "logprobs", "groundtruth", "mlm_head", "null_calibration"], "float32"
        ),
    }
    for compute, field in [
        ({"device": "tpu"}, "compute.device"),
        ({"dtype": {"logprobs": "float8"}}, "compute.dtype.logprobs"),
        ({"dtype": {"tokenizer": "float32"}}, "compute.dtype"),
    ]:
        with pytest.raises(InputError, match=field.replace(".", r"\.")):
            validate_config({**copy.deepcopy(config), "compute": compute})


def test_cpu_is_honoured_and_gives_the_default_paths_numbers(tiny, monkeypatch):
    _no_accelerator(monkeypatch)
    spec, path = tiny
    default, tokenizer, _ = load_transformer(spec, path, device="auto")
    on_cpu, _, _ = load_transformer(spec, path, device="cpu")
    assert dev.compute_record(on_cpu) == {"device": "cpu", "dtype": "float32"}
    assert dev.compute_record(default) == {"device": "cpu", "dtype": "float32"}
    a = encode_transformer(default, tokenizer, FRAME, progress=False)
    b = encode_transformer(on_cpu, tokenizer, FRAME, progress=False)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    lm_default, tok, masked = load_language_model(spec, path, device="auto")
    lm_cpu, _, _ = load_language_model(spec, path, device="cpu")
    texts = ["This is a [MASK] ."] if masked else ["This is a"]
    ask = "slot_log_probs" if masked else "next_token_log_probs"
    np.testing.assert_array_equal(
        getattr(Engine(lm_default, tok, masked, batch=4), ask)(texts),
        getattr(Engine(lm_cpu, tok, masked, batch=4), ask)(texts),
    )


def test_a_dtype_is_honoured_and_recorded(tiny):
    spec, path = tiny
    full, tokenizer, _ = load_transformer(spec, path, device="cpu", dtype="float32")
    half, _, _ = load_transformer(spec, path, device="cpu", dtype="bfloat16")
    assert {p.dtype for p in half.parameters()} == {torch.bfloat16}
    assert dev.compute_record(half) == {"device": "cpu", "dtype": "bfloat16"}
    assert dev.describe(half) == "device cpu, dtype bfloat16"
    a = encode_transformer(full, tokenizer, FRAME, progress=False)
    b = encode_transformer(half, tokenizer, FRAME, progress=False)
    assert a["word/mean"].dtype == b["word/mean"].dtype == np.float32
    assert not np.array_equal(a["word/mean"], b["word/mean"])  # bfloat16 rounds
    np.testing.assert_allclose(a["word/mean"], b["word/mean"], atol=0.1)
    lm, tok, masked = load_language_model(spec, path, device="cpu", dtype="bfloat16")
    assert {p.dtype for p in lm.parameters()} == {torch.bfloat16}
    engine = Engine(lm, tok, masked, batch=4)
    out = engine.slot_log_probs(["This is a [MASK] ."]) if masked else None
    if out is None:
        out = engine.next_token_log_probs(["This is a"])
    assert np.isfinite(out).all()


class Asked(Exception):
    """The stage asked the resolver (raised to stop it there)."""


@pytest.fixture
def asked(monkeypatch):
    def resolve(setting, field="compute.device"):
        raise Asked(setting)

    monkeypatch.setattr(dev, "resolve_device", resolve)


def test_every_model_stage_asks_the_resolver(tiny, tmp_path, asked):
    from biasbench.models.embedding_cache import Encoder
    from biasbench.models.mlm_head import HeadSettings, train_mlm_head
    from biasbench.models.null import Architecture
    from biasbench.studies.groundtruth.states import load_study_lm

    spec, path = tiny
    stages = {
        "embeddings": lambda d: Encoder(spec, path, 1, {}, device=d),
        "transformer": lambda d: load_transformer(spec, path, device=d),
        "language model": lambda d: load_language_model(spec, path, device=d),
        "null copies": lambda d: Architecture.of(spec, path).random(3, device=d),
    }
    if spec.name == "bert":
        stages["ground truth"] = lambda d: load_study_lm(str(path), device=d)
        sentences = [f"This is the person number {i} here." for i in range(12)]
        settings = HeadSettings(train_sentences=8, heldout_sentences=2, epochs=1)
        stages["masked-LM head"] = lambda d: train_mlm_head(
            str(path), sentences, tmp_path / "head", settings, device=d
        )
    for stage, run in stages.items():
        with pytest.raises(Asked, match="mps"):
            run("mps")
        assert not (tmp_path / "head").exists(), stage


def test_set_threads_only_on_the_cpu(monkeypatch):
    calls = []
    monkeypatch.setattr(torch, "set_num_threads", calls.append)
    dev.set_threads("cuda", 4)
    assert calls == []
    dev.set_threads("cpu", 3)
    assert calls == [3]


def test_to_numpy_leaves_the_graph_and_the_device():
    t = torch.ones(3, requires_grad=True) * 2
    np.testing.assert_array_equal(dev.to_numpy(t), [2.0, 2.0, 2.0])


def test_the_embeddings_record_the_device_and_dtype(tiny):
    from biasbench.models.embedding_cache import ContextsOfTest, Encoder, signature_record

    spec, path = tiny
    encoder = Encoder(spec, path, 1, {}, device="cpu", dtype="bfloat16")
    assert encoder.compute == {"device": "cpu", "dtype": "bfloat16"}
    test = ContextsOfTest("t", {})
    records = {
        d: signature_record(spec, {}, "{}", "templates", test, {}, "code", d)
        for d in ("float32", "bfloat16")
    }
    assert records["float32"]["dtype"] == "float32"
    assert records["float32"] != records["bfloat16"]  # a cached float32 entry is not reused


def _job(device, dtype="float32", threads=3):
    """A hand-built stand-in for the Snakemake job a workflow script is given."""
    from types import SimpleNamespace

    return SimpleNamespace(params=SimpleNamespace(device=device, dtype=dtype), threads=threads)


def test_a_model_job_starts_with_its_threads_and_its_load_settings(monkeypatch, capsys):
    _no_accelerator(monkeypatch)
    calls = []
    monkeypatch.setattr(torch, "set_num_threads", calls.append)
    assert dev.start_model_job(_job("cpu", "bfloat16")) == {"device": "cpu", "dtype": "bfloat16"}
    assert calls == [3]
    # auto is passed on as it is: the loader resolves it again, the same way
    assert dev.start_model_job(_job("auto", threads=5)) == {"device": "auto", "dtype": "float32"}
    assert calls == [3, 5]
    dev.log_model(torch.nn.Linear(2, 2).to(torch.bfloat16))
    described, spent = capsys.readouterr().err.splitlines()
    assert described == "model: device cpu, dtype bfloat16"
    # and the CPU spent before it (what the job paid to load the model): scripts/job_cpu.py
    assert spent.startswith("cpu: model loaded ") and float(spent.split()[-1]) > 0


@pytest.mark.parametrize("setting", ["cuda", "mps"])
def test_a_model_job_on_an_absent_accelerator_fails_before_any_thread_is_set(monkeypatch, setting):
    _no_accelerator(monkeypatch)
    calls = []
    monkeypatch.setattr(torch, "set_num_threads", calls.append)
    with pytest.raises(InputError, match=r"compute\.device is " + setting):
        dev.start_model_job(_job(setting))
    assert calls == []


def test_a_driver_older_than_torchs_cuda_build_needs_is_named():
    """torch's CUDA build finds no GPU under an older driver and runs on the CPU silently:
    scripts/install.sh warns of it, and the provenance page says which driver it found."""
    assert dev.driver_problem("13.0", "535.104.05").startswith(
        "NVIDIA driver 535.104.05 is older than torch's CUDA 13.0 build needs (580.65.06"
    )
    assert "make install TORCH=cpu" in dev.driver_problem("13.0", "575.57.08")
    assert dev.driver_problem("13.0", "580.65.06") is None
    assert dev.driver_problem("13.0", "590.44.01") is None
    assert dev.driver_problem("12.8", "550.54.15") is None  # CUDA 12's minor releases: 525+
    assert dev.driver_problem(None, "470.0") is None  # a CPU build needs no driver
    assert dev.driver_problem("13.0", None) is None  # no driver: torch finds no GPU anyway
    assert dev.driver_line("13.0", "535.104.05") == (
        "535.104.05 (too old for CUDA 13.0, which needs 580.65.06 or newer)"
    )
    assert dev.driver_line("13.0", "580.95.05").startswith("580.95.05 (enough for CUDA 13.0")
    assert dev.driver_line(None, "580.95.05") == "580.95.05 (torch is a CPU build)"
    assert dev.driver_line("13.0", None) == "none (no nvidia-smi)"


def test_the_driver_version_is_read_from_nvidia_smi(tmp_path, monkeypatch):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 580.95.05\necho 580.95.05\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert dev.nvidia_driver() == "580.95.05"
    smi.unlink()
    assert dev.nvidia_driver() is None


def test_the_fused_adam_step_equals_the_per_tensor_one_up_to_rounding():
    """50 steps of a layer with Adam's fused kernel (what the CPU is given) and with the
    per-tensor update land on the same weights within float rounding; the device without a
    fused kernel keeps the per-tensor one."""
    assert dev.adam_kernel(torch.device("cpu")) == {"fused": True}
    assert dev.adam_kernel(torch.device("meta")) == {}
    torch.manual_seed(0)
    layer = torch.nn.Linear(16, 8)
    data = torch.randn(50, 4, 16)
    trained = []
    for kernel in ({}, dev.adam_kernel(torch.device("cpu"))):
        model = copy.deepcopy(layer)
        optimiser = torch.optim.Adam(model.parameters(), lr=1e-2, **kernel)
        for x in data:
            optimiser.zero_grad()
            model(x).pow(2).sum().backward()
            optimiser.step()
        trained.append(model)
    unfused, fused = trained
    assert not torch.equal(unfused.weight, layer.weight)  # it learnt
    for a, b in zip(unfused.parameters(), fused.parameters(), strict=True):
        torch.testing.assert_close(b, a, atol=1e-5, rtol=1e-5)
