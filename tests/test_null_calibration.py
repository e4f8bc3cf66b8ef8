"""The null-model calibration: copies built in memory are the saved null models, random static
vectors keep each word's norm, and one job's rows cover every method with a p-value on every
planned copy (tiny random models: code-path checks, never results)."""

import numpy as np
import pandas as pd
import pytest
import torch

from biasbench.config import model_entry
from biasbench.data.contexts import template_contexts, word_contexts
from biasbench.data.pairsets import SentencePair
from biasbench.data.templates import DoubleTemplates, TemplateSet
from biasbench.data.wordsets import LpbsSpec, WordSet
from biasbench.models.load import StaticVectors
from biasbench.models.null import Architecture, copy_names, null_file, random_copy
from biasbench.models.specs import ModelSpec
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies import null_calibration as nc

from .tiny_models import tiny_bert, tiny_gpt2

TEMPLATES = TemplateSet(
    "tiny",
    targets={"person": [("This is ", "."), ("", " is here.")]},
    attributes={"basic": [("It is ", "."), ("", " is it."), ("They are ", ".")]},
)
SETS = {
    "X": ("john", "paul", "they"),
    "Y": ("amy", "joan", "person"),
    "A": ("kind", "this", "here"),
    "B": ("mean", "that", "there"),
}
WORDS = WordSet("T", "names", "src", "person", "basic", SETS, {r: r for r in SETS}, paired=True)
SETTINGS = ScoreSettings(seed=3, exact_max=1000, n_samples=200, ceat_samples=50, same_samples=50)


def _base(tmp_path, kind):
    where = (
        tiny_bert(tmp_path / "base", ("nurse",)) if kind == "encoder" else tiny_gpt2(tmp_path / "b")
    )
    spec = ModelSpec.from_config("base", model_entry(kind="transformer", source=f"path:{where}"))
    return spec, where


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_a_copy_built_in_memory_is_the_saved_null_model(tmp_path, kind):
    from safetensors.torch import load_file

    base, where = _base(tmp_path, kind)
    random_copy(base, where, tmp_path / "null", seed=11)
    saved = load_file(str(tmp_path / "null" / "model.safetensors"))
    architecture = Architecture.of(base, where)
    assert architecture.masked == (kind == "encoder")
    built = architecture.random(11).state_dict()
    assert saved and set(saved) <= set(built)
    for name, tensor in saved.items():
        torch.testing.assert_close(built[name], tensor, rtol=0, atol=0)
    other = architecture.random(12).state_dict()
    assert any(not torch.equal(other[k], saved[k]) for k in saved if saved[k].ndim == 2)


def _glove():
    words = ["john", "paul", "amy", "joan", "kind", "mean", "new_york", "nurse"]
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(len(words), 6)).astype(np.float32) * np.arange(1, 9)[:, None]
    return StaticVectors({w: i for i, w in enumerate(words)}, vectors, lowercase=True)


def test_random_static_vectors_keep_each_words_norm_and_differ_by_seed():
    glove = _glove()
    stimuli = ["John", "paul", "amy", "Joan", "kind", "mean", "New York", "absent"]
    first, again = (nc.random_static(glove, stimuli, 5) for _ in range(2))
    other = nc.random_static(glove, stimuli, 6)
    for word in stimuli[:-1]:
        vec = first.lookup(word)
        assert vec.shape == (6,)
        assert np.linalg.norm(vec) == pytest.approx(np.linalg.norm(glove.lookup(word)), rel=1e-5)
        np.testing.assert_array_equal(vec, again.lookup(word))  # seeded
        cosine = vec @ other.lookup(word) / np.linalg.norm(vec) ** 2
        assert cosine < 0.999  # another seed, another direction
        base = glove.lookup(word)
        assert abs(vec @ base) / np.linalg.norm(base) ** 2 < 0.999  # not the base vector
    assert first.lookup("absent") is None  # out of the base vocabulary stays out
    # the same word has one vector whichever stimulus list it comes with
    np.testing.assert_array_equal(
        nc.random_static(glove, ["kind"], 5).lookup("kind"), first.lookup("kind")
    )


def _tests(contexts):
    return {"T": nc.TestInputs({"names": contexts}, {"names": WORDS}, "sig")}


def _with_p(frame):
    primary = frame[frame["primary"].astype(bool) & frame["p_value"].notna()]
    return primary.groupby("method")["model"].agg(lambda m: sorted(set(m)))


def test_the_static_copies_score_every_method_with_a_p_value():
    words = WORDS
    frame = nc.static_null_rows(
        ModelSpec.from_config("glove", model_entry(kind="static", source="glove-pkg:x")),
        StaticVectors(
            {w: i for i, w in enumerate(s for ws in SETS.values() for s in ws)},
            np.random.default_rng(1).normal(size=(12, 5)).astype(np.float32),
            lowercase=True,
        ),
        3,
        _tests(word_contexts(words)),
        settings=SETTINGS,
        seed=4,
        log=lambda _line: None,
    )
    names = copy_names("glove", 3)
    assert names == ["glove-null-s0", "glove-null-s1", "glove-null-s2"]
    tested = _with_p(frame)
    for method in ("WEAT", "RIPA", "RND"):
        assert tested[method] == names
    assert set(frame["source"]) == {"words"}
    weat = frame[(frame["method"] == "WEAT") & frame["primary"].astype(bool)]
    assert weat["effect_size"].nunique() == 3  # each copy its own vectors


def _pair_contexts(words):
    """Two corpus contexts of every (target, attribute) pair: "<t> is <a>." and "<a>, said
    <t>.", with the spans sample_pairs records."""
    rows = []
    for t in words.sets["X"] + words.sets["Y"]:
        for a in words.sets["A"] + words.sets["B"]:
            first, second = f"{t} is {a}.", f"{a}, said {t}."
            rows.append((t, a, first, 0, len(t), len(t) + 4, len(t) + 4 + len(a), 1))
            at = len(a) + 7
            rows.append((t, a, second, at, at + len(t), 0, len(a), 2))
    columns = ["target", "attribute", "context", "target_start", "target_end"]
    columns += ["attribute_start", "attribute_end", "gap"]
    return pd.DataFrame(rows, columns=columns)


def test_a_tiny_berts_copies_score_every_method_with_a_p_value(tmp_path):
    base, where = _base(tmp_path, "encoder")
    lpbs = nc.LpbsInputs(
        {"names": WORDS},
        LpbsSpec("T", {"names": "basic"}, frozenset(), None),
        DoubleTemplates(
            "TTT",
            "AAA",
            {"basic": (("TTT is AAA.", "TTT is it AAA."), ("TTT are AAA.", "TTT are it AAA."))},
        ),
        "lpbs-sig",
        {"natural": _pair_contexts(WORDS)},
    )
    pairs = [
        SentencePair("john is kind.", "amy is kind.", True, "gender"),
        SentencePair("amy is mean.", "john is mean.", False, "gender"),
        SentencePair("paul is here.", "joan is here.", True, "gender"),
        SentencePair("joan is there.", "paul is there.", True, "gender"),
    ]
    frame = nc.transformer_null_rows(
        base,
        Architecture.of(base, where),
        2,
        _tests(template_contexts(WORDS, TEMPLATES)),
        settings=SETTINGS,
        seed=4,
        extraction={"max_tokens": 512, "max_batch": 16, "max_length": 32},
        lpbs={"T": lpbs},
        datasets={"crows_pairs": nc.DatasetInputs(pairs, "data-sig")},
        batch=8,
        lpbs_batch=8,
        max_gap=18,
        log=lambda _line: None,
    )
    names = copy_names("base", 2)
    assert set(frame.loc[frame["method"] == "p-CEAT", "source"]) == {"natural"}
    tested = _with_p(frame)
    expected = {"s-SEAT", "w-SEAT", "CEAT", "RIPA", "RND", "SAME", "LPBS", "CrowS-Pairs", "AUL"}
    expected |= {"p-CEAT"}  # on the corpus' pair contexts, source natural
    assert expected <= set(tested.index)
    assert all(tested[m] == names for m in tested.index)
    assert set(frame["model"]) == set(names)
    assert not (frame["p_word"].isna() & frame["p_value"].notna() & frame["primary"].astype(bool))[
        frame["method"].isin(["s-SEAT", "w-SEAT", "RIPA", "RND"])
    ].any()
    assert pd.Series(frame["signature"]).nunique() > 1


def test_copy_files_and_names():
    assert null_file("minilm-l6") == "results/scores/null/minilm-l6.tsv"
    assert nc.copy_seed(1, "m-null-s0") != nc.copy_seed(1, "m-null-s1")


def test_only_the_calibration_targets_read_the_null_copies():
    from biasbench.reports.catalog import FIGURES, TABLES

    from .test_plan_targets import plan_of

    plan = plan_of()
    readers = {
        name
        for name, target in [*TABLES.items(), *((f"figure {n}", f) for n, f in FIGURES.items())]
        if set(plan.null_files()) & {f for files in target.inputs(plan).values() for f in files}
    }
    assert readers == {
        "synthesis_null",
        "synthesis_null_detection",
        "synthesis_null_floors",
        "synthesis_null_generated",
        "synthesis_null_pieces",
        "synthesis_tokenization",
        "synthesis_league",
        "figure synthesis_calibration",
        "figure synthesis_league",
    }


def test_the_copies_permutation_tests_are_capped():
    capped = nc.capped(ScoreSettings(exact_max=200000, n_samples=100000, same_samples=500), 10000)
    assert (capped.exact_max, capped.n_samples, capped.same_samples) == (10000, 10000, 500)
    assert capped.ceat_samples == ScoreSettings().ceat_samples
