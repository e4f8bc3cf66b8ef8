import struct

import numpy as np
import pytest

from biasbench.config import model_entry
from biasbench.errors import InputError
from biasbench.models.load import load_static
from biasbench.models.prepare import prepare_model, read_static_vectors
from biasbench.models.specs import ModelSpec, model_spec


def test_unknown_model_name():
    with pytest.raises(InputError, match=r"unknown model 'bert'; configured models: \['glove'\]"):
        model_spec({"models": {"glove": {"kind": "static", "source": "glove-pkg:x"}}}, "bert")


@pytest.mark.parametrize(
    "cfg, message",
    [
        ({"kind": "lstm", "source": "hf:x"}, "kind must be one of"),
        ({"kind": "static", "source": "hf:bert-base-cased"}, "scheme in"),
        ({"kind": "transformer", "source": "bert-base-cased"}, "'<scheme>:<location>'"),
    ],
)
def test_bad_model_entry(cfg, message):
    with pytest.raises(InputError, match=message):
        ModelSpec.from_config("m", cfg)


def test_hub_ids_are_accepted():
    for model_id in ("bert-base-cased", "gpt2", "facebook/opt-125m", "bigscience/bloom-560m"):
        spec = ModelSpec.from_config("m", model_entry(kind="transformer", source=f"hf:{model_id}"))
        assert spec.location == model_id


def _w2v_file(path, words, vectors):
    with open(path, "wb") as fh:
        fh.write(f"{len(words)} {vectors.shape[1]}\n".encode())
        for w, v in zip(words, vectors, strict=True):
            fh.write(w.encode() + b" " + struct.pack(f"{len(v)}f", *v) + b"\n")


def test_word2vec_reader_and_lookup_policy(tmp_path):
    words = ["he", "she", "New_York", "fried", "chicken", "he"]
    vectors = np.arange(12, dtype=np.float32).reshape(6, 2)
    _w2v_file(tmp_path / "v.bin", words, vectors)
    got_words, got = read_static_vectors(tmp_path / "v.bin")
    assert got_words == words
    np.testing.assert_array_equal(got, vectors)

    (tmp_path / "m").mkdir()
    np.save(tmp_path / "m" / "vectors.npy", vectors)
    (tmp_path / "m" / "vocab.txt").write_text("\n".join(words) + "\n")
    sv = load_static(
        tmp_path / "m", ModelSpec("m", "static", "w2v-pkg", "x", None, False, -1, "any")
    )
    np.testing.assert_array_equal(sv.lookup("he"), [0, 1])  # first entry wins
    np.testing.assert_array_equal(sv.lookup("New York"), [4, 5])  # phrase as underscores
    np.testing.assert_array_equal(sv.lookup("fried-chicken"), [7, 8])  # mean of the parts
    assert sv.lookup("She") is None  # case-sensitive model
    assert sv.lookup("fried rice") is None


def test_truncated_word2vec_file(tmp_path):
    (tmp_path / "v.bin").write_bytes(b"2 2\nhe " + struct.pack("f", 1.0))
    with pytest.raises(InputError, match="entry 1 of 2 .* is truncated"):
        read_static_vectors(tmp_path / "v.bin")


def test_missing_package(tmp_path):
    spec = ModelSpec.from_config(
        "m", model_entry(kind="static", source="glove-pkg:no_such_pkg_xyz")
    )
    with pytest.raises(InputError, match="package 'no_such_pkg_xyz' is not installed"):
        prepare_model(spec, tmp_path / "model")
    assert not (tmp_path / "model").exists()  # nothing is written for a source that fails


def test_hub_models_load_safetensors_at_the_pinned_revision(tmp_path):
    from biasbench.models.load import hub_options

    from .tiny_models import tiny_bert

    hub = ModelSpec.from_config(
        "b", model_entry(kind="transformer", source="hf:bert-base-uncased", revision="86b5e09")
    )
    assert hub_options(hub) == {"revision": "86b5e09", "use_safetensors": True}
    where = tiny_bert(tmp_path / "m")
    local = ModelSpec.from_config("l", model_entry(kind="transformer", source=f"path:{where}"))
    assert hub_options(local) == {}


def test_a_local_model_directory_is_checked_where_it_is_configured(tmp_path):
    """A ``path:`` model that is not a saved model fails at the config edge, naming the field
    (it used to fail later with a hub "repo id" error, or embed nothing without a tokenizer)."""
    from .tiny_models import tiny_bert

    def spec(where):
        return ModelSpec.from_config(
            "mine", model_entry(kind="transformer", source=f"path:{where}")
        )

    with pytest.raises(InputError, match=r"models.mine.source path:.*no such directory"):
        spec(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no config.json"):
        spec(tmp_path / "empty")
    where = tiny_bert(tmp_path / "m")
    weights = where / "model.safetensors"
    weights.rename(tmp_path / "weights")
    with pytest.raises(InputError, match=r"no weights \(\*.safetensors; save the model"):
        spec(where)
    (tmp_path / "weights").rename(weights)
    for f in where.iterdir():
        if f.name.startswith(("tokenizer", "vocab", "special_tokens")):
            f.unlink()
    with pytest.raises(InputError, match="no tokenizer files"):
        spec(where)


def test_a_local_model_whose_tokenizer_does_not_load_is_refused_while_planning(tmp_path):
    """A ``path:`` model with tokenizer_config.json alone passed the file check and failed in
    embed_group, asking to install sentencepiece or tiktoken, not naming the missing file."""
    from biasbench.config import validate_config
    from biasbench.plan import make_plan

    from .test_plan_isolation import ROOT, default_config
    from .tiny_models import tiny_bert

    where = tiny_bert(tmp_path / "m")

    def plan():
        config = default_config()
        config["models"]["mine"] = model_entry(kind="transformer", source=f"path:{where}")
        config["only_models"] = ["mine"]
        return make_plan(validate_config(config), ROOT)

    assert "mine" in plan().specs  # saved whole: its tokenizer loads
    (where / "tokenizer.json").unlink()
    assert [f.name for f in where.glob("tokenizer*")] == ["tokenizer_config.json"]
    with pytest.raises(InputError) as error:
        plan()
    message = str(error.value)
    assert message.startswith(
        f"config: models.mine.source path:{where}: the tokenizer does not load ("
    )
    assert "tokenizer_config.json is there but no tokenizer.json or vocabulary file" in message
    assert message.endswith(f"save it with tokenizer.save_pretrained({where})")


def test_a_jobs_spec_of_a_local_model_leaves_transformers_unimported(tmp_path):
    """Jobs rebuild their model's spec from the config; the tokenizer's load is the planner's
    check, so a job that scores vectors (score, model_card) does not pay transformers' and
    torch's imports (~4 CPU-s a job) for it."""
    import subprocess
    import sys

    from .tiny_models import tiny_bert

    where = tiny_bert(tmp_path / "m")
    code = (
        "import sys\n"
        "from biasbench.config import model_entry\n"
        "from biasbench.models.specs import ModelSpec\n"
        f"spec = ModelSpec.from_config('mine', model_entry(kind='transformer', "
        f"source='path:{where}'))\n"
        "print(spec.scheme, 'transformers' in sys.modules, 'torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["path", "False", "False"]
    (where / "tokenizer.json").unlink()  # the planner refuses this (the test above); a job
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    assert out.split() == ["path", "False", "False"]  # does not load the tokenizer again


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_a_null_model_is_the_architecture_with_seeded_random_weights(tmp_path, kind):
    from safetensors.numpy import load_file
    from transformers import AutoTokenizer

    from biasbench.models.load import load_language_model
    from biasbench.models.null import random_copy

    from .tiny_models import tiny_bert, tiny_gpt2

    base_dir = (
        tiny_bert(tmp_path / "base", ("nurse",))
        if kind == "encoder"
        else tiny_gpt2(tmp_path / "base")
    )
    base = ModelSpec.from_config("base", model_entry(kind="transformer", source=f"path:{base_dir}"))
    for k in (1, 2):
        random_copy(base, base_dir, tmp_path / f"null{k}", seed=7)
    first = (tmp_path / "null1" / "model.safetensors").read_bytes()
    assert first == (tmp_path / "null2" / "model.safetensors").read_bytes()
    random_copy(base, base_dir, tmp_path / "other", seed=8)
    assert first != (tmp_path / "other" / "model.safetensors").read_bytes()
    # same tokenizer; weights not the base model's; a language-model head to score with
    text = "the nurse is here"
    assert (
        AutoTokenizer.from_pretrained(tmp_path / "null1")(text)["input_ids"]
        == (AutoTokenizer.from_pretrained(base_dir)(text)["input_ids"])
    )
    null = load_file(str(tmp_path / "null1" / "model.safetensors"))
    real = load_file(str(next(base_dir.glob("*.safetensors"))))
    shared = [k for k in null if k in real or k.split(".", 1)[-1] in real]
    assert shared and all(
        not np.array_equal(null[k], real.get(k, real.get(k.split(".", 1)[-1])))
        for k in shared
        if null[k].ndim == 2
    )
    spec = ModelSpec.from_config("null", model_entry(kind="transformer", source="random:base"))
    _, _, masked = load_language_model(spec, tmp_path / "null1")
    assert masked == (kind == "encoder")
