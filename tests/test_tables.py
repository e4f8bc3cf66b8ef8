import numpy as np
import pandas as pd
import pytest

from biasbench.io import write_table_csv
from biasbench.reports.catalog import TABLES
from biasbench.reports.husse2022 import PAPER_MODELS, table3, table5, table13
from biasbench.reports.tables import (
    MISSING,
    Coverage,
    ReportSettings,
    TableContext,
    coverage_lines,
    load_published,
    method_source,
    to_markdown,
)
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


#: what the configuration plans for the model "enc": templates jobs of C1 and C6 (names)
ENC_JOBS = (("enc", "templates", "C1", "names"), ("enc", "templates", "C6", "names"))


def context(scores_=None, models=None, jobs=ENC_JOBS, natural=None):
    models = {"enc": "BERT"} if models is None else models
    settings = ReportSettings(
        models, alpha=0.01, natural=natural, kinds=dict.fromkeys(models, "transformer"), jobs=jobs
    )
    return TableContext(scores() if scores_ is None else scores_, PUBLISHED, settings, PAPER_MODELS)


def test_table3_cells_and_published_values():
    long = table3(context())
    ours = long[long["origin"] == "ours"]
    assert set(ours["test"]) == {"C1", "C6"}
    assert len(ours) == 6  # 3 methods x 2 tests x 1 model, CEAT planned but without rows
    ceat = ours[ours["method"] == "CEAT"]
    assert ceat["effect_size"].isna().all() and (ceat["note"] == MISSING).all()
    assert ceat["planned"].all() and (ceat["source"] == "templates").all()
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
    ceat = ours[ours["method"] == "CEAT"]  # planned, no rows: counted as missing
    assert len(ceat) == 8 and (ceat["note"] == MISSING).all()
    ours = ours[ours["method"] == "SEAT"]
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
        inputs = {"scores": [str(tmp_path / "all.tsv")]}
        csv, md, html = render_table(table, inputs, ReportSettings({}))
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


def _rows(model, source, test, methods=("s-SEAT", "w-SEAT", "CEAT")):
    encodings = {"s-SEAT": "sent/cls", "w-SEAT": "word/mean", "CEAT": "word/mean"}
    return [
        score_row(
            method=m,
            model=model,
            source=source,
            test=test,
            descriptor="names",
            encoding=encodings[m],
            effect_size=0.4,
            p_value=0.001,
        )
        for m in methods
    ]


def test_table3_keeps_a_transformer_that_also_reads_words_alone():
    """A transformer with rows on ``words`` (Schröder et al.'s example) is still a transformer:
    its kind comes from the configuration, not from which rows exist."""
    rows = _rows("enc", "templates", "C1") + _rows("enc", "words", "Schroeder31")
    jobs = (("enc", "templates", "C1", "names"), ("enc", "words", "Schroeder31", "names"))
    long = table3(context(pd.DataFrame(rows), jobs=jobs))
    ours = long[long["origin"] == "ours"].set_index("method")
    assert set(ours.index) == {"s-SEAT", "w-SEAT", "CEAT"}
    assert (ours["effect_size"] == 0.4).all() and (ours["source"] == "templates").all()
    assert Coverage.of(long) == Coverage(planned=3, filled=3, explained=0, missing=0)


def test_natural_context_methods_follow_the_planned_sources():
    jobs = (("enc", "templates", "C1", "names"), ("enc", "natural", "C1", "names"))
    ctx = context(pd.DataFrame(_rows("enc", "natural", "C1")), jobs=jobs, natural="natural")
    assert method_source(ctx, "CEAT", "enc") == "natural"
    assert method_source(ctx, "s-SEAT", "enc") == "templates"
    # a model the configuration runs on templates only shows CEAT there
    ctx = context(pd.DataFrame(_rows("enc", "templates", "C1")), natural="natural")
    assert method_source(ctx, "CEAT", "enc") == "templates"
    long = table3(ctx)
    assert long.loc[long["method"] == "CEAT", "effect_size"].notna().any()


def test_coverage_counts_filled_explained_and_missing(tmp_path):
    rows = _rows("enc", "templates", "C1")
    rows[0] |= {"effect_size": float("nan"), "p_value": float("nan"), "note": "X: 9 of 25 OOV"}
    long = table3(context(pd.DataFrame(rows)))  # C6 is planned too and has no rows
    assert Coverage.of(long) == Coverage(planned=6, filled=2, explained=1, missing=3)
    assert "Coverage: 6 planned cells: 2 filled, 1 n/a" in to_markdown(long, "T3", "")
    write_table_csv(tmp_path / "table3_seat.csv", long.to_csv(index=False))
    full = table3(context(pd.DataFrame(_rows("enc", "templates", "C1")), jobs=ENC_JOBS[:1]))
    write_table_csv(tmp_path / "full.csv", full.to_csv(index=False))
    lines = coverage_lines([str(tmp_path / "table3_seat.csv"), str(tmp_path / "full.csv")])
    assert lines == [
        "table3_seat: 6 planned cells: 2 filled, 1 n/a with the reason in a footnote, 3 missing"
    ]


def test_every_planned_cell_of_the_default_configuration_has_score_rows_feeding_it():
    """Over the default configuration's plan: each paper table plans the cells of every real
    transformer, and each planned cell is fed by a score file the workflow builds (and
    collects into all.tsv) for that model, source and test."""
    from biasbench.config import validate_config
    from biasbench.plan import make_plan
    from biasbench.reports.husse2022 import TABLE3_TESTS
    from biasbench.reports.tables import report_settings

    from .test_config import default_config

    config = validate_config(default_config())
    plan = make_plan(config, ROOT)
    settings = ReportSettings(**report_settings(config, plan))
    empty = pd.DataFrame([score_row()]).iloc[:0]
    fed = set(plan.score_files()) | set(plan.lpbs_files())
    transformers = ("minilm-l6", "smollm2-135m", "gemma3-270m")
    planned_models = {}
    for table in (t for t in TABLES.values() if t.build is not None):
        published = load_published(ROOT / table.published) if table.published else pd.DataFrame()
        long = table.build(TableContext(empty, published, settings, table.paper_models))
        cells = long[(long["origin"] == "ours") & long["planned"]]
        planned_models[table.name] = set(cells["model"])
        if table.name == "table5_correlations":
            continue  # correlations of the cells below
        assert (cells["note"] == MISSING).all()  # no rows: every planned cell is missing
        for cell in cells.itertuples():
            reads_logprobs = cell.method in ("LPBS", "p-CEAT")
            stage = "lpbs" if reads_logprobs else "scores"
            assert f"results/{stage}/{cell.model}/{cell.source}/{cell.test}.tsv" in fed, cell
    for name in ("table3_seat", "table5_correlations", "table11_names_terms", "table13_encoding"):
        assert set(transformers) <= planned_models[name], name
    assert set(config["lpbs"]["models"]) <= planned_models["table4_lpbs"]
    assert {"minilm-l6+mlm-head", "smollm2-135m"} <= planned_models["table4_lpbs"]
    # p-CEAT's corpus model
    assert set(config["lpbs"]["corpus_models"]) <= planned_models["table14_probability"]
    assert "minilm-l6+mlm-head" in planned_models["table14_probability"]
    assert "glove-6b-50d" in planned_models["weat_static"]
    t3 = table3(TableContext(empty, PUBLISHED, settings, PAPER_MODELS))
    t3 = t3[(t3["origin"] == "ours") & t3["planned"]]
    for model in transformers:
        for method in ("s-SEAT", "w-SEAT", "CEAT"):
            cells = t3[(t3["model"] == model) & (t3["method"] == method)]
            assert set(cells["test"]) == set(TABLE3_TESTS), (model, method)
    ceat = t3[t3["method"] == "CEAT"].groupby("model")["source"].agg(set)
    assert ceat.to_dict() == {
        "minilm-l6": {"natural"},  # natural contexts, as configured
        "smollm2-135m": {"templates"},
        "gemma3-270m": {"templates"},
        **{f"{m}-null": {"templates"} for m in transformers},  # the null models: templates
    }


def test_the_report_sections_put_the_comparison_first_and_each_target_under_its_paper():
    from biasbench.reports import catalog, delobelle2022, husse2022, synthesis

    sections = sorted({catalog.report_section(t) for t in (*catalog.TABLES, *catalog.FIGURES)})
    assert sections[0] == catalog.COMPARISON  # the report sorts its sections by name
    assert sorted([*sections, catalog.MODELS, catalog.PROVENANCE])[-2:] == [
        catalog.MODELS,
        catalog.PROVENANCE,
    ]
    assert catalog.report_section(synthesis.FIGURES[0].name) == catalog.COMPARISON
    assert catalog.report_section(husse2022.TABLES[0].name).endswith(husse2022.PAPER)
    assert catalog.report_section(delobelle2022.FIGURES[0].name).endswith(delobelle2022.PAPER)
    with pytest.raises(KeyError, match="nosuch"):
        catalog.report_section("nosuch")
