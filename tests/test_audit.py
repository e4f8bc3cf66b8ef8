"""Auditing one model: ``only_models`` restricts a run to it (``--configfile my.yaml`` merges
into config.yaml, so it cannot remove the zoo), and its card says what was measured and why
each other method family does not apply."""

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
from biasbench.plan import make_plan
from biasbench.reports.model_cards import ModelFacts, model_card

from .test_plan_isolation import ROOT, default_config, workdir_for
from .tiny_models import tiny_bert


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


def audit(tmp_path, name, entry):
    """Run the default target with ``my.yaml`` naming one model and ``only_models`` beside the
    default config.yaml; return the working directory."""
    work = workdir_for(tmp_path, "work", default_config())
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
    scores = read_tsv(work / "results/scores/all.tsv")
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
    assert set(read_tsv(work / "results/scores/all.tsv")["model"]) == {"my-vectors"}
    card = (work / "results/cards/models/my-vectors.md").read_text(encoding="utf-8")
    assert "* **embedding** applies" in card and "| WEAT | words | C6 |" in card
    for family in ("probability", "extrinsic"):
        assert f"* **{family}** does not apply: static word vectors assign no probability" in card
    assert "* **distribution** does not apply" in card
    assert "lowercase" in card


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
    """DivDist's rows live in one file over all the study's models: the card names it rather
    than reading it, so that another model's change never reruns this card."""
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
