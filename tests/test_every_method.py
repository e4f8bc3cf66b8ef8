"""Every method on the ground-truth study's models: a study model as an encoder and as LPBS's
masked LM equals the whole rebuilt model, the injected quantities and the halves by hand, and
every method that runs on a masked LM scores every study model (a tiny random masked LM: a
code-path check, never a result)."""

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import AutoTokenizer, BertForMaskedLM

from biasbench.data.contexts import template_contexts
from biasbench.data.templates import TemplateSet
from biasbench.methods.contract import ContextVectors
from biasbench.methods.registry import REGISTRY
from biasbench.models.logprobs.masked import mlm_log_probs
from biasbench.scoring.settings import ScoreSettings
from biasbench.studies.groundtruth.data import StudySettings, grid
from biasbench.studies.groundtruth.every_method import (
    StudyEncoder,
    divdist_row,
    halves,
    lpbs_templates,
    lpbs_wordset,
    pceat_row,
    refit_facet,
    score_study_models,
    study_wordset,
)
from biasbench.studies.groundtruth.models import run_grid
from biasbench.studies.groundtruth.surgery import injected_model, study_models
from biasbench.studies.groundtruth.truth import injected_bias

from .test_groundtruth import data, masked_lm  # noqa: F401 (a fixture)

TEMPLATES = TemplateSet(
    "tiny",
    targets={"person": [("This is ", "."), ("", " is here.")]},
    attributes={"basic": [("It is ", "."), ("", " is it."), ("We saw ", ".")]},
)


@pytest.fixture(scope="module")
def study(masked_lm):  # noqa: F811
    settings = StudySettings(trainable=2, epochs=1, batch=4, learning_rate=1e-3)
    records, weights = run_grid(masked_lm, data(), grid([0.2, 0.8], [0.2], 2), settings)
    base = BertForMaskedLM.from_pretrained(masked_lm).eval()
    return records, weights, base, AutoTokenizer.from_pretrained(masked_lm)


def test_injected_quantities_by_hand():
    p = np.array([0.8, 0.2, 0.5, np.nan, 0.9])
    stereotype = np.array([1.0, -1.0, 0.5, 0.3, 0.0])  # the last is rated neither way
    got = injected_bias(p, stereotype)
    assert got["difference"] == pytest.approx((0.8 + 0.5) / 2 - 0.2)
    assert got["direction"] == pytest.approx(0.5 - 0.5)
    assert got["spread"] == pytest.approx(np.std([0.8, 0.2, 0.5]))
    assert got["magnitude"] == pytest.approx(0.2)
    assert got["stereotype"] == pytest.approx((0.8 + 0.8 + 0.5) / 3)


def test_what_each_method_tracks():
    tracks = {m.name: m.truth.quantity for m in REGISTRY}
    assert tracks["s-SEAT"] == tracks["LPBS"] == "difference"  # X against Y: negates
    assert tracks["SAME skew"] == "direction" and tracks["SAME stereotype"] == "spread"
    assert tracks["SAME"] == tracks["MAC"] == tracks["Direct Bias"] == "magnitude"


def test_the_study_test_by_hand():
    words = study_wordset(data())
    # stereotypes [-0.5, 0.6, -0.2, 0.7, 0.0, 0.3]: clerk (0.0) is rated neither way
    assert words.sets["X"] == ("plumber", "pilot", "judge")
    assert words.sets["Y"] == ("nurse", "teacher")
    assert words.paired and words.sets["A"] == ("man", "boy", "he")
    double = lpbs_templates(data())
    assert double.categories["subject"][0] == ("[MASK] was a OCCUPATION",)  # pronoun first


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_halves_keep_half_of_each_role_or_template_group(seed):
    words = study_wordset(data())
    frame = template_contexts(words, TEMPLATES)
    pairs = list(zip(words.sets["A"], words.sets["B"], strict=True))
    rng = np.random.default_rng(seed)
    kept = frame[halves(frame, "words", rng, pairs)]
    sizes = kept.groupby("role")["stimulus"].nunique().to_dict()
    assert sizes == {"X": 1, "Y": 1, "A": 1, "B": 1}
    a, b = kept.loc[kept["role"] == "A", "stimulus"].iloc[0], kept.loc[kept["role"] == "B"]
    assert (a, b["stimulus"].iloc[0]) in pairs  # a definitional pair stays whole
    kept = frame[halves(frame, "templates", rng, pairs)]
    per_group = kept.groupby(kept["provenance"].str.split("[").str[0])["provenance"].nunique()
    assert per_group.to_dict() == {"tiny:attributes.basic": 1, "tiny:targets.person": 1}
    assert set(kept["stimulus"]) == set(frame["stimulus"])  # every word, fewer templates


def test_a_study_model_as_an_encoder_and_for_lpbs_equals_the_whole_model(study):
    records, weights, base, tok = study
    enc = tok(["the nurse is here .", "he was a pilot"], return_tensors="pt", padding=True)
    real = enc["attention_mask"].bool()
    for name, shared in study_models(base, weights, [r["name"] for r in records]):
        whole = injected_model(base, weights, name)
        with torch.inference_mode():
            want = whole.bert(**enc).last_hidden_state
        got = StudyEncoder(shared)(enc["input_ids"], enc["attention_mask"]).last_hidden_state
        torch.testing.assert_close(got[real], want[real], atol=1e-5, rtol=1e-5)
        parts = ("", " was a ", "")
        for a, b in zip(
            mlm_log_probs(shared, tok, parts, ["he", "she"], ["nurse", "pilot"]),
            mlm_log_probs(whole, tok, parts, ["he", "she"], ["nurse", "pilot"]),
            strict=True,
        ):
            np.testing.assert_allclose(a, b, atol=1e-5)


def test_every_method_that_runs_on_a_masked_lm_scores_every_study_model(study):
    records, weights, base, tok = study
    names = [r["name"] for r in records]
    rows, spread = score_study_models(
        study_models(base, weights, names),
        tok,
        data(),
        TEMPLATES,
        settings=ScoreSettings(seed=1, n_samples=200, ceat_samples=50, same_samples=50),
        signature="test",
        extraction={},
        splits=1,
    )
    primary = rows[rows["primary"].astype(bool)]
    on_vectors = {m.name for m in REGISTRY if m.consumes is ContextVectors} - {"WEAT"}
    # on the study's templates: p-CEAT and DivDist too (the study's models read no corpus)
    expected = on_vectors | {"LPBS", "p-CEAT", "DivDist"}
    assert set(primary["method"]) == expected  # WEAT reads static vectors only
    assert primary.groupby("method")["model"].nunique().eq(len(names)).all()
    assert primary["effect_size"].notna().all()
    counts = spread.groupby(["method", "resample", "half"]).size()
    assert set(counts.index.get_level_values(0)) == expected
    # both halves of one split per model and resample; LPBS has one template: no second half
    lpbs_templates = [("LPBS", "templates", 1), ("p-CEAT", "templates", 1)]
    assert counts.drop(lpbs_templates, errors="ignore").eq(len(names)).all()
    assert not set(lpbs_templates) & set(counts.index)
    # the records carry the injected quantities the league reads
    assert set(records[0]["injected"]) == {
        "difference",
        "direction",
        "spread",
        "magnitude",
        "stereotype",
    }


def test_divdist_on_study_vectors_by_hand():
    """Occupation vectors against the mean male and female word vectors: [1, 1] is as near to
    both (p = 1/2, 1/2: L1 0), [1, 0] only to the male words (p = 1, 0: L1 1); an invalid
    context (a word the tokenizer lost) is left out of its word's mean."""
    contexts = pd.DataFrame(
        {
            "role": ["X", "X", "Y", "A", "A", "B"],
            "stimulus": ["pilot", "pilot", "nurse", "man", "he", "woman"],
        }
    )
    vectors = np.array([[1, 1], [-5, 3], [1, 0], [1, 0], [2, 0], [0, 1]], np.float32)
    arrays = {"word/mean": vectors, "valid": np.array([True, False, True, True, True, True])}
    row = divdist_row("m", contexts, arrays, negative="clip", seed=0, signature="s")
    assert row["method"] == "DivDist" and row["variant"] == "l1"
    assert row["effect_size"] == pytest.approx((0 + 1) / 2)


def test_pceat_on_study_templates_follows_he_and_she():
    """He likelier beside the male-stereotyped occupations and she beside the female ones in
    every template: a positive effect; the same numbers with he and she swapped: negative."""
    words = lpbs_wordset(data())
    targets, attributes = ["he", "she"], [*words.sets["A"], *words.sets["B"]]
    rng = np.random.default_rng(0)
    male = np.array([1.0 if a in words.sets["A"] else -1.0 for a in attributes])
    log_pp = rng.normal(-3, 0.1, (4, len(attributes), 2))
    log_pt = log_pp + np.stack([male, -male], axis=1)[None] + rng.normal(0, 0.1, log_pp.shape)
    kwargs = {"settings": ScoreSettings(ceat_samples=50).for_source("templates"), "seed": 1}
    row = pceat_row("m", log_pt, log_pp, words, signature="s", **kwargs)
    assert row["method"] == "p-CEAT" and row["effect_size"] > 1
    flipped = pceat_row("m", log_pt[..., ::-1], log_pp[..., ::-1], words, signature="s", **kwargs)
    assert flipped["effect_size"] < -1  # other samples of contexts: the sign, not the value
    assert targets == [*words.sets["X"], *words.sets["Y"]]


def test_the_refit_facet_pairs_a_refit_with_its_model():
    """Primary rows only; every model half 0, a refit half 1 under its model's name."""
    scores = pd.DataFrame(
        {
            "model": ["a", "b", "a-refit", "a", "a-refit"],
            "method": ["WEAT", "WEAT", "WEAT", "RIPA", "RIPA"],
            "primary": [True, True, True, False, False],
            "effect_size": [0.5, 0.1, 0.4, 9.0, 9.0],
        }
    )
    facet = refit_facet(scores, {"a-refit": "a"})
    assert facet.to_dict("records") == [
        {"model": m, "method": "WEAT", "resample": "fit", "split": 0, "half": h}
        | {"effect_size": e}
        for m, h, e in (("a", 0, 0.5), ("b", 0, 0.1), ("a", 1, 0.4))
    ]
    assert refit_facet(scores, {}).empty  # no refits: no facet
