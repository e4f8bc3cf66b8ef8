import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasbench.data.templates import DoubleTemplates, load_double_templates
from biasbench.data.wordsets import LpbsSpec, WordSet, load_lpbs_spec
from biasbench.errors import InputError
from biasbench.methods.contract import Settings, TemplateLogProbs
from biasbench.methods.probability.lpbs import template_bias_scores
from biasbench.rows import COLUMNS
from biasbench.scoring.templates import lpbs_rows, template_log_probs

TEMPLATES = DoubleTemplates(
    "TTT", "AAA", {"basic": (("TTT is AAA.", "TTT seems AAA."), ("TTT are AAA.", "TTT seem AAA."))}
)
# log p_t of (target, attribute); the prior is 0 everywhere, so bs(a) = pt[a, x] - pt[a, y]
LOG_PT = {
    ("x", "a1"): 2.0,
    ("x", "a2"): 1.0,
    ("x", "b1"): 0.0,
    ("x", "b2"): -1.0,
}


def fake_log_probs(parts, targets, attributes, calls=None):
    if calls is not None:
        calls.append((parts, tuple(targets)))
    shift = 1.0 if "seem" in parts[1] else 0.0  # the second template adds 1 to every x
    pt = np.array(
        [
            [LOG_PT.get((t, a), 0.0) + (shift if t == "x" else 0.0) for t in targets]
            for a in attributes
        ]
    )
    return pt, np.zeros_like(pt)


def wordset(x=("x",), y=("ys",)):
    sets = {"X": x, "Y": y, "A": ("a1", "a2"), "B": ("b1", "b2")}
    return WordSet("T", "terms", "src", "thing", "basic", sets, {r: r for r in sets})


def test_rows_hand_computed():
    spec = LpbsSpec("T", {"terms": "basic"}, frozenset({"ys"}), None)
    calls = []
    frame = lpbs_rows(
        lambda *a: fake_log_probs(*a, calls=calls),
        lambda w: w != "ys",  # the plural target is not one token: the reduced set loses it
        {"terms": wordset()},
        spec,
        TEMPLATES,
        model="m",
        encoding="causal",
        settings=Settings(exact_max=100, n_samples=100),
        seed=0,
        signature="sig",
    )
    assert list(frame.columns) == COLUMNS
    # the plural target "ys" went to the plural templates, "x" to the singular ones
    assert {(p[1], t) for p, t in calls} == {
        (" is ", ("x",)),
        (" seems ", ("x",)),
        (" are ", ("ys",)),
        (" seem ", ("ys",)),
    }
    full = frame.set_index("variant").loc["full"]
    # bs = mean over the two templates of (2, 1, 0, -1) and (3, 2, 1, 0): (2.5, 1.5, .5, -.5)
    # d = (2 - 0) / std(2.5, 1.5, .5, -.5); mean differences over the 6 splits: |.| >= 2 twice
    assert full["effect_size"] == pytest.approx(2 / np.std([2.5, 1.5, 0.5, -0.5], ddof=1))
    assert full["p_value"] == pytest.approx(2 / 6)
    reduced = frame.set_index("variant").loc["reduced"]
    assert np.isnan(reduced["effect_size"]) and reduced["n_y"] == 0 and reduced["dropped"] == "Y:ys"
    assert reduced["note"] == "set Y has no stimulus"  # an n/a row says why


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=8, max_size=8), st.floats(-20, 20))
def test_bias_scores_ignore_a_shift_shared_by_all_targets(values, shift):
    """Adding the same log-probability to every target of a template (e.g. a more likely
    attribute word) leaves bs unchanged: eq. 10 compares X with Y under one attribute."""
    log_pt = np.array(values).reshape(1, 2, 4)
    log_pp = np.zeros_like(log_pt)
    base = template_bias_scores(TemplateLogProbs(log_pt, log_pp, 2, 1))
    np.testing.assert_allclose(
        template_bias_scores(TemplateLogProbs(log_pt + shift, log_pp, 2, 1)), base, atol=1e-9
    )


def test_plural_target_without_plural_templates_fails():
    singular_only = DoubleTemplates("TTT", "AAA", {"disease": (("The TTT disease is AAA.",), None)})
    with pytest.raises(InputError, match="no plural templates"):
        template_log_probs(
            fake_log_probs, singular_only, "disease", ["x"], frozenset({"x"}), ["a1"]
        )
    with pytest.raises(InputError, match="unknown"):
        template_log_probs(fake_log_probs, singular_only, "basic", ["x"], frozenset(), ["a1"])


def test_load_double_templates_and_spec(tmp_path):
    data = tmp_path / "t.json"
    data.write_text(json.dumps({"templates": {"s": ["TTT is AAA."], "p": ["TTT are AAA."]}}))
    resolve = lambda _id: data  # noqa: E731
    path = tmp_path / "d.yaml"
    path.write_text(
        "target_slot: TTT\nattribute_slot: AAA\ncategories:\n"
        "  basic:\n"
        "    singular: {external: x, key: templates.s}\n"
        "    plural: {external: x, key: templates.p}\n"
    )
    assert load_double_templates(path, resolve).categories["basic"] == (
        ("TTT is AAA.",),
        ("TTT are AAA.",),
    )
    path.write_text(
        "target_slot: TTT\nattribute_slot: AAA\ncategories:\n  b: {singular: [AAA is TTT.]}\n"
    )
    with pytest.raises(InputError, match="must precede"):
        load_double_templates(path, resolve)
    test = tmp_path / "T.yaml"
    test.write_text(
        "id: T\ntargets: {terms: {X: {words: [x]}, Y: {words: [y]}}}\n"
        "lpbs: {templates: {names: basic}}\n"
    )
    with pytest.raises(InputError, match=r"lpbs.templates names \['names'\]"):
        load_lpbs_spec(test, resolve)
