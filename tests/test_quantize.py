"""Quantized copies (``quantized:<model>:<format>``): GGUF's Q8_0 and Q4_0 block schemes by
hand and as properties (within half a step, idempotent, bit for bit the gguf package's), a toy
masked LM quantized and loaded back through the product's loader, the plan's checks, and the
items that flip each way on the comparison's card."""

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from biasbench.config import model_entry, read_yaml, validate_config
from biasbench.errors import InputError
from biasbench.models.quantize import (
    BLOCK,
    KEPT_POSITIONS,
    dequantize_blocks,
    quantize_blocks,
    round_trip,
)
from biasbench.models.specs import ModelSpec
from biasbench.plan import make_plan

from .conftest import ROOT
from .test_model_comparison import outcomes

FORMATS = ("q8_0", "q4_0")


def row(*values: float) -> np.ndarray:
    """One row of 32 float32 values: ``values`` first, zeros after."""
    out = np.zeros((1, BLOCK), np.float32)
    out[0, : len(values)] = values
    return out


def test_q8_0_by_hand_a_row_whose_scale_is_one():
    # max |x| = 127: d = 1 (exact in float16); q = round(x), halves away from zero
    x = row(127, 0.4, 0.5, -0.5, 2.6, -3.49, 1.5, -126.5, 0.49999997)
    codes, scales = quantize_blocks(x, "q8_0")
    assert scales.dtype == np.float16 and scales.ravel().tolist() == [1.0]
    assert codes.dtype == np.int8
    expected = row(127, 0, 1, -1, 3, -3, 2, -127, 0)  # 0.49999997 is under the half
    np.testing.assert_array_equal(round_trip(x, "q8_0"), expected)


def test_q8_0_every_value_within_half_a_step_where_the_scale_is_exact():
    # max |x| = 63.5: d = 0.5, exact in float16, so each value moves at most d / 2 = 0.25
    x = np.random.default_rng(1).uniform(-63.5, 63.5, size=(3, 2 * BLOCK)).astype(np.float32)
    x[:, 0] = 63.5  # each block's largest magnitude, one per block of 32
    x[:, BLOCK] = -63.5
    restored = round_trip(x, "q8_0")
    assert np.abs(restored - x).max() <= 0.25
    assert np.all(np.isin(restored / 0.5, np.arange(-127, 128)))  # a multiple of the step
    assert not np.array_equal(restored, x)


def test_q4_0_by_hand_a_negative_peak_and_a_positive_one():
    # the largest magnitude -8: d = -8 / -8 = 1; q = trunc(x / d + 8.5) clamped to 0..15
    x = row(-8, 3.4, 7.7, 2.5, -2.5, 7.5, 0.0, -7.6)
    codes, scales = quantize_blocks(x, "q4_0")
    assert scales.ravel().tolist() == [1.0]
    assert codes[0, 0, :8].tolist() == [0, 11, 15, 11, 6, 15, 8, 0]
    # 7.7 and 7.5 are clamped to the top code (7 d): the one place a value moves more than d/2
    np.testing.assert_array_equal(round_trip(x, "q4_0"), row(-8, 3, 7, 3, -2, 7, 0, -8))
    # the largest magnitude +8: d = -1, the peak still exact, the clamp now on the negative side
    y = row(8, 2.5, -7.7, 3.4)
    assert quantize_blocks(y, "q4_0")[1].ravel().tolist() == [-1.0]
    np.testing.assert_array_equal(round_trip(y, "q4_0"), row(8, 2, -7, 3))


def test_a_row_not_a_multiple_of_32_is_refused_and_all_zero_blocks_stay_zero():
    with pytest.raises(ValueError, match="row length 48 is not a multiple of 32"):
        quantize_blocks(np.ones((2, 48), np.float32), "q8_0")
    with pytest.raises(ValueError, match="not finite"):
        quantize_blocks(row(1.0, np.nan), "q4_0")
    with pytest.raises(ValueError, match="unknown format 'q5_0'"):
        quantize_blocks(row(1.0), "q5_0")
    for form in FORMATS:
        np.testing.assert_array_equal(round_trip(np.zeros((2, 64), np.float32), form), 0)
        # a block too small for a float16 scale (GGUF's too): zeros, its codes the zero level
        tiny = row(*np.full(BLOCK, 1.2e-38, np.float32))
        codes, scales = quantize_blocks(tiny, form)
        assert scales.ravel().tolist() == [0.0] and np.all(codes == (8 if form == "q4_0" else 0))
        np.testing.assert_array_equal(round_trip(tiny, form), 0)


#: weights' magnitudes: 0, or 2^-13 to 1e3 (a block's float16 scale from subnormal to normal)
magnitudes = st.floats(2**-13, 1e3, width=32)
matrices = st.integers(1, 3).flatmap(
    lambda blocks: arrays(
        np.float32,
        st.tuples(st.integers(1, 4), st.just(blocks * BLOCK)),
        elements=st.one_of(st.just(0.0), magnitudes, magnitudes.map(lambda v: -v)),
    )
)


def step_bound(x: np.ndarray, form: str) -> np.ndarray:
    """How far each value may move: half a step of the block's scale ``d`` (a whole step for
    a Q4_0 value clamped to the top code), plus the level times the scale's float16
    rounding, with room for float32's own rounding of ``x / d``."""
    codes, scales = quantize_blocks(x, form)
    blocks = x.reshape(codes.shape).astype(np.float64)
    if form == "q8_0":
        exact = np.abs(blocks).max(axis=-1, keepdims=True) / 127
        level, half = codes.astype(np.float64), 0.5
    else:
        peak = np.take_along_axis(blocks, np.abs(blocks).argmax(-1)[..., None], axis=-1)
        exact = peak / -8
        level = codes.astype(np.float64) - 8
        half = np.where(codes == 15, 1.0, 0.5)
    rounding = np.abs(level) * np.abs(exact - scales.astype(np.float64))
    return (np.abs(exact) * half * (1 + 1e-4) + rounding).reshape(x.shape)


@pytest.mark.parametrize("form", FORMATS)
@given(x=matrices)
def test_dequantized_within_half_a_step(form, x):
    restored = round_trip(x, form)
    assert restored.dtype == np.float32 and restored.shape == x.shape
    assert np.all(np.abs(restored.astype(np.float64) - x) <= step_bound(x, form))


@pytest.mark.parametrize("form", FORMATS)
@given(x=matrices)
def test_quantizing_the_dequantized_matrix_again_gives_it_back(form, x):
    once = round_trip(x, form)
    np.testing.assert_array_equal(round_trip(once, form), once)
    codes, scales = quantize_blocks(once, form)
    np.testing.assert_array_equal(dequantize_blocks(codes, scales, form), once)


@pytest.mark.parametrize("form", FORMATS)
@given(x=matrices)
def test_bit_for_bit_the_gguf_packages_round_trip(form, x):
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize, quantize

    qtype = GGMLQuantizationType[form.upper()]
    np.testing.assert_array_equal(round_trip(x, form), dequantize(quantize(x, qtype), qtype))


def toy(tmp_path):
    """A masked LM of hidden size 32 (row length 32: quantized) whose feed-forward output
    reads 48 values (a row length not a multiple of 32: kept in float)."""
    from .tiny_models import tiny_bert

    where = tiny_bert(
        tmp_path / "base", ("nurse",), mlm_head=True, hidden_size=32, intermediate_size=48
    )
    spec = ModelSpec.from_config("base", model_entry(kind="transformer", source=f"path:{where}"))
    return spec, where


def quantized_spec(form):
    entry = model_entry(kind="transformer", source=f"quantized:base:{form}")
    return ModelSpec.from_config(f"base-{form}", entry)


@pytest.mark.parametrize("form", FORMATS)
def test_a_toy_masked_lm_quantized_loads_back_with_its_head_and_close_outputs(tmp_path, form):
    import torch
    from safetensors.numpy import load_file

    from biasbench.models.load import load_language_model, load_transformer
    from biasbench.models.prepare import write_provenance
    from biasbench.models.quantize import quantized_copy

    base, where = toy(tmp_path)
    out = tmp_path / form
    info = {"name": f"base-{form}", "kind": "transformer", "source": f"quantized:base:{form}"}
    info |= quantized_copy(base, where, out, form)
    write_provenance(out, info, out)  # as the rule does: its files' digests, checked on load
    record = info["quantization"]
    assert info["class"] == "BertForMaskedLM" and record["format"] == form
    quantized, kept = record["quantized"], record["kept_in_float"]
    # every Linear weight whose rows hold a multiple of 32, and the token embeddings, which
    # the tied decoder shares
    assert "bert.encoder.layer.0.attention.self.query.weight" in quantized
    assert "bert.encoder.layer.1.intermediate.dense.weight" in quantized
    assert "cls.predictions.transform.dense.weight" in quantized
    word = quantized["bert.embeddings.word_embeddings.weight"]
    assert word["tied"] == ["cls.predictions.decoder.weight"]
    assert len(quantized) == 2 * 5 + 2  # q, k, v, attention output, intermediate; + 2
    assert kept == {
        "bert.embeddings.position_embeddings.weight": {"shape": [64, 32], "why": KEPT_POSITIONS},
        "bert.embeddings.token_type_embeddings.weight": {"shape": [2, 32], "why": KEPT_POSITIONS},
        **{
            f"bert.encoder.layer.{i}.output.dense.weight": {
                "shape": [32, 48],
                "why": "row length 48 is not a multiple of 32",
            }
            for i in range(2)
        },
    }
    assert record["other_float_parameters"] > 0 and 0 < record["mse"] < 1e-3
    assert 0 < record["relative_mse"] < (1e-3 if form == "q8_0" else 3e-2)
    # the saved weights are the base's rounded and back: every quantized matrix, exactly
    saved = load_file(str(out / "model.safetensors"))
    original = load_file(str(where / "model.safetensors"))
    for name in quantized:
        if name in saved:
            np.testing.assert_array_equal(saved[name], round_trip(original[name], form))
    for name in kept:
        np.testing.assert_array_equal(saved[name], original[name])
    # through the loader the workflow's jobs use: a masked LM with its head, outputs close
    spec = quantized_spec(form)
    model, tokenizer, masked = load_language_model(spec, out)
    reference, _, _ = load_language_model(base, where)
    assert masked
    batch = tokenizer(
        ["the nurse is here", "this is a [MASK] person"], return_tensors="pt", padding=True
    )
    with torch.no_grad():
        got, want = model(**batch).logits, reference(**batch).logits
    spread = float(want.std())
    difference = float((got - want).abs().max())
    assert 0 < difference < (0.05 if form == "q8_0" else 0.5) * spread
    encoder, _, is_decoder = load_transformer(spec, out)
    assert not is_decoder
    with torch.no_grad():
        states = encoder(**batch).last_hidden_state
    assert states.shape == (2, batch["input_ids"].shape[1], 32)


def test_the_q4_0_copy_moves_further_than_the_q8_0_copy(tmp_path):
    from biasbench.models.quantize import quantized_copy

    base, where = toy(tmp_path)
    errors = {f: quantized_copy(base, where, tmp_path / f, f)["quantization"] for f in FORMATS}
    assert errors["q4_0"]["mse"] > 10 * errors["q8_0"]["mse"]


def test_a_quantized_source_names_a_format_and_a_transformer_with_its_own_weights():
    with pytest.raises(InputError, match=r"models.m.source quantized:minilm-l6: must be"):
        ModelSpec.from_config("m", model_entry(kind="transformer", source="quantized:minilm-l6"))
    with pytest.raises(InputError, match=r"a format in \('q8_0', 'q4_0'\)"):
        ModelSpec.from_config(
            "m", model_entry(kind="transformer", source="quantized:minilm-l6:q5_k")
        )
    spec = quantized_spec("q4_0")
    assert (spec.base, spec.quantized_format) == ("base", "q4_0")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("quantized:nope:q8_0", "source quantized:nope:q8_0 names no configured model"),
        ("quantized:glove-6b-50d:q8_0", "glove-6b-50d is a static model"),
        ("quantized:minilm-l6-null:q4_0", "minilm-l6-null is a random: model; quantized:"),
        ("quantized:mine:q8_0", "mine is a quantized: model; quantized: rounds"),
    ],
)
def test_the_plan_refuses_a_quantized_copy_of_no_transformer_with_its_own_weights(source, message):
    config = read_yaml(ROOT / "config.yaml")
    config["models"]["mine"] = {"kind": "transformer", "source": source, "tests": []}
    with pytest.raises(InputError, match=re.escape(message)):
        make_plan(validate_config(config), ROOT)


def test_the_preset_audits_the_masked_lm_and_its_two_copies():
    """config/presets/quantization.yaml over config.yaml: the three models (and MiniLM, the
    masked LM is built from: prepared, unscored), the copies built by their own rule with the
    base's data sets, no null copies of their own, and two comparisons on CrowS-Pairs and
    StereoSet."""
    from snakemake.utils import update_config

    from biasbench.plan.comparisons import comparisons

    config = read_yaml(ROOT / "config.yaml")
    update_config(config, read_yaml(ROOT / "config/presets/quantization.yaml"))
    plan = make_plan(validate_config(config), ROOT)
    copies = ["minilm-l6+mlm-head-q8_0", "minilm-l6+mlm-head-q4_0"]
    assert set(plan.specs) == {"minilm-l6", "minilm-l6+mlm-head", *copies}
    assert plan.quantized_models == copies
    assert [plan.specs[m].base for m in copies] == ["minilm-l6+mlm-head"] * 2
    scored = {m: {d for n, d in plan.dataset_jobs if n == m} for m in plan.specs}
    assert scored[copies[0]] == scored[copies[1]] == scored["minilm-l6+mlm-head"]
    assert {"crows_pairs", "stereoset"} <= scored["minilm-l6+mlm-head"]
    assert plan.null_seeds == {}
    found = comparisons(config["compare"], config["models"], plan.dataset_jobs)
    assert [(c.against, c.datasets) for c in found] == [
        (m, ("crows_pairs", "stereoset")) for m in copies
    ]


def test_the_card_says_how_many_items_flip_each_way():
    from biasbench.reports.comparison_card import comparison_card
    from biasbench.studies.model_comparison import compare_models

    # base prefers the stereotype on items 0, 1, 2, 6; the copy on 0, 3, 4, 6, 7: items 1 and
    # 2 flip away from the stereotyped sentence, 3, 4 and 7 to it
    base = outcomes([1, 1, 1, 0, 0, 0, 1, 0], "abcdefgh")
    against = outcomes([1, 0, 0, 1, 1, 0, 1, 1], "abcdefgh")
    table = compare_models(
        {"crows_pairs": (base, against)}, names=("base", "base-q4_0"), seed=3, n_boot=200
    )
    (only,) = table.to_dict("records")
    assert (only["against_only"], only["base_only"]) == (3, 2)
    card = comparison_card(table, None, None, 0.05, "none in this checkout")
    (line,) = [line for line in card.splitlines() if line.startswith("- **CrowS-Pairs**")]
    assert "Items that flip: 3 to the stereotyped sentence, 2 away from it (of 8 items)." in line
    # an embedding measure has no preference, so no flips
    embedding = pd.DataFrame([{**only, "family": "embedding"}])
    assert "Items that flip" not in comparison_card(embedding, None, None, 0.05, "none")


def test_a_quantized_copys_card_names_its_base_and_format():
    from biasbench.reports.model_cards import ModelFacts, caveats

    facts = ModelFacts("m-q4_0", "transformer", "quantized:minilm-l6+mlm-head:q4_0")
    rows = pd.DataFrame({"effect_size": [0.1], "note": [""]})
    (said,) = caveats(facts, rows)
    assert said.startswith("A quantized copy of minilm-l6+mlm-head: its weights rounded to GGUF ")
    assert "Q4_0 blocks and back to float32" in said
