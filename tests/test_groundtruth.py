"""The ground-truth study of Schröder et al.: the cheap fine-tuning equals the plain one where it
is computed, the draws and summaries by hand, and the whole study end to end on a tiny random
masked LM (a code-path check, never a result)."""

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoTokenizer, BertForMaskedLM

from biasbench.io import write_json
from biasbench.reports import schroeder2021 as schroeder
from biasbench.reports.figures import save
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import render_table
from biasbench.studies.groundtruth.data import (
    REFIT,
    Sentences,
    StudyData,
    StudySettings,
    draw_labels,
    fill,
    grid,
    male_probabilities,
    refit_points,
    training_bias,
)
from biasbench.studies.groundtruth.models import run_grid
from biasbench.studies.groundtruth.states import (
    frozen_states,
    load_states,
    load_study_lm,
    save_states,
    study_states,
)
from biasbench.studies.groundtruth.statistics import WIDTHS, angles, robustness, subset_robustness
from biasbench.studies.groundtruth.surgery import injected_model, study_models, top_layer

from .tiny_models import tiny_bert

ROOT = Path(__file__).resolve().parents[1]

OCCUPATIONS = ["nurse", "plumber", "teacher", "pilot", "clerk", "judge"]
TRAIN = {
    "subject": ["[MASK] is a OCCUPATION", "[MASK] likes being a OCCUPATION"],
    "possessive": ["the OCCUPATION loves [MASK] job"],
}
TEST = {"subject": ["[MASK] was a OCCUPATION"], "possessive": ["the OCCUPATION lost [MASK] job"]}
WORDS = OCCUPATIONS + [
    "he",
    "she",
    "his",
    "her",
    "man",
    "woman",
    "boy",
    "girl",
    "likes",
    "being",
    "loves",
    "job",
    "was",
    "lost",
]


@pytest.fixture(scope="module")
def masked_lm(tmp_path_factory):
    return str(tiny_bert(tmp_path_factory.mktemp("mlm"), tuple(WORDS), mlm_head=True))


def data():
    return StudyData(
        OCCUPATIONS,
        TRAIN,
        TEST,
        "OCCUPATION",
        "[MASK]",
        ["man", "boy", "he"],
        ["woman", "girl", "she"],
        np.array([-0.5, 0.6, -0.2, 0.7, 0.0, 0.3]),
    )


def test_the_top_layer_at_a_few_positions_equals_the_full_layer(masked_lm):
    """Queries only where asked, keys and values from every position: the same output there
    as the model's own layer."""
    tokenizer = AutoTokenizer.from_pretrained(masked_lm)
    model = BertForMaskedLM.from_pretrained(masked_lm).eval()
    texts = ["[MASK] is a nurse", "the plumber loves [MASK] job here"]
    enc = tokenizer(texts, return_tensors="pt", padding=True)
    with torch.inference_mode():
        out = model.bert(**enc, output_hidden_states=True)
        frozen = frozen_states(model, tokenizer, texts, trainable=1)
        width = enc["attention_mask"].shape[1]
        full = top_layer(
            model.bert.encoder.layer[-1],
            frozen.states,
            frozen.attention,
            torch.arange(width).expand(2, width),
        )
        at_slot = top_layer(
            model.bert.encoder.layer[-1], frozen.states, frozen.attention, frozen.slot[:, None]
        )
    real = enc["attention_mask"].bool()
    torch.testing.assert_close(full[real], out.last_hidden_state[real], atol=1e-5, rtol=1e-5)
    expected = out.last_hidden_state[torch.arange(2), frozen.slot]
    torch.testing.assert_close(at_slot[:, 0], expected, atol=1e-5, rtol=1e-5)


def test_draws_split_and_training_bias_by_hand():
    p = male_probabilities(np.zeros(1000), 0.5, 0.4, 0.0, 0, seed=3)
    assert p.min() == 0 and p.max() == 1  # clipped to [0, 1]
    sentences = fill(OCCUPATIONS, TRAIN, "OCCUPATION", "[MASK]", "[MASK]")
    assert sentences.texts[0] == "[MASK] is a nurse" and sentences.spans[0] == (12, 17)
    assert len(sentences.texts) == 18 and list(sentences.kind[-6:]) == [1] * 6
    male, train, held = draw_labels(np.full(6, 0.5), sentences, 0.5, 0.1, 0.0, 0, StudySettings())
    assert len(held) == round(0.3 * 18) and sorted(np.r_[train, held]) == list(range(18))
    toy = Sentences(["a", "b", "c", "d"], np.array([0, 0, 1, 1]), np.zeros(4, int), [(0, 1)] * 4)
    bias = training_bias(np.array([True, False, True, True]), np.array([0, 1, 2]), toy, 3)
    np.testing.assert_array_equal(bias[:2], [0.5, 1.0])
    assert np.isnan(bias[2])  # no training sentence


def test_summaries_by_hand():
    def record(mu, sigma, sd, kept=True, r2_same=0.7, r2_db=0.1, angle=20.0):
        rep = {
            "sd": {"WEAT": sd, "SAME": sd, "MAC": sd, "Direct Bias": sd, "unmasking": sd},
            "r2_training": {"SAME": r2_same, "Direct Bias": r2_db, "WEAT": r2_same, "MAC": 0.0},
            "angle_degrees": angle,
            "subset_deviation": dict.fromkeys(WIDTHS, 0.4),
        }
        return {"mu": mu, "sigma": sigma, "kept": kept, "representations": {"alone": rep}}

    records = [record(0.5, 0.1, 1.0), record(0.5, 0.1, 3.0), record(0.3, 0.1, 2.0, angle=10.0)]
    # one group with two repeats: |1 - 3| / 2 = 1; the other has no pair
    assert robustness(records, "alone")["WEAT"] == pytest.approx(1.0)
    groups = {r["group"]: r for r in angles(records, "alone")}
    assert groups["worse (> 0.4)"]["models"] == 3 and groups["worse (> 0.4)"][
        "mean angle"
    ] == pytest.approx(50 / 3)
    assert groups["similar (< 0.25)"]["models"] == 0
    subsets = subset_robustness(records, "alone")
    assert subsets["WEAT"] == pytest.approx(0.1) and subsets["SAME"] == pytest.approx(0.4)


def test_the_study_end_to_end_on_a_tiny_masked_lm(masked_lm):
    settings = StudySettings(epochs=2, batch=4, learning_rate=1e-3)
    models = grid([0.3], [0.2], 2)
    first, weights = run_grid(masked_lm, data(), models, settings)
    again, _ = run_grid(masked_lm, data(), models, settings)
    assert json.dumps(first) == json.dumps(again)
    assert [(r["mu"], r["repeat"]) for r in first] == [(0.3, 0), (0.3, 1)]
    assert first[0]["name"] == "gt-mu0.30-sd0.20-a0.00-r0"
    assert first[0]["p"] != first[1]["p"]  # every model its own draw of the shares
    rep = first[0]["representations"]
    assert set(rep) == {"alone", "in templates"}
    assert len(rep["alone"]["word_scores"]["WEAT"]) == len(OCCUPATIONS)
    assert 0 <= first[0]["heldout_accuracy"] <= 1 and np.isfinite(first[0]["unmasking_bias"]).all()
    assert set(rep["alone"]["set_scores"]) == set(WIDTHS)


def test_refit_points_spread_over_a_jobs_grid():
    points = grid([0.3], [0.1, 0.2, 0.3], 1, [0.0, 0.2])  # sigma outer, alignment inner
    assert refit_points(points, 0) == []
    assert refit_points(points, 1) == [(0.3, 0.2, 0.2, 0)]  # the middle one
    assert refit_points(points, 2) == [points[1], points[4]]
    assert refit_points(points, 9) == points  # at most every point


def test_a_refit_is_the_same_draw_with_another_seed(masked_lm):
    """retest=1: the middle point's model fine-tuned again on its labels with another seed:
    its weights differ from the model's, and nothing else of the study moves."""
    settings = StudySettings(epochs=2, batch=4, learning_rate=1e-3)
    models = grid([0.3], [0.2], 2)
    plain, plain_weights = run_grid(masked_lm, data(), models, settings)
    records, weights = run_grid(masked_lm, data(), models, settings, retest=1)
    assert [r["refit"] for r in records] == [None, "gt-mu0.30-sd0.20-a0.00-r1" + REFIT]
    assert [r["refit"] for r in plain] == [None, None]
    for r in records:
        del r["refit"]
    for r in plain:
        del r["refit"]
    assert json.dumps(records) == json.dumps(plain)
    name = records[1]["name"]
    mine = {k[len(name) :] for k in plain_weights if k.startswith(name + "/")}
    again = {k[len(name + REFIT) :] for k in weights if k.startswith(name + REFIT + "/")}
    assert again == mine  # the same parameters, trained again
    assert all(torch.equal(weights[k], v) for k, v in plain_weights.items())
    suffix = next(k for k in mine if k.startswith("/transform"))
    assert not torch.equal(weights[name + REFIT + suffix], weights[name + suffix])


def test_saved_frozen_states_give_the_study_it_computes_itself(masked_lm, tmp_path):
    """The workflow computes the frozen states once and every job of the grid reads them: the
    same records as a job that computes them, and a corrupted file is refused."""
    from biasbench.errors import InputError

    settings = StudySettings(epochs=2, batch=4, learning_rate=1e-3)
    model, tokenizer = load_study_lm(masked_lm)
    path = tmp_path / "states.safetensors"
    save_states(path, study_states(model, tokenizer, data(), settings.trainable))
    models = grid([0.3], [0.2], 1)
    read, _ = run_grid(masked_lm, data(), models, settings, load_states(path))
    computed, _ = run_grid(masked_lm, data(), models, settings)
    assert json.dumps(read) == json.dumps(computed)
    raw = bytearray(path.read_bytes())
    raw[-8:] = bytes(8) if raw[-8:] != bytes(8) else b"\x01" * 8  # a tensor's last bytes
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="checksum"):
        load_states(path)


def test_the_study_tables_and_figures_render_byte_stable(masked_lm, tmp_path):
    """Schröder's section-5 tables and Figures 5, 6, 9 from a tiny study's records, twice."""
    settings = StudySettings(epochs=2, batch=4, learning_rate=1e-3, r2_threshold=-1.0)
    records, _ = run_grid(masked_lm, data(), grid([0.3, 0.7], [0.2], 2), settings)
    study = tmp_path / "mu.json"
    write_json(study, {"settings": {"representation": "alone"}, "models": records})
    model = tmp_path / "biasbench_model.json"
    write_json(model, {"mlm_head": {"heldout_accuracy": 0.1}})
    inputs = {
        "published": [str(ROOT / schroeder.PUBLISHED)],
        "study_model": [str(model)],
        "study_records": [str(study)],
    }
    report = ReportSettings(models={}, alpha=0.01, natural=None)
    for table in schroeder.TABLES:
        if table.reads is schroeder._study_reads:
            assert render_table(table, inputs, report) == render_table(table, inputs, report)
    for figure in schroeder.FIGURES:
        for k in (1, 2):
            save(figure.draw(inputs, report), tmp_path / f"{k}.png", tmp_path / f"{k}.pdf")
        assert (tmp_path / "1.pdf").read_bytes() == (tmp_path / "2.pdf").read_bytes()
        axes = figure.draw(inputs, report).axes  # drawn, not "no data"
        assert any(ax.images or ax.collections or ax.patches for ax in axes), figure.name


def test_an_injected_model_reproduces_the_study_models_slot_predictions(masked_lm):
    """The rebuilt whole model gives the fine-tuned pronoun probabilities the study measured."""
    import torch
    from transformers import AutoTokenizer, BertForMaskedLM

    settings = StudySettings(epochs=2, batch=4, learning_rate=1e-3)
    records, weights = run_grid(masked_lm, data(), grid([0.3], [0.2], 1), settings)
    base = BertForMaskedLM.from_pretrained(masked_lm).eval()
    tok = AutoTokenizer.from_pretrained(masked_lm)
    model = injected_model(base, weights, records[0]["name"])
    d = data()
    test = fill(d.occupations, d.test, d.slot, d.mask, tok.mask_token)
    enc = tok(test.texts, return_tensors="pt", padding=True)
    ids = tok.convert_tokens_to_ids(["he", "she", "his", "her"])
    with torch.inference_mode():
        logits = model(**enc).logits.double()
    at = (enc["input_ids"] == tok.mask_token_id).int().argmax(1)
    picked = logits[torch.arange(len(at)), at][:, ids]
    male = torch.where(torch.as_tensor(test.kind) == 0, picked[:, 0], picked[:, 2])
    female = torch.where(torch.as_tensor(test.kind) == 0, picked[:, 1], picked[:, 3])
    share = torch.sigmoid(male - female).numpy()
    unmask = np.bincount(test.occupation, weights=share) / np.bincount(test.occupation)
    assert np.allclose(unmask, records[0]["unmasking_bias"], atol=1e-4)
    assert not torch.equal(
        model.cls.predictions.transform.dense.weight, base.cls.predictions.transform.dense.weight
    )


def test_a_shared_body_study_model_equals_the_whole_model(masked_lm):
    """Masked-slot log-probabilities and fills: the same from the cached lower layers plus the
    study model's top as from the whole rebuilt model."""
    from transformers import AutoTokenizer, BertForMaskedLM

    from biasbench.models.logprobs import Engine

    settings = StudySettings(epochs=1, batch=4, learning_rate=1e-3)
    records, weights = run_grid(masked_lm, data(), grid([0.3, 0.7], [0.2], 1), settings)
    base = BertForMaskedLM.from_pretrained(masked_lm).eval()
    tok = AutoTokenizer.from_pretrained(masked_lm)
    pieces = [("the ", "nurse", " is here ."), ("", "he", " is a person .")]
    names = [r["name"] for r in records]
    for name, shared in study_models(base, weights, names):
        whole = Engine(injected_model(base, weights, name), tok, True)
        cached = Engine(shared, tok, True)
        np.testing.assert_allclose(cached.masked_slot(pieces), whole.masked_slot(pieces), atol=1e-5)
        ids = cached.ids(["the nurse is here ."])
        np.testing.assert_allclose(cached.pll(ids, [[1, 2]]), whole.pll(ids, [[1, 2]]), atol=1e-5)
        sentences = ["the nurse is here .", "he is a person ."]
        got, want = cached.unmasked(sentences), whole.unmasked(sentences)
        for (a, _), (b, _) in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-5)
        with pytest.raises(NotImplementedError):  # no attention weights: AULA is "n/a"
            cached.unmasked(sentences, attention=True)
    assert len(shared.cache) >= 2  # the lower layers ran once per batch, for both models
    top, frozen = shared.layers[0], base.bert.encoder.layer[-1]
    assert top.output.dense.weight is not frozen.output.dense.weight  # trained: a copy
    assert shared.cls.predictions.decoder.weight is base.cls.predictions.decoder.weight  # frozen
