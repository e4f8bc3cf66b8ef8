"""Delobelle et al.'s report targets on small synthetic inputs: the heat maps beside the
authors', Table 2, the findings table and Figure 4's correlations across models."""

import json

import numpy as np
import pandas as pd

from biasbench.io import write_tsv
from biasbench.reports import delobelle2022 as report
from biasbench.reports.tables import ReportSettings
from biasbench.studies import delobelle2022 as study

from .conftest import score_row

SETTINGS = ReportSettings(models={}, alpha=0.01, natural=None)
TEMPLATES = [f"T{i}" for i in range(1, 12)]


def authors_file(path, rng, shared=None):
    values = {
        f"temp{t[1:]}": {
            str(i): float(v)
            for i, v in enumerate(shared if shared is not None else rng.normal(1, 0.3, 20))
        }
        for t in TEMPLATES
    }
    path.write_text(json.dumps(values))
    return str(path)


def sensitivity_file(path, rng):
    rows = []
    for rep in study.REPRESENTATIONS:
        for template in TEMPLATES if rep in study.IN_TEMPLATE else [study.ALONE]:
            rows += [
                (rep, template, i + 1, float(v)) for i, v in enumerate(rng.normal(0.5, 0.4, 20))
            ]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_tsv(path, pd.DataFrame(rows, columns=["representation", "template", "subset", "d"]))
    return str(path)


def test_template_heat_maps_put_the_authors_first_and_one_panel_per_model(tmp_path):
    rng = np.random.default_rng(0)
    inputs = {
        "authors": [authors_file(tmp_path / "delobelle_fig2a_cls", rng)],
        "sensitivity": [
            sensitivity_file(tmp_path / "m1/sensitivity.tsv", rng),
            sensitivity_file(tmp_path / "m2/sensitivity.tsv", rng),
        ],
    }
    fig = report.FIGURES[0].draw(inputs, SETTINGS)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == [report.AUTHORS, "m1", "m2"]
    # the authors' panel is their own correlations: the diagonal is 1
    first = fig.axes[0].images[0].get_array()
    assert np.allclose(np.diag(first), 1) and first.shape == (11, 11)


def test_representation_columns_average_the_bleached_templates():
    rows = []
    for rep in study.REPRESENTATIONS:
        for template in TEMPLATES if rep in study.IN_TEMPLATE else [study.ALONE]:
            value = 5.0 if template == study.ALONE else float(template[1:])
            rows += [(rep, template, s, value) for s in (1, 2)]
    frame = pd.DataFrame(rows, columns=["representation", "template", "subset", "d"])
    cols = report.representation_columns(frame)
    assert cols["cls"].tolist() == [4.5, 4.5]  # T1-T8 only: the mean of 1..8
    assert cols["vulic"].tolist() == [5.0, 5.0]
    assert report.template_columns(frame, "first")["T3"].tolist() == [3.0, 3.0]


def test_figure4_correlates_each_intrinsic_measure_with_winobias_across_models(tmp_path):
    rows = []
    for k, model in enumerate(["a", "b", "c", "d"]):
        gap = [1.0, 2.0, 3.0, 4.0][k]
        rows.append(
            score_row(
                method="WinoBias F1 gap",
                model=model,
                variant="type1",
                effect_size=gap,
                descriptor="all",
            )
        )
        rows.append(
            score_row(
                method="DisCo", model=model, variant="names", effect_size=2 * gap, descriptor="all"
            )
        )
        rows.append(
            score_row(
                method="CrowS-Pairs",
                model=model,
                variant="full",
                effect_size=[5, 1, 4, 2][k],
                descriptor="all",
            )
        )
    write_tsv(tmp_path / "s.tsv", pd.DataFrame(rows))
    wide = report.measure_table([str(tmp_path / "s.tsv")])
    assert wide["DisCo (names)"].corr(wide["WinoBias F1 gap (type1)"]) == 1.0
    fig = report.figure4(
        {"dataset_scores": [str(tmp_path / "s.tsv")], "study_datasets": []}, SETTINGS
    )
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "1.00\n(n=4)" in texts


def test_findings_and_table2_read_every_source(tmp_path):
    rng = np.random.default_rng(1)
    authors = []
    for rep in study.REPRESENTATIONS:
        name = report.AUTHORS_FILES[f"fig3:{rep}"].split("/")[-1]
        shared = None if rep in study.IN_TEMPLATE else rng.normal(1, 0.3, 20)
        authors.append(authors_file(tmp_path / name, rng, shared))
    sensitivity = [sensitivity_file(tmp_path / "m1/sensitivity.tsv", rng)]
    kl = pd.DataFrame(
        {
            "template": TEMPLATES,
            "text": TEMPLATES,
            "kl_vocabulary": [0.0] + [0.1] * 7 + [0.5, 0.9, 0.8],
            "kl_gendered": [0.0] * 11,
            "vocabulary": "every token of the vocabulary",
        }
    )
    (tmp_path / "m2").mkdir()
    write_tsv(tmp_path / "m2/kl.tsv", kl)
    inputs = {
        "authors": authors,
        "sensitivity": sensitivity,
        "kl": [str(tmp_path / "m2/kl.tsv")],
        "dataset_scores": [],
        "study_datasets": [],
    }
    _csv, md, _html = report.findings(inputs, SETTINGS)
    assert "BERT-base-uncased" in md and "| m1 " in md
    assert "0.100 vs 0.850 | yes" in md  # bleached T2-T8 vs T10-T11
    _csv, md, _html = report.table2({"kl": [str(tmp_path / "m2/kl.tsv")]}, SETTINGS)
    lines = [line for line in md.splitlines() if line.startswith("| T")]
    assert [line.split("|")[1].strip() for line in lines] == TEMPLATES  # T10 after T9
