"""A debiasing seen by the comparison, end to end on toy models built here: a 2-layer BERT with a
gender direction planted on C6's words, the same model with that direction projected out, and
its unplanted twin (the same seed). Planted against projected finds the drop on the embedding
measures and LPBS at the configured alpha after Holm; twin against twin finds nothing."""

import shutil

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from transformers import BertForMaskedLM, PreTrainedTokenizerFast

from biasbench.io import read_tsv

from .conftest import ROOT, copy_workflow
from .test_workflow import snakemake
from .tiny_models import tiny_bert

#: the measures that read a direction planted on the target and attribute words, found at
#: alpha after Holm over every measure compared (C6 declares no definitional pairs: RIPA and
#: Direct Bias are left out, the card says why)
READ_THE_PLANT = (
    ("C6/names", "RND"),
    ("C6/names", "SAME"),
    ("C6/names", "SAME stereotype"),
    ("C6/names", "MAC"),
    ("C6/simplified", "LPBS"),
)
#: those whose effect saturates near its bound on the planted model (|d| <= 2): an
#: arrangement that leaves most planted units with one model reaches the observed gap in
#: ~0.1-4% of draws, so their drop is found by the interval and at 0.05; after Holm over the
#: 17 measures (6 of them the data sets' the toy models also score) their p times its rank's
#: factor (up to 12) stays above 0.01
SATURATED = (
    ("C6/names", "CEAT"),
    ("C6/names", "s-SEAT"),
    ("C6/names", "w-SEAT"),
    ("C6/names", "LPBS"),
)


def c6_sets() -> dict[str, list[str]]:
    doc = yaml.safe_load((ROOT / "resources/wordsets/C6.yaml").read_text())
    targets = doc["targets"]["names"]
    return {
        "X": targets["X"]["words"],
        "Y": targets["Y"]["words"],
        "A": doc["attributes"]["A"]["words"],
        "B": doc["attributes"]["B"]["words"],
    }


def edit_embeddings(path, edit) -> None:
    """Rewrite a saved BERT's word embeddings with ``edit(matrix, tokenizer)`` (its output
    head's word vectors are the same, tied, ones)."""
    model = BertForMaskedLM.from_pretrained(path)
    tokenizer = PreTrainedTokenizerFast.from_pretrained(path)
    with torch.no_grad():
        weight = model.get_input_embeddings().weight
        weight.copy_(edit(weight.clone(), tokenizer))
    model.save_pretrained(path)


@pytest.fixture(scope="module")
def toy_models(tmp_path_factory):
    """Planted, projected, twin and the twin's copy, built from one seed."""
    sets = c6_sets()
    doc = yaml.safe_load((ROOT / "resources/wordsets/C6.yaml").read_text())
    lpbs_targets = [w for d in doc["targets"].values() for r in "XY" for w in d[r]["words"]]
    # every word LPBS reads has a token of its own (an unknown word's bias scores tie)
    words = tuple(dict.fromkeys([*(w for ws in sets.values() for w in ws), *lpbs_targets]))
    root = tmp_path_factory.mktemp("toys")
    paths = {name: tiny_bert(root / name, words, mlm_head=True) for name in ("planted", "twin")}
    direction = torch.zeros(16)
    direction[0] = 1.0

    def plant(weight, tokenizer):
        for role, sign in (("X", 1), ("A", 1), ("Y", -1), ("B", -1)):
            for word in sets[role]:
                (token,) = tokenizer(word.lower(), add_special_tokens=False)["input_ids"]
                weight[token] += sign * 5.0 * direction
        return weight

    edit_embeddings(paths["planted"], plant)
    paths["projected"] = root / "projected"
    shutil.copytree(paths["planted"], paths["projected"])
    edit_embeddings(paths["projected"], lambda w, _: w - torch.outer(w @ direction, direction))
    paths["twin-copy"] = root / "twin-copy"
    shutil.copytree(paths["twin"], paths["twin-copy"])
    return paths


def compare(tmp_path, models, base, against):
    (tmp_path / "checkout").mkdir(parents=True)
    work = copy_workflow(tmp_path / "checkout")
    shutil.copy(ROOT / "config.yaml", work)
    config = {
        "models": {
            name: {
                "kind": "transformer",
                "source": f"path:{models[name]}",
                "tests": {"templates": ["C6/names"]},
            }
            for name in (base, against)
        },
        "only_models": [base, against],
        "scoring": {"ceat_samples": 200},
        "lpbs": {
            "models": [base, against],
            "tests": ["C6"],
            "templates": "husse2022_double",
            "corpus_models": [],
            "corpora": [],
            "per_pair": 3,
            "max_gap": 18,
            "window_sweep": [18],
            "batch": 64,
        },
        "null_calibration": {"lpbs_tests": ["C6"]},
        "compare": {"base": base, "against": [against], "permutations": 1999},
    }
    (work / "mine.yaml").write_text(yaml.safe_dump(config))
    card = f"results/cards/comparisons/{base}/{against}.md"
    run = snakemake(work, card, "--configfile", "mine.yaml")
    assert run.returncode == 0, run.stderr[-3000:]
    table = read_tsv(work / f"results/comparisons/{base}/{against}.tsv")
    return table, (work / card).read_text()


def test_a_projected_plant_is_found_on_the_embedding_measures_twins_differ_nowhere(
    tmp_path, toy_models
):
    table, card = compare(tmp_path / "moved", toy_models, "planted", "projected")
    measures = table.set_index(["dataset", "method"])
    assert set(table.loc[table["family"] == "embedding", "dataset"]) == {"C6/names"}
    for key in READ_THE_PLANT:
        row = measures.loc[key]
        assert row["significant"] and row["high"] < 0, (key, row.to_dict())
    for key in SATURATED:
        row = measures.loc[key]
        assert row["high"] < 0 and row["p_value"] < 0.05, (key, row.to_dict())
    assert "Embedding measures compared" in card
    assert "Probability measures compared: 3 measures on C6/names, C6/terms" in card
    assert "Not compared: Direct Bias, RIPA on C6/names: the test declares no definitional" in card
    moved = table
    table, card = compare(tmp_path / "same", toy_models, "twin", "twin-copy")
    assert len(table) == len(moved)
    assert (table["difference"] == 0).all() and not table["significant"].any()
    assert np.isclose(pd.to_numeric(table["p_value"]), 1).all()
    assert "no difference on any unit" in card
