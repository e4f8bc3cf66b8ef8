"""What each figure draws: its plotted data, axes and messages, not only that a file exists."""

import numpy as np
import pandas as pd
import pytest

from biasbench.io import write_npz, write_tsv
from biasbench.reports.catalog import FIGURES
from biasbench.reports.figures import save
from biasbench.reports.husse2022 import figure1, figure2, figure3, figure4, figure5, method_table
from biasbench.reports.tables import ReportSettings, TableContext

from .conftest import score_row

SETTINGS = ReportSettings({"m": None, "n": None}, alpha=0.01, natural="natural")


def scores():
    rows = []
    for i, test in enumerate(("C1", "C3", "C6")):
        for method, source, value in (
            ("s-SEAT", "templates", 0.1 * i),
            ("w-SEAT", "templates", 0.2 * i),
            ("CEAT", "natural", 0.3 * i),
            ("CEAT", "templates", 9.0),  # not CEAT's paper-table source: never plotted
        ):
            rows.append(
                score_row(
                    method=method,
                    model="m",
                    source=source,
                    test=test,
                    descriptor="names",
                    encoding="word/mean",
                    effect_size=value,
                    p_value=0.001 if i else 0.5,
                )
            )
    return pd.DataFrame(rows)


def texts(fig):
    return " ".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_method_table_takes_primary_scores_on_paper_sources():
    table = method_table(TableContext(scores(), pd.DataFrame(), SETTINGS))
    assert list(table.loc[("m", "C6", "names")]) == [0.6, 0.2, 0.4]  # CEAT, s-SEAT, w-SEAT


def test_figure1_plots_every_primary_score_and_fades_the_insignificant(tmp_path):
    write_tsv(tmp_path / "s.tsv", scores())
    fig = figure1({"scores": [str(tmp_path / "s.tsv")]}, SETTINGS)
    top = fig.axes[0]  # by target description: names (significant, then faint)
    plotted = np.concatenate([c.get_offsets()[:, 1] for c in top.collections])
    assert sorted(plotted) == sorted(scores()["effect_size"])
    faint = [c for c in top.collections if c.get_alpha() == 0.15]
    assert sorted(faint[0].get_offsets()[:, 1]) == [0.0, 0.0, 0.0, 9.0]  # p = 0.5: test C1


def test_figure2_bars_are_the_share_of_targets_kept(tmp_path):
    frame = pd.DataFrame(
        [
            score_row(
                method="LPBS",
                model="m",
                test="C1",
                descriptor="names",
                variant="reduced",
                n_x=3,
                n_y=1,
                dropped_X=1,
                dropped_Y=3,
            ),
            score_row(
                method="LPBS",
                model="m",
                test="C6",
                descriptor="terms",
                variant="reduced",
                n_x=8,
                n_y=8,
            ),
            score_row(
                method="LPBS",
                model="m",
                test="C6",
                descriptor="terms",
                variant="full",
                n_x=8,
                n_y=8,
            ),
        ]
    )
    write_tsv(tmp_path / "l.tsv", frame)
    fig = figure2({"lpbs": [str(tmp_path / "l.tsv")]}, SETTINGS)
    bars = [p.get_height() for p in fig.axes[0].patches]
    assert bars == [0.5, 1.0]  # 4 of 8, 16 of 16
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["C1/names", "C6/terms"]
    assert "No data" in texts(figure2({"lpbs": []}, SETTINGS))


def test_figure3_histograms_per_target_set(tmp_path):
    rng = np.random.default_rng(0)
    ceat, pceat = tmp_path / "a.samples.npz", tmp_path / "b.samples.npz"
    write_npz(
        ceat,
        {
            "CEAT|names|word/mean|full": rng.normal(size=50),
            "CEAT|names|word/mean|reduced": rng.normal(size=50),
            "CEAT|names|sent/cls|full": rng.normal(size=50),  # not plotted
        },
    )
    write_npz(pceat, {"p-CEAT|names|causal|full": rng.normal(size=50)})
    fig = figure3({"samples": [str(ceat), str(pceat)]}, SETTINGS)
    labels = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in fig.axes]
    assert labels == [["full (names)", "reduced (names)"], ["full (names)"]]
    assert "no samples" in texts(
        figure3({"samples": [str(ceat)]}, SETTINGS)
    )  # the p-CEAT panel says so


def test_figure4_lines_follow_the_window(tmp_path):
    sweep = pd.DataFrame(
        [
            score_row(
                method="p-CEAT",
                model="m",
                source="natural",
                test="C1",
                effect_size=0.1 * w,
                p_value=0.001,
                window=w,
            )
            for w in (2, 8, 18)
        ]
    )
    write_tsv(tmp_path / "w.tsv", sweep)
    fig = figure4({"sweeps": [str(tmp_path / "w.tsv")]}, SETTINGS)
    line = fig.axes[0].get_lines()[0]
    assert list(line.get_xdata()) == [2, 8, 18]
    np.testing.assert_allclose(line.get_ydata(), [0.2, 0.8, 1.8])
    assert "No data" in texts(figure4({"sweeps": []}, SETTINGS))


def test_figure5_scatters_one_method_against_another(tmp_path):
    write_tsv(tmp_path / "s.tsv", scores())
    fig = figure5({"scores": [str(tmp_path / "s.tsv")]}, SETTINGS)
    assert len(fig.axes) == 9  # s-SEAT, w-SEAT, CEAT (no LPBS rows)
    s_vs_w = fig.axes[1]  # row s-SEAT (y), column w-SEAT (x)
    np.testing.assert_allclose(
        s_vs_w.collections[0].get_offsets(), [[0, 0], [0.2, 0.1], [0.4, 0.2]]
    )
    assert fig.axes[6].get_xlabel() == "s-SEAT" and fig.axes[3].get_ylabel() == "w-SEAT"


@pytest.mark.parametrize(
    "name", sorted(n for n, f in FIGURES.items() if f.paper.startswith("Husse"))
)
def test_every_score_figure_saves_png_and_pdf_byte_stable(tmp_path, name):
    """The figures drawn from score tables; the study figures of the other papers are drawn
    from their own inputs in their report tests."""
    write_tsv(tmp_path / "s.tsv", scores())
    empty = {"figure2_vocabulary": "lpbs", "figure4_window": "sweeps"}
    empty["figure3_distributions"] = "samples"
    inputs = {empty[name]: []} if name in empty else {"scores": [str(tmp_path / "s.tsv")]}
    for k in (1, 2):
        save(FIGURES[name].draw(inputs, SETTINGS), tmp_path / f"{k}.png", tmp_path / f"{k}.pdf")
    assert (tmp_path / "1.pdf").read_bytes() == (tmp_path / "2.pdf").read_bytes()
    assert (tmp_path / "1.png").read_bytes()[:4] == b"\x89PNG"
