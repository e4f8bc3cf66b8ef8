"""ELMo in its own environment: the adapter that runs AllenNLP (checked on a stand-in with
ELMo's output shapes, since no ELMo weights download here) and the pooling into the embeddings
contract (words: sum over the three layers; sentences: mean over tokens, summed)."""

import importlib.util
import sys
import types
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from biasbench.io import write_json
from biasbench.models.elmo import pool, read_layers, single_token_stimuli, tokenize
from biasbench.models.extract import read_embeddings, split_rows, write_embeddings

from .conftest import ROOT


class StandIn:
    """ElmoEmbedder's interface and output shapes: (3 layers, tokens, 1024) per sentence."""

    def __init__(self, options_file=None, weight_file=None):
        self.files = (options_file, weight_file)

    def embed_sentences(self, sentences, batch_size=64):
        for tokens in sentences:
            yield np.stack(
                [
                    [np.full(1024, (layer + 1) * 10 + k, np.float32) for k in range(len(tokens))]
                    for layer in range(3)
                ]
            )


@pytest.fixture
def adapter(monkeypatch):
    """workflow_scripts/elmo_layers.py, with a stand-in allennlp package importable."""
    elmo = types.ModuleType("allennlp.commands.elmo")
    elmo.ElmoEmbedder = StandIn
    for name in ("allennlp", "allennlp.commands"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "allennlp.commands.elmo", elmo)
    spec = importlib.util.spec_from_file_location(
        "elmo_layers", ROOT / "workflow_scripts/elmo_layers.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tokens_and_their_offsets():
    tokens, offsets = tokenize(["The nurse's day, well-paid."])
    assert tokens == [["The", "nurse's", "day", ",", "well-paid", "."]]
    assert offsets[0][1] == (4, 11) and offsets[0][-1] == (26, 27)


def test_pooling_as_the_paper():
    sentences = ["a b c", "d e"]
    _, offsets = tokenize(sentences)
    layers = [np.arange(3 * 3 * 2, dtype=float).reshape(3, 3, 2), np.ones((3, 2, 2))]
    contexts = pd.DataFrame(
        {"sentence": ["a b c", "a b c", "d e"], "start": [2, 0, 4], "end": [5, 1, 9]}
    )
    out = pool(contexts, sentences, offsets, layers)
    summed = layers[0].sum(axis=0)  # the three layers summed, per token
    np.testing.assert_allclose(out["word/mean"][0], summed[1:3].mean(axis=0))  # "b c"
    np.testing.assert_allclose(out["word/first"][0], summed[1])
    np.testing.assert_allclose(out["word/last"][0], summed[2])
    np.testing.assert_allclose(out["sent/mean"][1], summed.mean(axis=0))
    assert out["valid"].tolist() == [True, True, False]  # no token of "d e" at 4..9
    one_layer = pool(contexts, sentences, offsets, layers, layer=1)
    np.testing.assert_allclose(one_layer["word/first"][1], layers[0][1][0])


def test_the_adapter_on_a_stand_in_with_elmos_shapes(adapter, tmp_path):
    tokens, offsets = tokenize(["The nurse smiled.", "He is a nurse."])
    # sealed by biasbench and read by the adapter, sealed by the adapter and read by biasbench:
    # the ELMo environment's copy of the seal agrees with biasbench.io's both ways
    write_json(tmp_path / "t.json", {"tokens": tokens})
    sm = SimpleNamespace(
        input=[str(tmp_path / "t.json")],
        output=[str(tmp_path / "l.npz")],
        params=SimpleNamespace(source="elmo:original"),
    )
    adapter.main(sm)
    layers = read_layers(tmp_path / "l.npz")
    assert [a.shape for a in layers] == [(3, 4, 1024), (3, 5, 1024)]
    assert adapter.embedder_for("opt.json|w.hdf5").files == ("opt.json", "w.hdf5")
    contexts = pd.DataFrame(
        {
            "context_id": [0, 1],
            "role": ["X", "X"],
            "stimulus": ["nurse", "nurse"],
            "sentence": ["The nurse smiled.", "He is a nurse."],
            "start": [4, 8],
            "end": [9, 13],
        }
    )
    arrays = pool(contexts, ["The nurse smiled.", "He is a nurse."], offsets, layers)
    write_embeddings(tmp_path / "e.h5", split_rows({"d": contexts}, arrays), {"model": "elmo"})
    back, _, _ = read_embeddings(tmp_path / "e.h5", "d")
    # token k of a sentence holds 10 + k, 20 + k, 30 + k in the three layers: the sum 60 + 3k
    assert back["word/mean"][0][0] == 63 and back["word/mean"][1][0] == 69  # k = 1, k = 3
    assert single_token_stimuli(["nurse", "sheriff deputy", "well-paid"]) == ["nurse", "well-paid"]


def test_without_allennlp_the_adapter_says_which_environment():
    spec = importlib.util.spec_from_file_location(
        "elmo_layers2", ROOT / "workflow_scripts/elmo_layers.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit, match="envs/elmo.yaml"):
        module.embedder_for("original")
