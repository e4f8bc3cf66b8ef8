"""The experiments of Schröder et al. that are not single scores."""

import numpy as np
import pandas as pd
import pytest

from biasbench.data.contexts import word_contexts
from biasbench.data.wordsets import WordSet
from biasbench.io import write_tsv
from biasbench.models.extract import write_embeddings
from biasbench.studies.schroeder2021 import S31_SETS, WORD_SCORE, s31_cells

from .conftest import ROOT

SETS = {
    "XY": (["footballer", "bishop"], ["hairdresser", "sociologist"]),
    "XYp": (["footballer", "bishop"], ["hairdresser", "nurse"]),
    "XpYp": (["footballer", "lawmaker"], ["hairdresser", "nurse"]),
}
VECTORS = {  # A = male along e1, B = female along e2; occupations in between
    "footballer": [1.0, 0.1],
    "bishop": [1.0, 0.5],
    "lawmaker": [1.0, 0.2],
    "hairdresser": [0.1, 1.0],
    "sociologist": [0.8, 1.0],
    "nurse": [0.2, 1.0],
    "man": [1.0, 0.0],
    "woman": [0.0, 1.0],
}


def test_s31_word_scores_and_effect_sizes(tmp_path):
    published = str(ROOT / "resources/published/schroeder2021.yaml")
    contexts = []
    parts = {}
    for d, (x, y) in SETS.items():
        sets = {"X": tuple(x), "Y": tuple(y), "A": ("man",), "B": ("woman",)}
        frame = word_contexts(WordSet("S", d, "s", "person", "basic", sets, {}))
        write_tsv(tmp_path / f"{d}.tsv", frame)
        contexts.append(str(tmp_path / f"{d}.tsv"))
        vectors = np.array([VECTORS[w] for w in frame["stimulus"]], np.float32)
        parts[d] = (frame, {"word/mean": vectors, "valid": np.ones(len(frame), bool)})
    h5 = tmp_path / "results/embeddings/toy/words/S.h5"
    write_embeddings(h5, {d: p for d, p in parts.items()}, {"model": "toy"})
    cells = pd.DataFrame(s31_cells(published, contexts, [str(h5)]))
    words = cells[cells["method"] == WORD_SCORE].set_index("test")["effect_size"]
    unit = {w: np.array(v) / np.linalg.norm(v) for w, v in VECTORS.items()}
    assert words["nurse"] == pytest.approx(unit["nurse"] @ (unit["man"] - unit["woman"]))
    assert len(words) == 6  # each occupation once
    d = cells[(cells["method"] == "WEAT d, population sd") & (cells["column"] == "toy")]
    s = [words[w] for w in SETS["XY"][0] + SETS["XY"][1]]
    expected = (np.mean(s[:2]) - np.mean(s[2:])) / np.std(s)
    assert d.set_index("test").loc[S31_SETS["XY"], "effect_size"] == pytest.approx(expected)
    paper = cells[cells["origin"] == "paper:BERT"].set_index(["method", "test"])["effect_size"]
    assert paper[("WEAT d, population sd", "X', Y'")] == pytest.approx(1.6448e-05)


def test_the_property_matrix_from_running_the_checks():
    """Tables 1/4 as the checks find them: the paper's table, except that SAME's skew and
    stereotype parts are not trustworthy (biased words of opposite leanings score 0), as the
    paper's own Theorem 1 implies."""
    import yaml

    from biasbench.reports.schroeder2021 import PAPER_ROWS
    from biasbench.studies.properties import property_matrix

    paper = yaml.safe_load((ROOT / "resources/published/schroeder2021.yaml").read_text())
    rows = paper["property_matrix"]["rows"]
    differ = {
        (r["score"], r["property"])
        for r in property_matrix()
        if r["verdict"] != rows[PAPER_ROWS[r["score"]]][r["property"]].replace("blank", "")
    }
    assert differ == {("SAME skew", "trustworthy"), ("SAME stereotype", "trustworthy")}
