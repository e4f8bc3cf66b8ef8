"""The DivDist study of Bommasani & Liang on a small constructed world: readers, the text
source by hand, the validity protocol end to end, and the report's tables and figures."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasbench.data import groups as gr
from biasbench.io import read_tsv, write_json, write_tsv
from biasbench.reports import bommasani2022 as report
from biasbench.reports.figures import save
from biasbench.reports.tables import ReportSettings
from biasbench.reports.targets import render_table
from biasbench.studies import bommasani2022 as study

HELM = '''"""lists"""
from typing import List
FEMALE_WORDS: List[str] = ["she", "her", "woman"]
MALE_WORDS: List[str] = ["he", "his", "man"]
ASIAN_NAMES: List[str] = ["chen", "wang"]
HISPANIC_NAMES: List[str] = ["garcia", "lopez"]
WHITE_NAMES = ["smith", "jones"]
OTHER = {"not": "a list"}
'''
ROOT = Path(__file__).resolve().parents[1]
PROFESSIONS = ["nurse", "secretary", "dancer", "teacher", "engineer", "pilot", "plumber", "judge"]
FEMALE_SHARE = [0.9, 0.85, 0.8, 0.7, 0.2, 0.1, 0.05, 0.4]


@pytest.fixture
def data(tmp_path):
    helm = tmp_path / "bias_word_lists.py"
    helm.write_text(HELM)
    gender = tmp_path / "gender.csv"
    race = tmp_path / "race.csv"
    lines = ["Census year,Occupation,Total Weight,Female,Male", "2000,nurse,1,0.5,0.5"]
    lines += [f"2010,{p},1,{f},{1 - f}" for p, f in zip(PROFESSIONS, FEMALE_SHARE, strict=True)]
    gender.write_text("\n".join(lines) + "\n")
    lines = ["Census year,Occupation,Total Weight,multirace,aian,white,hispanic,asian,black"]
    lines += [f"2010,{p},1,0.1,0.1,0.4,0.2,0.1,0.1" for p in PROFESSIONS]
    race.write_text("\n".join(lines) + "\n")
    return study.load_data(str(helm), str(gender), str(race), 2010)


def test_readers(data, tmp_path):
    assert data.professions == tuple(sorted(PROFESSIONS))
    assert data.groups["gender"] == {
        "female": ["she", "her", "woman"],
        "male": ["he", "his", "man"],
    }
    assert list(data.groups["race"]) == ["asian", "hispanic", "white"]
    # race shares renormalised over the three groups (asian, hispanic, white) = (1, 2, 4) / 7
    np.testing.assert_allclose(data.census["race"].shares["nurse"], [1 / 7, 2 / 7, 4 / 7])
    assert data.census["gender"].shares["nurse"] == pytest.approx((0.9, 0.1))
    with pytest.raises(Exception, match="no occupation in census year 1990"):
        gr.read_census(tmp_path / "gender.csv", 1990, ["Female", "Male"])


def test_contexts_of_k_sentences_and_the_text_source_by_hand(data):
    doc = "The nurse came. She was late. The pilot and his son left. He waved. Her too."
    windows = list(gr.sentence_windows(gr.document_sentences([doc]), 2))
    assert windows == [
        ["the", "nurse", "came", "she", "was", "late"],
        ["the", "pilot", "and", "his", "son", "left", "he", "waved"],
        ["her", "too"],
    ]
    frame = study.text_strengths([doc], data, [1, 2], "c")
    paper = frame[(frame["rule"] == "paper") & (frame["kind"] == "gender")]
    got = paper.set_index(["k", "profession", "group"])["strength"]
    assert got[(1, "nurse", "female")] == 0 and got[(2, "nurse", "female")] == 1
    assert got[(1, "pilot", "male")] == 1 and got[(2, "pilot", "male")] == 1
    assert paper["strength"].sum() == 1 + 2  # k=1: pilot; k=2: nurse, pilot


def _world(data, seed=0):
    """Static vectors where each profession leans to the gender of its census majority."""
    rng = np.random.default_rng(seed)
    g = np.eye(6)[0]
    lookup = {}
    for word in ["she", "her", "woman", "he", "his", "man"]:
        sign = 1 if word in ("she", "her", "woman") else -1
        lookup[word] = sign * g + 0.3 * rng.normal(size=6)
    for p, f in zip(PROFESSIONS, FEMALE_SHARE, strict=True):
        lookup[p] = (f - 0.5) * 2 * g + 0.1 * rng.normal(size=6) + np.eye(6)[1]
    for w in ["chen", "wang", "garcia", "lopez", "smith", "jones"]:
        lookup[w] = rng.normal(size=6) + 2 * np.eye(6)[1]
    return lookup


def _read_back(frame, tmp_path):
    """As the study reads a stage's output: "" becomes NaN."""
    write_tsv(tmp_path / "text.tsv", frame)
    return read_tsv(tmp_path / "text.tsv")


def test_the_protocol_end_to_end_and_the_report(data, tmp_path):
    lookup = _world(data)
    rng = np.random.default_rng(1)
    contexts = pd.DataFrame(
        [
            (w, f"the {w} and {'she' if i % 2 else 'he'} went", 4, 4 + len(w))
            for w in [*PROFESSIONS, "she", "he", "her", "his", "woman", "man"]
            for i in range(6)
        ],
        columns=["stimulus", "sentence", "start", "end"],
    )
    vectors = np.stack([lookup[w] + 0.1 * rng.normal(size=6) for w in contexts["stimulus"]])
    vectors[0] = np.nan  # a context whose word was truncated away
    inputs = study.Inputs(
        data=data,
        text={
            "c": _read_back(
                study.text_strengths(["The nurse saw her."], data, [1, 3], "c"), tmp_path
            )
        },
        contexts=contexts,
        vectors={"tiny": vectors},
        generated={"gen": ["The pilot and his plane."]},
        static={"static": lookup},
        definitional=[("woman", "man"), ("she", "he"), ("her", "his")],
        equality=[],
    )
    strengths, bias, validity, accuracy = study.run(inputs, [1, 3], "clip", seed=0)
    assert set(strengths["source"]) == {"text", "generated text", "embedding", "reduction", "probe"}
    assert 0 <= accuracy["tiny"]["gender"] <= 1
    static = bias[(bias["source"] == "embedding") & (bias["kind"] == "gender")].set_index(
        "profession"
    )
    # the constructed lean is found: female share of association above 1/2 for female-majority
    assert (static.loc[["nurse", "secretary", "dancer"], "first_share"] > 0.5).all()
    assert (static.loc[["pilot", "plumber"], "first_share"] < 0.5).all()
    pred = validity["predictive"]
    assert set(pred["measure"]) == {"DivDist", "Direct Bias", "RND", "RIPA", "MAC"}
    ok = pred["p_spearman"].notna()
    assert (pred.loc[ok, "p_spearman_holm"] >= pred.loc[ok, "p_spearman"] - 1e-12).all()
    signed = pred[(pred["measure"] == "DivDist") & (pred["against"] == "signed")]
    assert signed["spearman"].iloc[0] > 0.5
    face = validity["face"]
    assert set(face["profession"]) == {"nurse", "secretary", "dancer", "teacher"} | {
        "plumber",
        "pilot",
        "engineer",
        "judge",
    }
    sens = validity["sensitivity"]
    tv = sens[sens["changed"] == "D: total variation"].dropna(subset=["spearman"])
    assert len(tv) and np.allclose(tv["spearman"], 1)  # TV is L1 / 2: the same ranks
    assert {"half word lists", "k = 1 sentences"} <= set(sens["changed"])
    mit = validity["mitigation"].set_index("measure")
    assert mit.loc["Direct Bias", "after"] < mit.loc["Direct Bias", "before"]
    rows = study.score_rows(strengths, data, "clip", 0, "sig")
    assert (rows["method"] == "DivDist").all() and rows["primary"].sum() == len(
        rows[(rows["variant"] == "l1") & (rows["descriptor"] == "paper")]
    )

    out = {name: tmp_path / name for name in ("bias.tsv", "validity.json")}
    write_tsv(out["bias.tsv"], bias)
    doc = {k: v.to_dict(orient="records") for k, v in validity.items()}
    write_json(out["validity.json"], doc | {"probe_accuracy": accuracy}, default=float)
    inputs_ = {"divdist": [str(p) for p in out.values()]}
    settings = ReportSettings(models={}, alpha=0.01, natural=None)
    for table in report.TABLES:
        criteria = {"published": [str(ROOT / report.CRITERIA)]}
        reads = criteria if table.name.endswith("criteria") else inputs_
        first = render_table(table, reads, settings)
        assert first == render_table(table, reads, settings)
        assert "not run" not in first[1]
    for figure in report.FIGURES:
        for k in (1, 2):
            save(figure.draw(inputs_, settings), tmp_path / f"{k}.png", tmp_path / f"{k}.pdf")
        assert (tmp_path / "1.pdf").read_bytes() == (tmp_path / "2.pdf").read_bytes()
    # without the study, every target says so
    assert "not run" in render_table(report.TABLES[0], {"divdist": []}, settings)[1]


def test_the_claims_table_says_what_an_empty_study_lacks(tmp_path):
    columns = [*study.SETTING, "profession", "first_share", "divdist_uniform", "divdist_census"]
    write_tsv(tmp_path / "bias.tsv", pd.DataFrame(columns=columns))
    empty = {k: [] for k in ("face", "predictive", "mitigation", "amplification", "sensitivity")}
    write_json(tmp_path / "validity.json", empty | {"probe_accuracy": {}})
    inputs = {"divdist": [str(tmp_path / "bias.tsv"), str(tmp_path / "validity.json")]}
    settings = ReportSettings(models={}, alpha=0.01, natural=None)
    md = report.claims(inputs, settings)[1]
    assert "no profession covered" in md and "n/a: no human annotations" in md
    for table in report.TABLES:
        if not table.name.endswith("criteria"):
            render_table(table, inputs, settings)  # every table renders an empty study
