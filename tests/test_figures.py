import numpy as np
import pandas as pd
import pytest

from biasbench.figures import FIGURES, method_table
from biasbench.io import write_tsv


def scores():
    rows = []
    for i, test in enumerate(("C1", "C3", "C6")):
        for method, source, value in (
            ("s-SEAT", "templates", 0.1 * i),
            ("w-SEAT", "templates", 0.2 * i),
            ("CEAT", "templates", 0.3 * i),
            ("CEAT", "templates", 9.0),  # a non-primary encoding: never plotted
        ):
            rows.append(
                {
                    "method": method,
                    "model": "m",
                    "source": source,
                    "test": test,
                    "descriptor": "names",
                    "primary": value != 9.0,
                    "effect_size": value,
                }
            )
    return pd.DataFrame(rows)


def test_method_table_takes_primary_scores_on_default_sources():
    table = method_table(scores())
    assert list(table.loc[("m", "C6", "names")]) == [0.6, 0.2, 0.4]  # CEAT, s-SEAT, w-SEAT


def full_scores():
    frame = scores().assign(p_value=0.001, encoding="word/mean", n_x=2, n_y=2)
    lpbs = frame[frame["method"] == "CEAT"].assign(
        method="LPBS", encoding="reduced/noun", dropped_X=1, dropped_Y=0, window=4
    )
    return pd.concat([frame, lpbs], ignore_index=True)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_figure_writes_png_and_pdf(tmp_path, name):
    tsv = tmp_path / "scores.tsv"
    write_tsv(tsv, full_scores())
    inputs = [str(tsv)]
    if name == "figure3_distributions":
        rng = np.random.default_rng(0)
        (tmp_path / "scores").mkdir()
        (tmp_path / "lpbs").mkdir()
        inputs = [str(tmp_path / "scores" / "names.samples.npz"), str(tmp_path / "lpbs" / "C1.npz")]
        np.savez(
            inputs[0],
            **{"word/mean": rng.normal(size=50), "word/mean+reduced": rng.normal(size=50)},
        )
        np.savez(inputs[1], **{"names|full": rng.normal(size=50)})
    FIGURES[name](inputs, tmp_path / "f.png", tmp_path / "f.pdf", 0.01)
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "f.pdf").read_bytes()[:4] == b"%PDF"


@pytest.mark.parametrize("name", ["figure2_vocabulary", "figure3_distributions", "figure4_window"])
def test_figures_without_inputs_say_so(tmp_path, name):
    FIGURES[name]([], tmp_path / "f.png", tmp_path / "f.pdf", 0.01)
    assert (tmp_path / "f.pdf").read_bytes()[:4] == b"%PDF"
