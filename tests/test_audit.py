"""Auditing one model: ``only_models`` restricts a run to it (``--configfile my.yaml`` merges
into config.yaml, so it cannot remove the zoo), and its card says what was measured and why
each other method family does not apply."""

import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest
import yaml

from biasbench.config import validate_config
from biasbench.errors import InputError
from biasbench.io import read_tsv
from biasbench.models.load import lm_head_of
from biasbench.plan import make_plan
from biasbench.reports.model_cards import ModelFacts, model_card

from .test_plan_isolation import ROOT, default_config, workdir_for
from .tiny_models import tiny_bert, tiny_tokenizer


def c6_words() -> list[str]:
    doc = yaml.safe_load((ROOT / "resources/wordsets/C6.yaml").read_text(encoding="utf-8"))
    groups = [*doc["targets"].values(), {k: doc["attributes"][k] for k in "AB"}]
    return [w for g in groups for s in g.values() for w in s["words"]]


def word2vec_binary(path, words, dim=8):
    """Seeded random vectors in word2vec's binary format (as gensim saves them)."""
    rng = np.random.default_rng(0)
    with open(path, "wb") as fh:
        fh.write(f"{len(words)} {dim}\n".encode())
        for word in words:
            vector = rng.normal(size=dim).astype(np.float32)
            fh.write(word.encode() + b" " + struct.pack(f"{dim}f", *vector) + b"\n")
    return path


def audit(tmp_path, name, entry, work=None):
    """Run the default target with ``my.yaml`` naming one model and ``only_models`` beside the
    default config.yaml (in ``work``, a checkout an earlier audit ran in, where given); return
    the working directory."""
    work = work or workdir_for(tmp_path, "work", default_config())
    mine = {
        "models": {name: entry},
        "only_models": [name],
        "scoring": {"n_samples": 500, "ceat_samples": 100},
        "template_set": "may2019",  # the default set is a pinned upstream file (no network)
    }
    (work / "my.yaml").write_text(yaml.safe_dump(mine), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", "my.yaml"],
        cwd=work,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return work


def test_a_transformer_of_ones_own_alone(tmp_path):
    model = tiny_bert(tmp_path / "my-bert", tuple(c6_words()))  # a body without its head
    entry = {"kind": "transformer", "source": f"path:{model}", "tests": {"templates": ["C6"]}}
    work = audit(tmp_path, "my-bert", entry)
    scores = read_tsv(work / "results/scores/audit/my-bert.tsv")
    assert set(scores["model"]) == {"my-bert"}  # nothing of the zoo ran
    assert not (work / "results/tables").exists()  # nor its paper tables
    card = (work / "results/cards/models/my-bert.md").read_text(encoding="utf-8")
    assert "* **embedding** applies" in card
    for method in ("s-SEAT", "w-SEAT", "CEAT"):
        assert f"| {method} | templates | C6 |" in card
    assert "* **probability** does not apply: its weights have no language-model head" in card
    assert "(BertModel)" in card and "has no LPBS" in card
    assert "* **extrinsic** does not apply: its weights have no language-model head" in card
    assert "* **distribution** does not apply: DivDist is a study across models" in card
    assert "Measured alone (only_models)" in card


def test_static_vectors_of_ones_own_alone(tmp_path):
    words = [w.lower() for w in c6_words()]
    vectors = word2vec_binary(tmp_path / "vectors.bin", list(dict.fromkeys(words)))
    entry = {"kind": "static", "source": f"w2v-path:{vectors}", "lowercase": True}
    entry["tests"] = ["C6"]
    work = audit(tmp_path, "my-vectors", entry)
    assert set(read_tsv(work / "results/scores/audit/my-vectors.tsv")["model"]) == {"my-vectors"}
    card = (work / "results/cards/models/my-vectors.md").read_text(encoding="utf-8")
    assert "* **embedding** applies" in card and "| WEAT | words | C6 |" in card
    for family in ("probability", "extrinsic"):
        assert f"* **{family}** does not apply: static word vectors assign no probability" in card
    assert "* **distribution** does not apply" in card
    assert "lowercase" in card
    assert "collected scores (results/scores/audit/my-vectors.tsv)" in card
    # a second audit in the same checkout keeps the first one's files; each card its own
    first = (work / "results/scores/audit/my-vectors.tsv").read_bytes()
    audit(tmp_path, "other-vectors", entry, work)
    assert (work / "results/scores/audit/my-vectors.tsv").read_bytes() == first
    other = read_tsv(work / "results/scores/audit/other-vectors.tsv")
    assert set(other["model"]) == {"other-vectors"}
    for name in ("my-vectors", "other-vectors"):
        assert (work / f"results/report/audit/{name}.html").is_file()
        own = (work / f"results/cards/models/{name}.md").read_text(encoding="utf-8")
        assert f"collected scores (results/scores/audit/{name}.tsv)" in own


def audit_plan(only, models=None):
    config = default_config()
    config["models"] |= models or {}
    config["only_models"] = only
    return make_plan(validate_config(config), ROOT), config


def test_only_models_drops_every_other_model_and_the_studies_without_it():
    plan, config = audit_plan(["minilm-l6-null"])
    # the model it is built from is prepared, and runs nothing
    assert set(plan.specs) == {"minilm-l6-null", "minilm-l6"}
    assert {j.model for j in plan.jobs} == {"minilm-l6-null"}
    assert {m for m, _d in plan.dataset_jobs} == {"minilm-l6-null"}
    assert plan.lpbs_jobs == () and plan.groundtruth == () and plan.divdist == ()
    assert plan.template_study == () and plan.null_seeds == {}
    assert config["groundtruth"] is None and config["bommasani"] is None
    assert make_plan(config, ROOT).jobs == plan.jobs  # a second call changes nothing


def test_only_models_keeps_the_studies_that_name_the_model():
    plan, config = audit_plan(["smollm2-135m"])
    assert set(plan.specs) == {"smollm2-135m"}
    assert {m for m, _t in plan.lpbs_jobs} == {"smollm2-135m"}
    assert plan.template_study == (
        "results/studies/templates/smollm2-135m/sensitivity.tsv",
        "results/studies/templates/smollm2-135m/kl.tsv",
    )
    assert config["bommasani"]["static_models"] == []
    assert config["bommasani"]["contextual_models"] == ["smollm2-135m"]
    assert list(config["null_calibration"]["models"]) == ["smollm2-135m"]


def test_only_models_naming_an_unknown_model_names_the_field():
    with pytest.raises(InputError, match=r"config: only_models names 'my-model', not a configured"):
        audit_plan(["my-model"])


def test_a_local_model_that_is_not_there_names_the_directory(tmp_path):
    missing = tmp_path / "nowhere"
    entry = {"kind": "transformer", "source": f"path:{missing}"}
    with pytest.raises(InputError, match=rf"models.my-model.source path:{missing}: no such dir"):
        audit_plan(["my-model"], {"my-model": entry})
    missing.mkdir()
    with pytest.raises(InputError, match=r"nowhere: no config.json \(save the model with save_"):
        audit_plan(["my-model"], {"my-model": entry})


def test_a_local_vectors_file_that_is_not_there_names_the_field(tmp_path):
    entry = {"kind": "static", "source": f"w2v-path:{tmp_path / 'v.bin'}"}
    with pytest.raises(InputError, match=r"models.my-vectors.source w2v-path:.*: no such file"):
        audit_plan(["my-vectors"], {"my-vectors": entry})


def test_a_card_without_rows_says_why_for_every_family():
    import pandas as pd

    from biasbench.rows import COLUMNS

    facts = ModelFacts("m", "transformer", "hf:x", runs_tests=False, lm_head=True)
    card = model_card(pd.DataFrame(columns=COLUMNS), facts)
    assert "* **embedding** does not apply: it runs no word-set test (models.m.tests" in card
    assert "* **probability** does not apply: it is not in lpbs.models" in card
    assert "* **extrinsic** does not apply: WinoBias runs as a data set" in card


def test_a_card_points_to_the_divdist_study_that_scores_the_model():
    """DivDist's rows live in one file over all the study's models: the card names it."""
    import pandas as pd

    from biasbench.rows import COLUMNS

    study = ("results/studies/divdist/scores.tsv",)
    named = ModelFacts("m", "static", "pkg:x", divdist=True, divdist_files=study)
    card = model_card(pd.DataFrame(columns=COLUMNS), named)
    assert "* **distribution** applies: DivDist scores it in the study across models" in card
    assert "`results/studies/divdist/scores.tsv`" in card
    other = model_card(pd.DataFrame(columns=COLUMNS), ModelFacts("m", "static", "pkg:x"))
    assert "* **distribution** does not apply: DivDist is a study across models" in other


def test_a_card_reads_its_own_models_rows_only():
    plan = make_plan(validate_config(default_config()), ROOT)
    files = plan.model_score_files("glove-6b-50d")
    assert files and all(f.split("/")[2] == "glove-6b-50d" for f in files)
    assert not set(files) & set(plan.study_score_files())


def local_model(path, **config):
    """A directory as save_pretrained leaves it, as far as planning reads it: config.json
    (``config``), a weights file and a tokenizer that loads."""
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config))
    (path / "model.safetensors").write_bytes(b"")
    tiny_tokenizer(path)
    return {"kind": "transformer", "source": f"path:{path}"}


@pytest.mark.parametrize(
    "config, head",
    [
        ({"architectures": ["LlamaForCausalLM"], "model_type": "llama"}, True),
        ({"architectures": ["BertForMaskedLM"], "model_type": "bert"}, True),
        ({"architectures": ["BertModel"], "model_type": "bert"}, False),
        ({"model_type": "llama"}, True),  # a decoder: its head tied to its embeddings
        ({"model_type": "bert"}, None),  # an encoder saved without its classes: not known
    ],
)
def test_a_language_model_head_is_read_from_config_json(config, head):
    assert lm_head_of(config) is head


def test_an_audited_language_model_runs_lpbs_the_data_sets_and_its_null_copies(tmp_path):
    entry = local_model(tmp_path / "lm", model_type="llama")
    plan, config = audit_plan(["my-lm"], {"my-lm": entry})
    assert config["lpbs"]["models"] == ["my-lm"]
    assert config["datasets"]["models"] == {"my-lm": "all"}
    assert {m for m, _t in plan.lpbs_jobs} == {"my-lm"}
    section = config["null_calibration"]
    assert plan.null_seeds == {"my-lm": section["audit"]["transformer"]["seeds"]}
    assert {t for t, _d in plan.null_tests["my-lm"]} == {"C6", "C9"}
    assert plan.null_lpbs["my-lm"] == tuple(section["lpbs_tests"])
    assert plan.null_datasets["my-lm"] == {}  # two copies: too few data-set cells
    assert make_plan(config, ROOT).null_seeds == plan.null_seeds  # a second call: the same


def test_an_audited_language_models_copies_run_p_ceat_only_where_the_model_does(tmp_path):
    entry = local_model(tmp_path / "lm", model_type="llama")
    plan, config = audit_plan(["my-lm"], {"my-lm": entry})
    # lpbs.corpus_models names the zoo's masked LM alone: the audited model runs no p-CEAT,
    # and its copies' p-CEAT cells would stand beside no score of its own
    assert plan.lpbs_corpus_models == () and plan.null_corpora["my-lm"] == ()
    every = default_config()
    every["models"]["my-lm"] = entry
    every["only_models"] = ["my-lm"]
    every["lpbs"]["corpus_models"] = None  # every LPBS model runs p-CEAT
    plan = make_plan(validate_config(every), ROOT)
    assert plan.lpbs_corpus_models == ("my-lm",)
    assert plan.null_corpora["my-lm"] == tuple(config["null_calibration"]["corpora"])


def test_an_audited_encoder_without_a_head_runs_no_probability_on_its_copies(tmp_path):
    entry = local_model(tmp_path / "enc", architectures=["BertModel"], model_type="bert")
    entry["tests"] = {"templates": ["C6"]}
    plan, config = audit_plan(["my-enc"], {"my-enc": entry})
    assert config["lpbs"]["models"] == [] and config["datasets"]["models"] == {}
    # its copies read the tests it runs, of the audit entry's (C6 and C9)
    assert {t for t, _d in plan.null_tests["my-enc"]} == {"C6"}
    assert plan.null_lpbs["my-enc"] == () and plan.null_datasets["my-enc"] == {}


def test_an_audited_model_the_calibration_lists_keeps_its_entry_and_static_vectors_get_theirs(
    tmp_path,
):
    plan, _config = audit_plan(["minilm-l6"])
    configured = default_config()["null_calibration"]["models"]["minilm-l6"]
    assert plan.null_seeds == {"minilm-l6": configured["seeds"]}
    assert plan.null_designs == {"minilm-l6": configured["designs"]}
    vectors = word2vec_binary(tmp_path / "v.bin", ["he", "she"])
    entry = {"kind": "static", "source": f"w2v-path:{vectors}", "tests": ["C6", "C9"]}
    plan, config = audit_plan(["my-vectors"], {"my-vectors": entry})
    assert plan.null_seeds == {"my-vectors": config["null_calibration"]["audit"]["static"]}
    assert {t for t, _d in plan.null_tests["my-vectors"]} == {"C6", "C9"}


def test_no_null_control_where_the_audit_entry_is_null(tmp_path):
    entry = local_model(tmp_path / "lm", model_type="llama")
    config = default_config()
    config["models"]["my-lm"] = entry
    config["only_models"] = ["my-lm"]
    config["null_calibration"]["audit"] = None
    plan = make_plan(validate_config(config), ROOT)
    assert plan.null_seeds == {} and config["null_calibration"] is None


def test_a_card_sets_the_zoos_real_models_beside_each_score():
    """The zoo's spread in the model's cell, computed by hand: the model itself and the null
    models are left out, another cell does not count."""
    import pandas as pd

    from biasbench.reports.model_cards import zoo_scale

    key = {"method": "s-SEAT", "source": "templates", "test": "C6", "descriptor": "names"}
    mine = pd.DataFrame([{**key, "effect_size": 0.5}])
    cells = pd.DataFrame(
        [
            {**key, "model": m, "null model": null, "effect_size": e}
            for m, null, e in [("m", False, 0.5), ("a", False, 0.1), ("b", False, 0.3)]
            + [("c", False, 0.9), ("n", True, 5.0)]
        ]
        + [{**key, "test": "C9", "model": "a", "null model": False, "effect_size": 9.0}]
    )
    assert zoo_scale(mine, cells, "m").tolist() == ["0.3 [0.1, 0.9] (3)"]
    assert zoo_scale(mine, cells[cells["model"].isin(["m", "n"])], "m").tolist() == [""]


def test_a_card_counts_its_own_null_copies_significant_cells():
    """Two copies on C6 and C9: two clusters. Under the paper's test C6 rejects in one copy
    of two (share 1/2), C9 in none: 1/4, its interval over 2 clusters; none under the word
    test. Two clusters are far from the 340 a verdict at 0.01 needs."""
    import pandas as pd

    from biasbench.reports.model_cards import own_null_lines
    from biasbench.studies.calibration import clopper_pearson

    rows = pd.DataFrame(
        {
            "method": "s-SEAT",
            "model": ["m-null-s0", "m-null-s0", "m-null-s1", "m-null-s1", "m-null-s1"],
            "test": ["C6", "C9", "C6", "C9", "C9"],
            "descriptor": "",
            "primary": [True, True, True, True, False],
            "effect_size": [0.4, 0.1, 0.2, 0.3, 0.9],
            "p_value": [0.001, 0.5, 0.2, 0.03, 0.0001],  # the last: not a primary row
            "p_word": 0.5,
        }
    )
    lines = own_null_lines(rows, "m", ["m-null-s0", "m-null-s1"], 0.01)
    low, high = clopper_pearson(0.5, 2)
    _, empty = clopper_pearson(0, 2)
    undetermined = "undetermined (2 clusters; 340 needed)"
    assert lines[2:] == [
        f"| s-SEAT | paper | 4 (0) | 2 | 25.0% [{low:.1%}, {high:.1%}] | {undetermined} |",
        f"| s-SEAT | word | 4 (0) | 2 | 0.0% [0.0%, {empty:.1%}] | {undetermined} |",
    ]


def test_a_card_without_a_comparison_says_how_to_get_one():
    import pandas as pd

    from biasbench.rows import COLUMNS

    card = model_card(pd.DataFrame(columns=COLUMNS), ModelFacts("m", "static", "pkg:x"))
    assert "No comparison beside this card: no finished default run in this checkout" in card
    assert "No null copies of this model: null_calibration.models does not list it" in card


def test_a_card_rates_each_of_its_methods_as_the_comparison_does():
    """The league's row of each method the model ran, as printed: rho with its interval, the
    null share of each test design and its verdict; another method's row is left out."""
    import pandas as pd

    from biasbench.reports.model_cards import validity_lines

    league = pd.DataFrame(
        [
            {
                "method": "RND",
                "truth_spearman": 0.6123,
                "truth_ci_low": 0.1196,
                "truth_ci_high": 0.8744,
                "census_spearman": 0.2907,
                "significant_null": 0.08604,
                "significant_null_word": 0.03977,
                "calibration_paper": "miscalibrated",
                "calibration_word": "undetermined (40 clusters; 67 needed)",
                "significant_null_strata": 0.02,
                "calibration_strata": "undetermined (41 clusters; 340 needed)",
            },
            {
                "method": "MAC",
                "truth_spearman": 0.23,
                "truth_ci_low": -0.26,
                "truth_ci_high": 0.71,
                "census_spearman": float("nan"),
                "significant_null": float("nan"),
                "significant_null_word": float("nan"),
                "calibration_paper": "n/a",
                "calibration_word": "n/a",
            },
        ]
    )
    lines = validity_lines(league, ["RND"], 0.01)
    assert lines[0].count("|") == lines[2].count("|")  # a cell under every heading
    assert lines[2:] == [
        "| RND | 0.61 [0.12, 0.87] | 0.291 | 8.6% | miscalibrated | 4.0% | undetermined (40 "
        "clusters; 67 needed) | 2.0% | undetermined (41 clusters; 340 needed) |"
    ]
    mac = validity_lines(league, ["MAC"], 0.01)[2]
    assert mac == "| MAC | 0.23 [-0.26, 0.71] | n/a | n/a | n/a | n/a | n/a | n/a | n/a |"


def test_a_card_says_why_a_method_that_ran_has_no_primary_score():
    """A masked-LM measure run on a causal LM writes only n/a rows, none primary: the card
    gives their note, not "not planned"."""
    import pandas as pd

    from biasbench.rows import COLUMNS

    row = dict.fromkeys(COLUMNS, float("nan"))  # as read back: a blank cell is missing
    row |= {"method": "AUL", "family": "probability", "model": "m", "primary": False}
    row |= {"source": "dataset", "test": "CrowS-Pairs", "descriptor": "all"}
    row |= {"note": "masked LMs only; more"}
    crows = row | {"method": "CrowS-Pairs", "primary": True, "effect_size": 55.0}
    crows["note"] = float("nan")
    rows = pd.DataFrame([row, crows], columns=COLUMNS)
    card = model_card(rows, ModelFacts("m", "transformer", "hf:x", lm_head=True))
    line = next(x for x in card.splitlines() if x.startswith("* **probability** applies"))
    assert "; n/a for it: AUL (masked LMs only)" in line
    assert (
        "not planned for it by the configuration" in line
        and "AUL" not in line.split("not planned")[1]
    )


def test_a_card_prints_a_p_value_at_its_floor_as_a_bound_never_zero():
    """An enumerated test at its floor (1/6 of 6 splits), a sampled one at 1/(1 + 1999), a
    z-test whose p underflowed to 0, an ordinary p and a missing one."""
    from biasbench.reports.model_cards import p_text

    assert p_text(1 / 6, 1 / 6) == "<= 1/6"
    assert p_text(1 / 2000, 1 / 2000) == "<= 1/2000"
    assert p_text(0.0, 0.0) == "< 2.2e-308"
    assert p_text(0.0123, 1 / 2000) == "0.0123"
    assert p_text(float("nan"), 0.5) == ""
    assert p_text(0.2, float("nan")) == "0.2"


def test_a_card_marks_the_p_values_its_own_null_copies_did_not_test():
    """The copies ran s-SEAT on C6 only: its C6 row is checked, C9 and another method's C6
    are not; without copies nothing is."""
    import pandas as pd

    from biasbench.reports.model_cards import null_checked

    rows = pd.DataFrame({"method": ["s-SEAT", "s-SEAT", "LPBS"], "test": ["C6", "C9", "C6"]})
    null_rows = pd.DataFrame(
        {
            "method": ["s-SEAT", "s-SEAT"],
            "test": ["C6", "C9"],
            "p_value": [0.2, float("nan")],  # C9: no p-value on the copies
            "p_word": [0.3, float("nan")],
        }
    )
    assert null_checked(rows, null_rows).tolist() == [True, False, False]
    assert null_checked(rows, None).tolist() == [False, False, False]


def test_each_audit_collects_into_files_of_its_own():
    from biasbench.plan.audit import run_files

    assert run_files(None) == ("results/scores/all.tsv", "results/report/provenance.html")
    assert run_files(["my-bert"]) == (
        "results/scores/audit/my-bert.tsv",
        "results/report/audit/my-bert.html",
    )
    assert len({run_files(m)[0] for m in (None, ["a"], ["b"], ["a", "b"])}) == 4
