"""Delobelle et al.'s template-sensitivity study and template KL: the authors' subsets, the
effect size's sign, the KL's invariants, Vulić's layers, on hand cases and a tiny model."""

from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.studies import delobelle2022 as study

from .tiny_models import tiny_bert

LISTS = yaml.safe_load(Path("resources/lists/delobelle2022.yaml").read_text(encoding="utf-8"))


def test_subset_one_is_the_authors():
    """Male subset 1 as the authors' notebook prints it (reading aid, B1)."""
    p = LISTS["professions"]
    _female, male = study.profession_subsets(p["female"], p["male"])[0]
    assert male == LISTS["golden_subset_1_male"]


def test_subsets_are_seeded_and_distinct():
    p = LISTS["professions"]
    once = study.profession_subsets(p["female"], p["male"])
    assert once == study.profession_subsets(p["female"], p["male"])
    assert len({tuple(m) for _f, m in once}) == 20
    assert all(len(set(f)) == 10 and len(set(m)) == 10 for f, m in once)


def _vectors(rng, words, lean):
    return {
        w: np.array([lean.get(w, 0.5), 1 - lean.get(w, 0.5), 0]) + rng.normal(0, 0.2, 3)
        for w in words
    }


def test_effect_size_is_positive_for_stereotypes_and_negates_when_genders_swap():
    rng = np.random.default_rng(0)
    female_p, male_p = ["nurse", "maid"], ["pilot", "mason"]
    female_w, male_w = ["she", "woman"], ["he", "man"]
    lean = {
        "nurse": 0.9,
        "maid": 0.8,
        "pilot": 0.1,
        "mason": 0.2,
        "she": 1.0,
        "woman": 1.0,
        "he": 0.0,
        "man": 0.0,
    }
    vectors = _vectors(rng, female_p + male_p + female_w + male_w, lean)
    d = study.subset_effect_sizes(vectors, [(female_p, male_p)], female_w, male_w)
    assert d[0] > 0
    swapped = study.subset_effect_sizes(vectors, [(female_p, male_p)], male_w, female_w)
    assert swapped[0] == pytest.approx(-d[0])


def test_kl_hand_case():
    # KL([1/2, 1/2] || [1/4, 3/4]) = 1/2 ln 2 + 1/2 ln(2/3)
    assert study.kl_divergence([0.5, 0.5], [0.25, 0.75]) == pytest.approx(
        0.5 * np.log(2) + 0.5 * np.log(2 / 3)
    )
    assert study.kl_divergence([1, 0], [0.5, 0.5]) == pytest.approx(np.log(2))
    assert study.kl_divergence([0.5, 0.5], [1, 0]) == float("inf")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-30, 0), min_size=2, max_size=12).flatmap(
        lambda p: st.tuples(
            st.just(p), st.lists(st.floats(-30, 0), min_size=len(p), max_size=len(p))
        )
    ),
    st.floats(-50, 50),
)
def test_kl_invariants(pair, shift):
    log_p, log_q = (np.array(v) for v in pair)
    kl = study.log_kl_divergence(log_p, log_q)
    assert kl >= -1e-12
    assert study.log_kl_divergence(log_p, log_p) == pytest.approx(0, abs=1e-12)
    # a subset is renormalised: a constant shift of the log-probabilities changes nothing
    assert study.log_kl_divergence(log_p + shift, log_q) == pytest.approx(kl, abs=1e-9)
    assert kl == pytest.approx(study.kl_divergence(np.exp(log_p), np.exp(log_q)), abs=1e-9)


def test_pooled_vectors_hold_only_the_words_own_tokens(tmp_path):
    """The authors pooled up to the sentence end, taking the template's trailing words in:
    ours equals the mean over the word's subtokens and differs from the run to the end."""
    from transformers import AutoModel, AutoTokenizer

    path = tiny_bert(tmp_path / "bert", extra_words=("nurse",))
    model, tok = AutoModel.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)
    frame = study.contexts({"T1": "the {target} is a person."}, ["anastasia"])
    encoded, layers = study.encode(model, tok, frame, max_length=64)
    enc = tok(["the anastasia is a person."], return_tensors="pt")
    import torch

    with torch.inference_mode():
        out = model(**enc, output_hidden_states=True)
    hidden = out.last_hidden_state[0].numpy()
    # [CLS] the ana ##sta ##sia is a person . [SEP]: the word is tokens 2-4
    assert np.allclose(encoded["word/mean"][0], hidden[2:5].mean(0), atol=1e-5)
    assert not np.allclose(encoded["word/mean"][0], hidden[2:9].mean(0), atol=1e-3)
    assert np.allclose(encoded["word/first"][0], hidden[2], atol=1e-5)
    # Vulić: layers 1.. of the word alone, the embedding output (index 0) left out
    alone = tok(["anastasia"], return_tensors="pt")
    with torch.inference_mode():
        states = model(**alone, output_hidden_states=True).hidden_states
    expected = np.mean([states[k][0, 1:4].mean(0).numpy() for k in (1, 2)], axis=0)
    vulic = layers.mean(axis=0)[0]  # the frame's only row of the word alone
    assert study.vulic_layers(2) == [1, 2] and study.vulic_layers(12) == [1, 2, 3, 4]
    assert np.allclose(vulic, expected, atol=1e-5)
