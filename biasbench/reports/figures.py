"""Figure machinery (matplotlib, no display needed): a figure function draws and returns a
``matplotlib.figure.Figure`` (so tests can check what it plots); :func:`save` writes it."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from biasbench.io import atomic_path, read_tsv  # noqa: E402


def save(fig: Figure, png: str | os.PathLike, pdf: str | os.PathLike) -> None:
    """PNG and PDF, written atomically; the PDF without a creation date (byte-stable)."""
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
    fig, ax = plt.subplots(figsize=(6, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, f"No data: {what}", ha="center", va="center")
    return fig
