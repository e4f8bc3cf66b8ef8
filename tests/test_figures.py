import pandas as pd

from biasbench.figures import figure5, method_table


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


def test_figure5_writes_png_and_pdf(tmp_path):
    figure5(scores(), tmp_path / "f.png", tmp_path / "f.pdf")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "f.pdf").read_bytes()[:4] == b"%PDF"
