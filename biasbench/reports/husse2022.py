"""Husse & Spitz (2022), *Mind Your Bias*: its tables (3, 4, 5, 6, 11, 12, 13, 14, and WEAT on
the static models) and figures (1-5), each declared with the files it reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from biasbench import paths
from biasbench.io import read_npz
from biasbench.methods.registry import get
from biasbench.reports.figures import no_data, pyplot, read_scores
from biasbench.reports.tables import (
    MIN_POINTS,
    ReportSettings,
    TableContext,
    correlation,
    finish,
    is_static,
    label,
    method_source,
    our_cells,
    planned_sources,
    primary_scores,
    published_cells,
)
from biasbench.reports.targets import FigureTarget, Inputs, Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PAPER = "Husse & Spitz (2022)"
#: its tables' and figures' section of the report (biasbench.reports.catalog)
SECTION = PAPER
#: its place among the catalog's modules (biasbench.reports.catalog): the report's order
ORDER = 1
PUBLISHED = "resources/published/husse2022.csv"
PAPER_MODELS = ("ELMo", "BERT", "GPT-2", "OPT", "BLOOM")
TABLE3_TESTS = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2")
TABLE11_TESTS = ("C3", "C6", "C9", "Occ", "I1", "I2")
ENCODING_LEVELS = {"sent": None, "avg": "word/mean", "start": "word/first", "end": "word/last"}
#: the methods the paper compares (Table 5, Figure 5), as registered
METHODS = tuple(get(name).name for name in ("s-SEAT", "w-SEAT", "CEAT", "LPBS"))
S_SEAT, W_SEAT, CEAT, LPBS = METHODS
WEAT, P_CEAT = get("WEAT").name, get("p-CEAT").name
METHOD_PAIRS = tuple((a, b) for i, a in enumerate(METHODS) for b in METHODS[i + 1 :])


def _primary_descriptor(ctx: TableContext, test: str) -> str | None:
    """Names where the test has them, else terms (the word set's descriptors, as planned)."""
    present = {d for _m, _s, t, d in ctx.settings.jobs if t == test}
    return "names" if "names" in present else ("terms" if "terms" in present else None)


def _transformers(ctx: TableContext) -> list[str]:
    """Contextual models the configuration runs on templates or a corpus, in config order."""
    return [
        m
        for m in ctx.models
        if not is_static(ctx, m) and any(s != "words" for s in planned_sources(ctx, m))
    ]


def _lpbs_models(ctx: TableContext) -> list[str]:
    planned = {m for m, *_ in ctx.settings.lpbs_jobs}
    return [m for m in ctx.models if m in planned]


def _where(method: str, test: str, model: str, descriptor: str | None, **extra) -> dict:
    """Score filter of one cell: the method's paper-table source and its primary encoding and
    variant unless overridden."""
    where = {
        "method": method,
        "test": test,
        "model": model,
        "descriptor": descriptor,
        "source": None,  # resolved by our_cells (reports.tables.method_source)
        "primary": True,
        "variant": "full",
    }
    where.update(extra)
    return where


def _published(ctx: TableContext, table: str, orig: bool = False) -> list[dict]:
    if orig:  # Table 3: the original papers' values beside the authors' replication
        return published_cells(
            ctx, table, lambda r: f"{r.paper_model} {'orig.' if r.variant == 'orig' else 'paper'}"
        )
    return published_cells(ctx, table, lambda r: f"{r.paper_model} {r.variant} (paper)")


def table3(ctx: TableContext) -> pd.DataFrame:
    """s-SEAT, w-SEAT (templates) and CEAT (natural contexts) per test and model; a model
    the configuration does not run on the natural contexts shows CEAT on templates (the
    cell's source says so)."""
    selectors = [
        (
            {"method": method, "test": test, "column": label(ctx, model)},
            _where(method, test, model, _primary_descriptor(ctx, test)),
        )
        for method in (S_SEAT, W_SEAT, CEAT)
        for test in TABLE3_TESTS
        for model in _transformers(ctx)
    ]
    return finish(our_cells(ctx, selectors) + _published(ctx, "table3", orig=True), ctx.alpha)


def table11(ctx: TableContext) -> pd.DataFrame:
    """Names vs terms per test, method and model; WEAT rows for static models."""
    selectors = [
        (
            {"method": method, "test": test, "column": f"{label(ctx, model)} {descriptor}"},
            _where(method, test, model, descriptor),
        )
        for test in TABLE11_TESTS
        for method in (WEAT, S_SEAT, W_SEAT, CEAT)
        for model in ctx.models
        for descriptor in ("names", "terms")
    ]
    return finish(our_cells(ctx, selectors) + _published(ctx, "table11"), ctx.alpha)


def table12(ctx: TableContext) -> pd.DataFrame:
    """Contextualization: templates vs natural contexts for every method."""
    natural = ctx.natural or "reddit"
    selectors = [
        (
            {"method": method, "test": test, "column": f"{label(ctx, model)} {name}"},
            _where(method, test, model, _primary_descriptor(ctx, test), source=source),
        )
        for test in TABLE3_TESTS
        for method in (S_SEAT, W_SEAT, CEAT)
        for model in _transformers(ctx)
        for name, source in (("template", "templates"), ("natural", natural))
    ]
    return finish(our_cells(ctx, selectors) + _published(ctx, "table12"), ctx.alpha)


def _is_decoder(ctx: TableContext, model: str) -> bool:
    """Decoders have no ``sent/cls`` (biasbench.encodings)."""
    rows = ctx.scores[(ctx.scores["model"] == model) & (ctx.scores["method"] == S_SEAT)]
    return not (rows["encoding"] == "sent/cls").any()


def table13(ctx: TableContext) -> pd.DataFrame:
    """Encoding level: sentence vs word mean / first / last subword, for SEAT (s-SEAT for the
    sentence, w-SEAT for words) and CEAT."""
    selectors = []
    for test in TABLE3_TESTS:
        descriptor = _primary_descriptor(ctx, test)
        for row, sent_method, word_method in (("SEAT", S_SEAT, W_SEAT), ("CEAT", CEAT, CEAT)):
            for model in _transformers(ctx):
                for level, encoding in ENCODING_LEVELS.items():
                    if encoding is None:  # the method's sentence encoding: [CLS] or last token
                        sent = "sent/last" if _is_decoder(ctx, model) else "sent/cls"
                        where = _where(sent_method, test, model, descriptor, encoding=sent)
                    else:
                        where = _where(word_method, test, model, descriptor, encoding=encoding)
                    where.pop("primary")
                    labels = {"method": row, "test": test, "column": f"{label(ctx, model)} {level}"}
                    selectors.append((labels, where))
    return finish(our_cells(ctx, selectors) + _published(ctx, "table13"), ctx.alpha)


def table5(ctx: TableContext) -> pd.DataFrame:
    """Pearson correlations between methods per model, over all (test, descriptor) scores
    and over those significant for both methods."""
    cells = []
    lpbs_models = _lpbs_models(ctx)
    for model in _transformers(ctx):
        per_method = {
            m: (
                primary_scores(ctx, m, model).set_index(["test", "descriptor"])[
                    ["effect_size", "p_value"]
                ],
                method_source(ctx, m, model),
            )
            for m in METHODS
        }
        for first, second in METHOD_PAIRS:
            (one, src1), (two, src2) = per_method[first], per_method[second]
            both = one.merge(two, left_index=True, right_index=True, suffixes=("_1", "_2"))
            both = both.dropna(subset=["effect_size_1", "effect_size_2"])
            sig = both[(both["p_value_1"] < ctx.alpha) & (both["p_value_2"] < ctx.alpha)]
            for name, frame in (("all", both), ("sig.", sig)):
                r = correlation(frame["effect_size_1"], frame["effect_size_2"])
                cells.append(
                    {
                        "method": f"{first} / {second}",
                        "test": "all tests",
                        "column": f"{label(ctx, model)} {name}",
                        "origin": "ours",
                        "model": model,
                        "source": f"{src1}/{src2}",
                        "planned": LPBS not in (first, second) or model in lpbs_models,
                        "effect_size": r,
                        "p_value": np.nan,
                        "note": f"{len(frame)} common scores (< {MIN_POINTS})"
                        if np.isnan(r)
                        else "",
                    }
                )
    return finish(cells + _published(ctx, "table5"), ctx.alpha)


def _lpbs_where(test: str, model: str, descriptor: str | None, variant: str) -> dict:
    return {
        "method": LPBS,
        "test": test,
        "model": model,
        "source": "templates",
        "descriptor": descriptor,
        "variant": variant,
    }


def _has_adjectives(ctx: TableContext, test: str) -> bool:
    return test in ctx.settings.adjectives


def table4(ctx: TableContext) -> pd.DataFrame:
    """LPBS with simplified, reduced (to the model's vocabulary) and full target sets.
    Attributes in adjective form where the test defines one, as the paper's simplified column
    (its C1 value is Table 6's adjective score)."""
    selectors = []
    for test in TABLE3_TESTS:
        form = "+adjective" if _has_adjectives(ctx, test) else ""
        descriptor = _primary_descriptor(ctx, test)
        for model in _lpbs_models(ctx):
            for variant, desc, which in (
                ("simplified", "simplified", f"full{form}"),
                ("reduced", descriptor, f"reduced{form}"),
                ("full", descriptor, f"full{form}"),
            ):
                labels = {"method": LPBS, "test": test, "column": f"{label(ctx, model)} {variant}"}
                selectors.append((labels, _lpbs_where(test, model, desc, which)))
    return finish(our_cells(ctx, selectors) + _published(ctx, "table4"), ctx.alpha)


def table6(ctx: TableContext) -> pd.DataFrame:
    """LPBS with the simplified sets, attributes as nouns vs adjectives."""
    selectors = [
        (
            {"method": LPBS, "test": test, "column": f"{label(ctx, model)} {form}"},
            _lpbs_where(test, model, "simplified", variant),
        )
        for test in TABLE3_TESTS
        if _has_adjectives(ctx, test)
        for model in _lpbs_models(ctx)
        for form, variant in (("noun", "full"), ("adjective", "full+adjective"))
    ]
    return finish(our_cells(ctx, selectors) + _published(ctx, "table6"), ctx.alpha)


def table14(ctx: TableContext) -> pd.DataFrame:
    """Cosine (CEAT on word/mean) vs probability (probability-based CEAT) with simplified,
    reduced and full target sets, both on the natural contexts (templates for CEAT when no
    corpus is configured): the contextual models, and the models that run p-CEAT only (a
    masked LM whose vectors the configuration does not score)."""
    models = _transformers(ctx)
    models += [m for m in ctx.models if planned_sources(ctx, m, P_CEAT) and m not in models]
    selectors = []
    for test in TABLE3_TESTS:
        descriptor = _primary_descriptor(ctx, test)
        for model in models:
            for method in (CEAT, P_CEAT):
                for name, desc, variant in (
                    ("simplified", "simplified", "full"),
                    ("reduced", descriptor, "reduced"),
                    ("full", descriptor, "full"),
                ):
                    labels = {
                        "method": method,
                        "test": test,
                        "column": f"{label(ctx, model)} {name}",
                    }
                    where = {"method": method, "test": test, "model": model, "source": None}
                    where |= {"descriptor": desc, "variant": variant}
                    if method == CEAT:
                        where["encoding"] = "word/mean"
                    selectors.append((labels, where))
    return finish(our_cells(ctx, selectors) + _published(ctx, "table14"), ctx.alpha)


def weat_static(ctx: TableContext) -> pd.DataFrame:
    """WEAT on the static embeddings, every test and descriptor they run."""
    static = [m for m in ctx.models if is_static(ctx, m)]
    jobs = [(m, t, d) for m, _s, t, d in ctx.settings.jobs if m in static and d != "simplified"]
    selectors = [
        (
            {"method": WEAT, "test": t, "column": f"{m} {d}"},
            {"method": WEAT, "test": t, "model": m, "descriptor": d, "source": "words"},
        )
        for t in dict.fromkeys(t for _m, t, _d in jobs)
        for m in static
        for d in ("names", "terms")
    ]
    return finish(our_cells(ctx, selectors), ctx.alpha)


# --- figures -----------------------------------------------------------------------------


def method_table(ctx: TableContext) -> pd.DataFrame:
    """Primary effect size per (model, test, descriptor) and method, each method on its
    paper-table source."""
    rows = pd.concat([primary_scores(ctx, m) for m in METHODS])
    return rows.pivot_table(
        index=["model", "test", "descriptor"], columns="method", values="effect_size"
    )


def figure1(inputs: Inputs, settings: ReportSettings) -> Figure:
    """Effect sizes by model and parameter choice (target description; context source),
    non-significant ones faint, and the distribution of significant scores per method.
    Primary encodings of every method; simplified sets left out."""
    plt = pyplot()
    alpha = settings.alpha
    scores = read_scores(inputs["scores"])
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
    return fig


def figure2(inputs: Inputs, settings: ReportSettings) -> Figure:
    """Share of each target set kept when reduced to single tokens of the model's vocabulary,
    per model, from the LPBS rows (the reduction is what LPBS' reduced sets use)."""
    plt = pyplot()
    if not inputs["lpbs"]:
        return no_data("the configuration runs no LPBS (lpbs.models, lpbs.tests)")
    scores = read_scores(inputs["lpbs"])
    rows = scores[(scores["method"] == LPBS) & (scores["variant"] == "reduced")]
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
    return fig


def figure3(inputs: Inputs, settings: ReportSettings) -> Figure:
    """Per-sample effect sizes of C1 with simplified, reduced and full target sets: CEAT on
    cosine similarities (top) and probability-based CEAT (bottom). Inputs are ``.samples.npz``
    files whose keys are ``method|descriptor|encoding|variant``."""
    plt = pyplot()
    panels: dict[str, dict[str, np.ndarray]] = {CEAT: {}, P_CEAT: {}}
    for path in inputs["samples"]:
        data = read_npz(path)
        for key in data:
            method, descriptor, encoding, variant = key.split("|")
            if method not in panels or (method == CEAT and encoding != "word/mean"):
                continue
            if descriptor not in ("names", "simplified"):
                continue
            name = "simplified" if descriptor == "simplified" else f"{variant} ({descriptor})"
            if descriptor != "simplified" or variant == "full":
                panels[method][name] = data[key]
    fig, axes = plt.subplots(2, 1, figsize=(8, 6.5))
    titles = {CEAT: "CEAT (cosine)", P_CEAT: "p-CEAT (LPBS probability)"}
    for ax, (method, curves) in zip(axes, panels.items(), strict=True):
        for name, values in sorted(curves.items()):
            ax.hist(values, bins=60, histtype="step", lw=1.5, label=name, density=True)
        if curves:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no samples: too few contexts", ha="center", transform=ax.transAxes)
        ax.set_title(titles[method], fontsize=10)
        ax.set_xlabel("per-sample effect size")
    fig.suptitle("C1 (flowers/insects): effect size distributions (cf. Figure 3)")
    return fig


def figure4(inputs: Inputs, settings: ReportSettings) -> Figure:
    """Probability-based CEAT by the largest word gap allowed between target and attribute,
    per test, model and corpus; hollow markers are not significant."""
    plt = pyplot()
    if not inputs["sweeps"]:
        return no_data("no LPBS corpus run of C1 or C9 (lpbs.corpora, lpbs.tests)")
    alpha = settings.alpha
    sweep = read_scores(inputs["sweeps"])
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
    return fig


def figure5(inputs: Inputs, settings: ReportSettings) -> Figure:
    """Pairwise scatter matrix of the methods' effect sizes, coloured by model."""
    plt = pyplot()
    scores = read_scores(inputs["scores"])
    table = method_table(TableContext(scores, pd.DataFrame(), settings))
    methods = [m for m in METHODS if m in table.columns]
    if not methods:  # a configuration of static vectors alone (tests/configs/cluster.yaml)
        return no_data("no method of the figure has a score on a model of the configuration")
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
            if i != j:
                ax.axhline(0, color="grey", lw=0.5)
                ax.set_ylim(-2, 2)
            ax.axvline(0, color="grey", lw=0.5)
            ax.set_xlim(-2, 2)
            if i == n - 1:
                ax.set_xlabel(x)
            if j == 0:
                ax.set_ylabel(y if i != j else f"{y} (count)")
    axes[0][n - 1].legend(fontsize=7, loc="upper right")
    fig.suptitle("Effect sizes of the methods against each other, per model (cf. Figure 5)")
    return fig


# --- inputs of the figures: only what each shows, so `snakemake <figure>` builds no more ---


def _figure2_inputs(plan) -> dict[str, list[str]]:
    return {
        "lpbs": [paths.LPBS.format(model=m, corpus="templates", test=t) for m, t in plan.lpbs_jobs]
    }


def _figure3_inputs(plan) -> dict[str, list[str]]:
    """C1 on the first model that runs p-CEAT: its CEAT samples on the natural corpus (on
    templates if it has none there) and its p-CEAT samples on every LPBS corpus (``samples``:
    each file's keys name their method)."""
    model = plan.lpbs_corpus_models[:1]
    lpbs_tests = {t for _m, t in plan.lpbs_jobs}
    ceat = [job.source for job in plan.jobs if job.model in model and job.test == "C1"]
    sources = [plan.natural] if plan.natural in ceat else list(dict.fromkeys(ceat))
    ceat = [paths.SAMPLES.format(model=m, source=s, test="C1") for m in model for s in sources]
    pceat = [
        paths.LPBS_SAMPLES.format(model=m, corpus=c, test="C1")
        for m in model
        for c in plan.lpbs_corpora
        if "C1" in lpbs_tests
    ]
    return {"samples": ceat + pceat}


def _figure4_inputs(plan) -> dict[str, list[str]]:
    lpbs_tests = {t for _m, t in plan.lpbs_jobs}
    sweeps = [
        paths.LPBS_SWEEP.format(model=m, corpus=c, test=t)
        for m in plan.lpbs_corpus_models
        for c in plan.lpbs_corpora
        for t in ("C1", "C9")
        if t in lpbs_tests
    ]
    return {"sweeps": sweeps}


_CELLS = (
    "Effect sizes; **bold**: p < alpha (uncorrected, as in the paper); †: also significant after "
    "Holm-Bonferroni over all of our cells in this table. Columns marked (paper), orig. or paper "
    f"are published values of {PAPER} for their models (significance not transcribed)."
)
_CORRELATIONS = (
    f"Pearson r between the methods' effect sizes (n/a below {MIN_POINTS} common scores); "
    f"columns marked (paper) are published values of {PAPER}."
)

TABLES = tuple(
    Table(name, title, build, PUBLISHED, note, PAPER_MODELS, PAPER)
    for name, title, build, note in (
        (
            "table3_seat",
            "Table 3: s-SEAT, w-SEAT and CEAT effect sizes per test and model",
            table3,
            _CELLS,
        ),
        (
            "table5_correlations",
            "Table 5: Pearson correlation between methods, all scores and significant ones only",
            table5,
            _CORRELATIONS,
        ),
        (
            "table11_names_terms",
            "Table 11: target description, names vs group terms",
            table11,
            _CELLS,
        ),
        (
            "table12_contexts",
            "Table 12: contextualization, template sentences vs natural contexts",
            table12,
            _CELLS,
        ),
        (
            "table13_encoding",
            "Table 13: encoding level, sentence vs word (mean, first, last subword)",
            table13,
            _CELLS,
        ),
        (
            "table4_lpbs",
            "Table 4: LPBS with simplified, reduced and full target sets",
            table4,
            _CELLS,
        ),
        (
            "table6_adjectives",
            "Table 6: LPBS with attributes as nouns or adjectives",
            table6,
            _CELLS,
        ),
        (
            "table14_probability",
            "Table 14: cosine (CEAT) vs probability (LPBS scores combined as in CEAT)",
            table14,
            _CELLS,
        ),
        ("weat_static", "WEAT on static word embeddings", weat_static, _CELLS),
    )
)

_SIGNIFICANCE = "Faint or hollow markers: not significant (p >= alpha, uncorrected, as the paper)."
FIGURES = (
    FigureTarget(
        "figure1_scores",
        "Figure 1: effect sizes by model and parameter choice",
        figure1,
        paper=PAPER,
        reading="Each point is one score (primary encoding); left, by target description (names "
        "vs group terms), bottom, by context (templates vs natural); right, histograms of the "
        f"significant scores. {_SIGNIFICANCE}",
    ),
    FigureTarget(
        "figure2_vocabulary",
        "Figure 2: target words kept by vocabulary reduction",
        figure2,
        _figure2_inputs,
        paper=PAPER,
        reading="Bars: the share of a test's target words the model's tokenizer keeps as one "
        "token (the reduced sets of LPBS and CEAT); the number kept stands above each bar.",
    ),
    FigureTarget(
        "figure3_distributions",
        "Figure 3: C1 per-sample effect sizes, CEAT and p-CEAT",
        figure3,
        _figure3_inputs,
        paper=PAPER,
        reading="Histograms of the per-sample effect sizes that CEAT's random-effects model "
        "combines, with simplified, reduced and full target sets.",
    ),
    FigureTarget(
        "figure4_window",
        "Figure 4: p-CEAT by window size",
        figure4,
        _figure4_inputs,
        paper=PAPER,
        reading=f"Combined effect size by the largest word gap between target and attribute. "
        f"{_SIGNIFICANCE}",
    ),
    FigureTarget(
        "figure5_scatter",
        "Figure 5: the methods' effect sizes against each other",
        figure5,
        paper=PAPER,
        reading="Each point: one (model, test, descriptor) scored by two methods in their "
        "paper-table settings; diagonal: histograms per model.",
    ),
)
