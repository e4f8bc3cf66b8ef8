"""Figure machinery (matplotlib, no display needed): a figure function draws and returns a
``matplotlib.figure.Figure`` (so tests can check what it plots); :func:`save` writes it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import matplotlib
import pandas as pd

from biasbench.io import atomic_path, read_tsv

matplotlib.use("Agg")  # no display; pyplot itself is imported on first use

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def pyplot():
    """pyplot, imported on first use (planning the DAG imports the report modules and draws
    nothing)."""
    import matplotlib.pyplot as plt

    return plt


def save(fig: Figure, png: str | os.PathLike, pdf: str | os.PathLike) -> None:
    """PNG and PDF, written atomically; the PDF without a creation date (byte-stable)."""
    plt = pyplot()
    fig.tight_layout()
    for path, fmt in ((png, "png"), (pdf, "pdf")):
        with atomic_path(path) as tmp:
            fig.savefig(
                tmp, format=fmt, dpi=120, metadata={"CreationDate": None} if fmt == "pdf" else None
            )
    plt.close(fig)


def read_scores(paths: list[str]) -> pd.DataFrame:
    return pd.concat([read_tsv(p) for p in paths], ignore_index=True) if paths else pd.DataFrame()


def no_data(what: str) -> Figure:
    """A figure whose inputs the configuration does not produce says so instead of failing."""
    fig, ax = pyplot().subplots(figsize=(6, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, f"No data: {what}", ha="center", va="center")
    return fig
