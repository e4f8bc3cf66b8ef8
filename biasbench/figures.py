"""Paper figures from the tidy score table (matplotlib, no display needed)."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from biasbench.io import atomic_path, read_tsv  # noqa: E402
from biasbench.tables import primary_scores  # noqa: E402

METHODS = ("s-SEAT", "w-SEAT", "CEAT", "LPBS")


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


Paths = list[str]


def _scores(paths: Paths) -> pd.DataFrame:
    return pd.concat([read_tsv(p) for p in paths], ignore_index=True) if paths else pd.DataFrame()


def _no_data(png: str | os.PathLike, pdf: str | os.PathLike, what: str) -> None:
    """A figure whose inputs the configuration does not produce says so instead of failing."""
    fig, ax = plt.subplots(figsize=(6, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, f"No data: {what}", ha="center", va="center")
    _save(fig, png, pdf)


def figure1(inputs: Paths, png: str | os.PathLike, pdf: str | os.PathLike, alpha: float) -> None:
    """Effect sizes by model and parameter choice (target description; context source),
    non-significant ones faint, and the distribution of significant scores per method
    (Figure 1). Primary encodings of every method; simplified sets left out."""
    scores = _scores(inputs)
    scores = scores[scores["primary"].astype(bool) & (scores["descriptor"] != "simplified")]
    scores = scores.assign(
        context=np.where(scores["source"].isin(["templates", "words"]), "templates", "corpus")
    )
    models = list(dict.fromkeys(scores["model"]))
    fig, axes = plt.subplots(2, 2, figsize=(13, 8), gridspec_kw={"width_ratios": [3, 1]})
    for ax, choice, levels in (
        (axes[0][0], "descriptor", ("names", "terms")),
        (axes[1][0], "context", ("templates", "corpus")),
    ):
        for k, level in enumerate(levels):
            part = scores[scores[choice] == level]
            x = np.array([models.index(m) for m in part["model"]], float) + (k - 0.5) * 0.35
            x += np.linspace(-0.08, 0.08, len(part))  # spread points of one model a little
            sig = (part["p_value"] < alpha).to_numpy()
            y = part["effect_size"].to_numpy()
            ax.scatter(x[sig], y[sig], s=12, color=f"C{k}", label=level)
            ax.scatter(x[~sig], y[~sig], s=12, color=f"C{k}", alpha=0.15)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_xticks(range(len(models)), models, fontsize=8)
        ax.set_ylabel(
            f"effect size, by {'target description' if choice == 'descriptor' else 'context'}"
        )
        ax.legend(fontsize=8, loc="upper right")
    significant = scores[scores["p_value"] < alpha]
    for ax, choice, levels in (
        (axes[0][1], "descriptor", ("names", "terms")),
        (axes[1][1], "context", ("templates", "corpus")),
    ):
        for k, level in enumerate(levels):
            values = significant.loc[significant[choice] == level, "effect_size"]
            ax.hist(values, bins=20, range=(-2, 2), alpha=0.5, color=f"C{k}", label=level)
        ax.set_xlabel(f"significant effect sizes (p < {alpha})")
        ax.legend(fontsize=7)
    fig.suptitle("Bias scores across all experiments (faint: not significant; cf. Figure 1)")
    _save(fig, png, pdf)


def figure2(inputs: Paths, png: str | os.PathLike, pdf: str | os.PathLike, alpha: float) -> None:
    """Share of each target set kept when reduced to single tokens of the model's vocabulary
    (Figure 2), per model, from the LPBS rows (the reduction is what LPBS' reduced sets use)."""
    if not inputs:
        return _no_data(png, pdf, "the configuration runs no LPBS (lpbs.models, lpbs.tests)")
    scores = _scores(inputs)
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


def figure3(inputs: Paths, png: str | os.PathLike, pdf: str | os.PathLike, alpha: float) -> None:
    """Per-sample effect sizes of C1 with simplified, reduced and full target sets: CEAT on
    cosine similarities (top) and probability-based CEAT (bottom) (Figure 3). Inputs are the
    ``.samples.npz`` files of the score and LPBS stages."""
    panels = {"CEAT (cosine)": {}, "LPBS (probability)": {}}
    for path in inputs:
        with np.load(path) as data:
            for key in data.files:
                if "/lpbs/" in path:
                    descriptor, variant = key.split("|")
                    panel = panels["LPBS (probability)"]
                else:
                    descriptor = path.rsplit("/", 1)[1].split(".")[0]
                    variant = "reduced" if key.endswith("+reduced") else "full"
                    panel = panels["CEAT (cosine)"]
                label = "simplified" if descriptor == "simplified" else f"{variant} ({descriptor})"
                if descriptor != "simplified" or variant == "full":
                    panel[label] = data[key]
    fig, axes = plt.subplots(2, 1, figsize=(8, 6.5))
    for ax, (title, curves) in zip(axes, panels.items(), strict=True):
        for label, values in sorted(curves.items()):
            ax.hist(values, bins=60, histtype="step", lw=1.5, label=label, density=True)
        if curves:
            ax.legend(fontsize=8)
        else:
            ax.text(
                0.5,
                0.5,
                "no samples: too few contexts in the corpus",
                ha="center",
                transform=ax.transAxes,
            )
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("per-sample effect size")
    fig.suptitle("C1 (flowers/insects): effect size distributions (cf. Figure 3)")
    _save(fig, png, pdf)


def figure4(inputs: Paths, png: str | os.PathLike, pdf: str | os.PathLike, alpha: float) -> None:
    """Probability-based CEAT by the largest word gap allowed between target and attribute
    (Figure 4), per test, model and corpus; hollow markers are not significant."""
    if not inputs:
        return _no_data(png, pdf, "no LPBS corpus run of C1 or C9 (lpbs.corpora, lpbs.tests)")
    sweep = _scores(inputs)
    tests = list(dict.fromkeys(sweep["test"]))
    fig, axes = plt.subplots(1, len(tests), figsize=(5.5 * len(tests), 4), squeeze=False)
    for ax, test in zip(axes[0], tests, strict=True):
        for k, ((model, source), g) in enumerate(
            sweep[sweep["test"] == test].groupby(["model", "source"])
        ):
            g = g.sort_values("window")
            color = f"C{k}"
            ax.plot(g["window"], g["effect_size"], color=color, label=f"{model} / {source}")
            sig = (g["p_value"] < alpha).to_numpy()
            ax.scatter(g["window"][sig], g["effect_size"][sig], color=color)
            ax.scatter(
                g["window"][~sig], g["effect_size"][~sig], facecolors="none", edgecolors=color
            )
        ax.axvline(18, color="grey", lw=0.5, ls="--")
        ax.set_title(test)
        ax.set_xlabel("largest gap between the stimuli (words)")
        ax.set_ylabel("combined effect size")
        ax.legend(fontsize=7)
    fig.suptitle("Effect of the window size on probability-based CEAT (cf. Figure 4)")
    _save(fig, png, pdf)


def figure5(inputs: Paths, png: str | os.PathLike, pdf: str | os.PathLike, alpha: float) -> None:
    """Pairwise scatter matrix of the methods' effect sizes, coloured by model (Figure 5)."""
    table = method_table(_scores(inputs))
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


FIGURES = {
    "figure1_scores": figure1,
    "figure2_vocabulary": figure2,
    "figure3_distributions": figure3,
    "figure4_window": figure4,
    "figure5_scatter": figure5,
}
