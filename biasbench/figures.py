"""Paper figures from the tidy score table (matplotlib, no display needed)."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from biasbench.io import atomic_path  # noqa: E402
from biasbench.tables import primary_scores  # noqa: E402

METHODS = ("s-SEAT", "w-SEAT", "CEAT")


def method_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Primary effect size per (model, test, descriptor) and method, each method on its
    default source (see ``tables.primary_scores``)."""
    rows = pd.concat([primary_scores(scores, m)[0] for m in METHODS])
    return rows.pivot_table(
        index=["model", "test", "descriptor"], columns="method", values="effect_size"
    )


def _save(fig, png: str | os.PathLike, pdf: str | os.PathLike) -> None:
    """PNG and PDF, written atomically; the PDF without a creation date (byte-stable)."""
    fig.tight_layout()
    for path, fmt in ((png, "png"), (pdf, "pdf")):
        with atomic_path(path) as tmp:
            fig.savefig(
                tmp, format=fmt, dpi=120, metadata={"CreationDate": None} if fmt == "pdf" else None
            )
    plt.close(fig)


def figure2(scores: pd.DataFrame, png: str | os.PathLike, pdf: str | os.PathLike) -> None:
    """Share of each target set kept when reduced to single tokens of the model's vocabulary
    (Figure 2), per model, from the LPBS rows (the reduction is what LPBS' reduced sets use)."""
    rows = scores[(scores["method"] == "LPBS") & (scores["encoding"] == "reduced/noun")]
    rows = rows[rows["descriptor"] != "simplified"]
    models = list(dict.fromkeys(rows["model"]))
    fig, axes = plt.subplots(len(models), 1, figsize=(9, 2.6 * len(models)), squeeze=False)
    for ax, model in zip(axes[:, 0], models, strict=True):
        part = rows[rows["model"] == model]
        kept = part["n_x"] + part["n_y"]
        share = kept / (kept + part["dropped_X"] + part["dropped_Y"])
        labels = part["test"] + "/" + part["descriptor"]
        ax.bar(labels, share, color="tab:blue")
        for x, (k, v) in enumerate(zip(kept, share, strict=True)):
            ax.text(x, v + 0.02, str(k), ha="center", fontsize=7)
        ax.set_ylim(0, 1.15)
        ax.set_ylabel("share kept")
        ax.set_title(f"{model}: target words that are one token (count kept above the bar)")
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    _save(fig, png, pdf)


def figure5(scores: pd.DataFrame, png: str | os.PathLike, pdf: str | os.PathLike) -> None:
    """Pairwise scatter matrix of the methods' effect sizes, coloured by model (Figure 5)."""
    table = method_table(scores)
    methods = [m for m in METHODS if m in table.columns]
    models = list(dict.fromkeys(table.index.get_level_values("model")))
    n = len(methods)
    fig, axes = plt.subplots(n, n, figsize=(3 * n, 3 * n), squeeze=False)
    for i, y in enumerate(methods):
        for j, x in enumerate(methods):
            ax = axes[i][j]
            for model in models:
                part = table.xs(model, level="model")
                if i == j:
                    ax.hist(part[x].dropna(), bins=10, range=(-2, 2), alpha=0.5, label=model)
                else:
                    ax.scatter(part[x], part[y], s=14, alpha=0.7, label=model)
            ax.axhline(0, color="grey", lw=0.5) if i != j else None
            ax.axvline(0, color="grey", lw=0.5)
            ax.set_xlim(-2, 2)
            if i != j:
                ax.set_ylim(-2, 2)
            if i == n - 1:
                ax.set_xlabel(x)
            if j == 0:
                ax.set_ylabel(y if i != j else f"{y} (count)")
    axes[0][n - 1].legend(fontsize=7, loc="upper right")
    fig.suptitle("Effect sizes of the methods against each other, per model (cf. Figure 5)")
    _save(fig, png, pdf)


FIGURES = {"figure2_vocabulary": figure2, "figure5_scatter": figure5}
