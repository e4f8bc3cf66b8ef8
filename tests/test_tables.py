import numpy as np
import pandas as pd
import pytest

from biasbench.reports.catalog import TABLES
from biasbench.reports.husse2022 import PAPER_MODELS, table3, table5, table13
from biasbench.reports.tables import ReportSettings, TableContext, load_published, to_markdown
from biasbench.reports.targets import render_table

from .conftest import ROOT, score_row


def scores():
    rows = []
    for test, p in (("C1", 0.001), ("C6", 0.2)):
        for method, encoding, primary in (
            ("s-SEAT", "sent/cls", True),
            ("s-SEAT", "sent/mean", False),
            ("w-SEAT", "word/mean", True),
            ("w-SEAT", "word/first", False),
            ("w-SEAT", "word/last", False),
        ):
            rows.append(
                score_row(
                    method=method,
                    model="enc",
                    source="templates",
                    test=test,
                    descriptor="names",
                    encoding=encoding,
                    primary=primary,
                    effect_size=0.5 if primary else 0.25,
                    p_value=p,
                )
            )
    return pd.DataFrame(rows)


PUBLISHED = load_published(ROOT / "resources/published/husse2022.csv")


def context(scores_=None, models=None):
    settings = ReportSettings({"enc": "BERT"} if models is None else models, alpha=0.01)
    return TableContext(scores() if scores_ is None else scores_, PUBLISHED, settings, PAPER_MODELS)


def test_table3_cells_and_published_values():
    long = table3(context())
    ours = long[long["origin"] == "ours"]
    assert set(ours["test"]) == {"C1", "C6"}
    assert len(ours) == 4  # 2 methods x 2 tests x 1 model
    c1 = ours[(ours["test"] == "C1") & (ours["method"] == "s-SEAT")].iloc[0]
    assert c1["column"] == "enc (as BERT)" and c1["significant"]
    # Holm over 4 cells: 0.001 * 4 = 0.004 < 0.01 -> still significant
    assert c1["p_holm"] == 0.004 and c1["significant_holm"]
    bert = long[
        (long["origin"] == "paper:BERT") & (long["test"] == "C1") & (long["method"] == "s-SEAT")
    ]
    assert dict(zip(bert["column"], bert["effect_size"], strict=True)) == {
        "BERT orig.": 0.30,
        "BERT paper": 0.93,
    }


def test_markdown_marks_significance():
    md = to_markdown(table3(context()), "T3", "")
    assert "| s-SEAT   | C1     | **0.50**†" in md
    assert "| s-SEAT   | C6     | 0.50 " in md
    assert "0.93" in md  # the paper's BERT replication value sits beside ours


def test_table13_levels():
    long = table13(context())
    ours = long[long["origin"] == "ours"]
    assert sorted(ours.loc[ours["test"] == "C1", "column"]) == [
        "enc (as BERT) avg",
        "enc (as BERT) end",
        "enc (as BERT) sent",
        "enc (as BERT) start",
    ]
    assert (
        ours.loc[
            (ours["test"] == "C1") & (ours["column"] == "enc (as BERT) start"), "effect_size"
        ].item()
        == 0.25
    )


def test_every_score_table_builds_on_empty_scores(tmp_path):
    from biasbench.io import write_tsv

    write_tsv(tmp_path / "all.tsv", pd.DataFrame([score_row()]).iloc[:0])
    for table in (t for t in TABLES.values() if t.make is None and t.render is None):
        csv, md, html = render_table(table, [str(tmp_path / "all.tsv")], ReportSettings({}))
        assert md.startswith(f"# {table.title}") and csv.startswith("method,test,column")
        assert "No scores" in html


def test_table5_correlations_hand_computed():
    rows = []
    for i, test in enumerate(("C1", "C3", "C6", "C9")):
        for method, source, value, p in (
            ("s-SEAT", "templates", i, 0.001),
            ("w-SEAT", "templates", 2 * i + 1, 0.001 if i < 2 else 0.5),
            ("CEAT", "templates", -i, 0.001),
        ):
            rows.append(
                score_row(
                    method=method,
                    model="enc",
                    source=source,
                    test=test,
                    descriptor="names",
                    encoding="x",
                    primary=True,
                    effect_size=float(value),
                    p_value=p,
                )
            )
    long = table5(context(pd.DataFrame(rows), {"enc": None}))
    ours = long[long["origin"] == "ours"].set_index(["method", "column"])["effect_size"]
    assert ours[("s-SEAT / w-SEAT", "enc all")] == pytest.approx(1.0)
    assert ours[("s-SEAT / CEAT", "enc all")] == pytest.approx(-1.0)
    assert np.isnan(ours[("s-SEAT / w-SEAT", "enc sig.")])  # too few points: n/a
    assert ours[("s-SEAT / CEAT", "enc sig.")] == pytest.approx(-1.0)
    bert = long[(long["origin"] == "paper:BERT") & (long["method"] == "s-SEAT / w-SEAT")]
    assert sorted(bert["effect_size"]) == [-0.56, -0.44]
    assert "n/a" in to_markdown(long, "T5", "")


def test_html_rendering_matches_the_markdown():
    from biasbench.reports.tables import to_html

    long = table3(context())
    html = to_html(long, "T3", "Read me.")
    assert "<b>0.50</b>†" in html and "<h2>T3</h2>" in html and "0.93" in html
    assert html.count("<tr") == to_markdown(long, "T3", "").count("\n|") - 1  # header + rows
    assert "<th>column</th>" not in html
