"""A debiasing seen by the comparison, end to end on toy models built here: a 2-layer BERT with a
gender direction planted on C6's words, the same model with that direction projected out, and
its unplanted twin (the same seed). Planted against projected finds the drop on the embedding
measures at the configured alpha after Holm; twin against twin finds nothing. The same toys
with an MLM head, compared on LPBS, find its drop too."""

import shutil

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from transformers import BertForMaskedLM, BertModel, PreTrainedTokenizerFast

from biasbench.io import read_tsv

from .conftest import ROOT, copy_workflow
from .test_workflow import snakemake
from .tiny_models import tiny_bert

#: the methods that read a direction planted on the target and attribute words (C6 declares
#: no definitional pairs: RIPA and Direct Bias are left out, the card says why)
READ_THE_PLANT = ("w-SEAT", "CEAT", "RND", "SAME", "SAME stereotype", "MAC")


def c6_sets() -> dict[str, list[str]]:
    doc = yaml.safe_load((ROOT / "resources/wordsets/C6.yaml").read_text())
    targets = doc["targets"]["names"]
    return {
        "X": targets["X"]["words"],
        "Y": targets["Y"]["words"],
        "A": doc["attributes"]["A"]["words"],
        "B": doc["attributes"]["B"]["words"],
    }


def edit_embeddings(path, edit, mlm_head: bool) -> None:
    """Rewrite a saved BERT's word embeddings with ``edit(matrix, tokenizer)`` (a masked LM's
    output head shares them, tied)."""
    model = (BertForMaskedLM if mlm_head else BertModel).from_pretrained(path)
    tokenizer = PreTrainedTokenizerFast.from_pretrained(path)
    with torch.no_grad():
        weight = model.get_input_embeddings().weight
        weight.copy_(edit(weight.clone(), tokenizer))
    model.save_pretrained(path)


def toys(root, words: tuple[str, ...], mlm_head: bool) -> dict:
    """Planted, projected, twin and the twin's copy, built from one seed."""
    sets = c6_sets()
    paths = {name: tiny_bert(root / name, words, mlm_head) for name in ("planted", "twin")}
    direction = torch.zeros(16)
    direction[0] = 1.0

    def plant(weight, tokenizer):
        for role, sign in (("X", 1), ("A", 1), ("Y", -1), ("B", -1)):
            for word in sets[role]:
                (token,) = tokenizer(word.lower(), add_special_tokens=False)["input_ids"]
                weight[token] += sign * 5.0 * direction
        return weight

    edit_embeddings(paths["planted"], plant, mlm_head)
    paths["projected"] = root / "projected"
    shutil.copytree(paths["planted"], paths["projected"])
    project = lambda w, _: w - torch.outer(w @ direction, direction)  # noqa: E731
    edit_embeddings(paths["projected"], project, mlm_head)
    paths["twin-copy"] = root / "twin-copy"
    shutil.copytree(paths["twin"], paths["twin-copy"])
    return paths


@pytest.fixture(scope="module")
def toy_models(tmp_path_factory):
    """The toys without a head (embedding measures only)."""
    words = tuple(w for ws in c6_sets().values() for w in ws)
    return toys(tmp_path_factory.mktemp("toys"), words, mlm_head=False)


@pytest.fixture(scope="module")
def toy_lms(tmp_path_factory):
    """The toys with an MLM head, every word LPBS reads of C6 a token of its own (an unknown
    word's bias scores would tie)."""
    doc = yaml.safe_load((ROOT / "resources/wordsets/C6.yaml").read_text())
    targets = [w for d in doc["targets"].values() for r in "XY" for w in d[r]["words"]]
    words = tuple(dict.fromkeys([*(w for ws in c6_sets().values() for w in ws), *targets]))
    return toys(tmp_path_factory.mktemp("lms"), words, mlm_head=True)


#: what the LPBS comparison runs: LPBS on C6's templates, no embedding test, no data set
LPBS_ONLY = {
    "lpbs": {
        "tests": ["C6"],
        "templates": "husse2022_double",
        "corpus_models": [],
        "corpora": [],
    },
    "null_calibration": {"lpbs_tests": ["C6"]},
}


def compare(tmp_path, models, base, against, lpbs_only=False):
    (tmp_path / "checkout").mkdir(parents=True)
    work = copy_workflow(tmp_path / "checkout")
    shutil.copy(ROOT / "config.yaml", work)
    config = {
        "models": {
            name: {
                "kind": "transformer",
                "source": f"path:{models[name]}",
                "tests": [] if lpbs_only else {"templates": ["C6/names"]},
            }
            for name in (base, against)
        },
        "only_models": [base, against],
        "scoring": {"ceat_samples": 200},
        "compare": {"base": base, "against": [against], "permutations": 1999},
    }
    if lpbs_only:
        config |= LPBS_ONLY
        config["datasets"] = {"models": {base: [], against: []}}
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
    embedding = table[table["family"] == "embedding"].set_index("method")
    assert set(embedding["dataset"]) == {"C6/names"}
    for method in READ_THE_PLANT:
        row = embedding.loc[method]
        assert row["significant"] and row["high"] < 0, (method, row.to_dict())
    # s-SEAT's effect size saturates near 2 on the planted model: an arrangement that leaves
    # most planted units with one model reaches the observed gap in ~1% of draws, so its drop
    # is found by the interval and at 0.05, not after Holm at 0.01
    s_seat = embedding.loc["s-SEAT"]
    assert s_seat["high"] < 0 and s_seat["p_value"] < 0.05
    assert "Embedding measures compared" in card
    assert "Not compared: Direct Bias, RIPA on C6/names: the test declares no definitional" in card
    # a BertModel has no language-model head: neither model runs LPBS
    assert "Not run for both models: probability measures" in card
    table, card = compare(tmp_path / "same", toy_models, "twin", "twin-copy")
    assert len(table) == len(embedding)
    assert (table["difference"] == 0).all() and not table["significant"].any()
    assert np.isclose(pd.to_numeric(table["p_value"]), 1).all()
    assert "no difference on any unit" in card


def test_a_projected_plant_is_found_on_lpbs_twins_differ_nowhere(tmp_path, toy_lms):
    table, card = compare(tmp_path / "moved", toy_lms, "planted", "projected", lpbs_only=True)
    assert set(table["family"]) == {"probability"} and set(table["method"]) == {"LPBS"}
    lpbs = table.set_index("dataset")
    assert set(lpbs.index) == {"C6/names", "C6/terms", "C6/simplified"}
    # the simplified terms (two words a side) carry the plant most: found after Holm
    simplified = lpbs.loc["C6/simplified"]
    assert simplified["significant"] and simplified["high"] < 0, simplified.to_dict()
    # the names: found by the interval and at 0.05 (16 attribute words: the exchange test's
    # p ~0.01 stays above 0.01 after Holm's factor)
    names = lpbs.loc["C6/names"]
    assert names["high"] < 0 and names["p_value"] < 0.05, names.to_dict()
    assert "Probability measures compared: 3 measures on C6/names, C6/terms" in card
    table, card = compare(tmp_path / "same", toy_lms, "twin", "twin-copy", lpbs_only=True)
    assert len(table) == 3
    assert (table["difference"] == 0).all() and not table["significant"].any()
    assert "no difference on any unit" in card
