"""Paper tables from the tidy score table, with the published numbers beside ours.

A table is a long frame, one row per cell (ours and published), for the CSV, and a Markdown
rendering of it as the paper prints it. Significance: **bold** when p < alpha (no
correction, the convention of the papers), and a dagger when the cell stays significant after
Holm-Bonferroni over all of our cells in that table. A cell whose score could not be
computed shows "n/a" with a numbered footnote that says why (the row's ``note``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from biasbench.methods.registry import get
from biasbench.stats import holm_bonferroni


@dataclass(frozen=True)
class ReportSettings:
    """What every table and figure is drawn with (from the config)."""

    models: Mapping[str, str | None] = field(default_factory=dict)  # model -> paper model
    alpha: float = 0.01
    natural: str | None = None  # the corpus shown as "natural contexts" (natural_source)


@dataclass(frozen=True)
class TableContext:
    scores: pd.DataFrame
    published: pd.DataFrame
    settings: ReportSettings
    paper_models: tuple[str, ...] = ()  # the paper's models, in its order

    @property
    def models(self) -> Mapping[str, str | None]:
        return self.settings.models

    @property
    def alpha(self) -> float:
        return self.settings.alpha

    @property
    def natural(self) -> str | None:
        return self.settings.natural


def load_published(path: str) -> pd.DataFrame:
    return pd.read_csv(path, comment="#", dtype={"value": float})


CELL_COLUMNS = ["method", "test", "column", "origin", "source", "effect_size", "p_value", "note"]


def finish(cells: list[dict], alpha: float) -> pd.DataFrame:
    """Holm-Bonferroni over our cells, significance flags, stable column order."""
    long = pd.DataFrame(cells, columns=CELL_COLUMNS)
    long["note"] = long["note"].astype(object).fillna("")
    ours = long["origin"] == "ours"
    long["p_holm"] = np.nan
    long.loc[ours, "p_holm"] = holm_bonferroni(long.loc[ours, "p_value"].to_numpy())
    long["significant"] = ours & (long["p_value"] < alpha)
    long["significant_holm"] = ours & (long["p_holm"] < alpha)
    return long.reset_index(drop=True)


def method_source(ctx: TableContext, method: str, model: str | None = None) -> str:
    """Where the paper tables show a method: static vectors on words; otherwise the method's
    declared context (templates, or the natural corpus when one is configured)."""
    if model is not None and _is_static(ctx, model):
        return "words"
    context = get(method).context
    if context == "natural":
        return ctx.natural or "templates"
    return context


def _is_static(ctx: TableContext, model: str) -> bool:
    return bool(((ctx.scores["model"] == model) & (ctx.scores["source"] == "words")).any())


def our_cells(
    ctx: TableContext, selectors: list[tuple[dict, dict]], explain_missing: bool = False
) -> list[dict]:
    """One record per (labels, score filter) whose filter matches exactly one score row; a
    ``source`` of None means the method's source in the paper tables (:func:`method_source`).
    With ``explain_missing``, a filter that matches nothing gives an "n/a" cell whose note says
    the configuration does not run it."""
    out = []
    for labels, where in selectors:
        if where.get("source", "") is None:
            where = {**where, "source": method_source(ctx, where["method"], where.get("model"))}
        sel = ctx.scores
        for key, value in where.items():
            sel = sel[sel[key] == value]
        if len(sel) > 1:
            raise ValueError(f"ambiguous score selection {where}: {len(sel)} rows")
        if len(sel) == 0 and explain_missing:
            note = (
                f"not run: this configuration has no {where['method']} scores of "
                f"{where.get('model')} on {where['source']} (add the source to its tests)"
            )
            out.append(
                {
                    **labels,
                    "origin": "ours",
                    "source": where["source"],
                    "effect_size": np.nan,
                    "p_value": np.nan,
                    "note": note,
                }
            )
        if len(sel) == 1:
            row = sel.iloc[0]
            out.append(
                {
                    **labels,
                    "origin": "ours",
                    "source": row["source"],
                    "effect_size": row["effect_size"],
                    "p_value": row["p_value"],
                    "note": row.get("note", ""),
                }
            )
    return out


def published_cells(
    ctx: TableContext, table: str, column_of: Callable[[pd.Series], str]
) -> list[dict]:
    """The paper's values, ordered model by model so columns group."""
    pub = ctx.published[ctx.published["table"] == table]
    order = {m: i for i, m in enumerate(ctx.paper_models)}
    pub = pub.assign(order=pub["paper_model"].map(order)).sort_values(
        ["order", "variant"], kind="stable"
    )
    return [
        {
            "method": r.method,
            "test": r.test,
            "column": column_of(r),
            "origin": f"paper:{r.paper_model}",
            "effect_size": r.value,
            "p_value": np.nan,
        }
        for r in pub.itertuples(index=False)
    ]


def label(ctx: TableContext, model: str) -> str:
    paper = ctx.models.get(model)
    return f"{model} (as {paper})" if paper else model


def models_with(ctx: TableContext, keep: Callable[[pd.DataFrame], pd.Series]) -> list[str]:
    """Configured models (config order) that have score rows passing ``keep``."""
    present = set(ctx.scores.loc[keep(ctx.scores), "model"])
    return [m for m in ctx.models if m in present]


def primary_scores(ctx: TableContext, method: str, model: str | None = None) -> pd.DataFrame:
    """A method's rows in its default encoding and variant on its paper-table source."""
    s = ctx.scores
    if model is not None:
        s = s[s["model"] == model]
    source = method_source(ctx, method, model)
    return s[(s["method"] == method) & s["primary"].astype(bool) & (s["source"] == source)]


MIN_POINTS = 3  # fewer points give no meaningful correlation: "n/a", as in Husse & Spitz


def correlation(x: pd.Series, y: pd.Series) -> float:
    """Pearson r, or NaN below MIN_POINTS points or without variance."""
    ok = x.notna() & y.notna()
    if ok.sum() < MIN_POINTS or x[ok].std() == 0 or y[ok].std() == 0:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1])


def _fmt(row: pd.Series, footnotes: dict[str, int], bold: tuple[str, str]) -> str:
    if pd.isna(row["effect_size"]):
        note = row.get("note", "")
        return f"n/a[{footnotes[note]}]" if note else "n/a"
    text = f"{row['effect_size']:.2f}"
    if row["significant"]:
        text = f"{bold[0]}{text}{bold[1]}"
    if row["significant_holm"]:
        text += "†"
    return text


@dataclass(frozen=True)
class Printed:
    """A table as the paper prints it: one line per (method, test), one column per model or
    variant, the cells formatted; the footnotes say why cells are n/a."""

    wide: pd.DataFrame
    footnotes: dict[str, int]
    sources: str  # the context sources of our cells, per method


def printed(long: pd.DataFrame, bold: tuple[str, str] = ("**", "**")) -> Printed | None:
    """The wide layout of a long table (None when it holds none of our cells)."""
    if not (long["origin"] == "ours").any():
        return None
    missing = long["effect_size"].isna() & (long["note"].fillna("") != "")
    footnotes = {n: i + 1 for i, n in enumerate(dict.fromkeys(long.loc[missing, "note"]))}
    long = long.assign(cell=long.apply(_fmt, axis=1, footnotes=footnotes, bold=bold))
    columns = list(dict.fromkeys(long.loc[long["origin"] == "ours", "column"]))
    columns += [c for c in dict.fromkeys(long["column"]) if c not in columns]
    rows = list(dict.fromkeys(zip(long["method"], long["test"], strict=True)))
    wide = long.pivot_table(
        index=["method", "test"], columns="column", values="cell", aggfunc="first"
    )
    wide = wide.reindex(index=pd.MultiIndex.from_tuples(rows), columns=columns).fillna("")
    wide.index.names = ["method", "test"]
    wide.columns.name = None
    ours = long[long["origin"] == "ours"]
    sources = "; ".join(
        f"{m}: {', '.join(sorted(set(g['source'])))}" for m, g in ours.groupby("method", sort=False)
    )
    return Printed(wide.reset_index(), footnotes, sources)


def to_markdown(long: pd.DataFrame, title: str, note: str) -> str:
    """Wide Markdown; ``note`` explains the cells, footnotes say why cells are n/a."""
    table = printed(long)
    if table is None:
        return f"# {title}\n\nNo scores for this table in the current configuration.\n"
    body = table.wide.to_markdown(index=False)
    text = f"# {title}\n\n{note} Context sources of our cells: {table.sources}.\n\n{body}\n"
    if table.footnotes:
        text += "\n" + "\n".join(f"[{i}] {n}" for n, i in table.footnotes.items()) + "\n"
    return text


def to_html(long: pd.DataFrame, title: str, note: str) -> str:
    """The same as a self-contained HTML page (for the report: readable in the browser)."""
    from html import escape

    table = printed(long, bold=("<b>", "</b>"))
    head = f"<!doctype html><meta charset='utf-8'><title>{escape(title)}</title>"
    style = (
        "<style>body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse}"
        " td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style>"
    )
    if table is None:
        return f"{head}{style}<h2>{escape(title)}</h2><p>No scores in this configuration.</p>\n"
    cells = table.wide.map(lambda c: c if c.startswith("<b>") or "†" in c else escape(str(c)))
    body = cells.to_html(index=False, escape=False, border=0)
    notes = "".join(f"<li>[{i}] {escape(n)}</li>" for n, i in table.footnotes.items())
    return (
        f"{head}{style}<h2>{escape(title)}</h2><p>{escape(note)} Context sources of our cells: "
        f"{escape(table.sources)}.</p>{body}"
        + (f"<ol style='list-style:none'>{notes}</ol>" if notes else "")
        + "\n"
    )


def plain_table(frame: pd.DataFrame, title: str, note: str) -> tuple[str, str, str]:
    """(CSV, Markdown, HTML) of a table that is not a grid of effect sizes (a study's summary,
    a property matrix): ``frame`` as it should print, ``note`` under the title."""
    from html import escape

    csv = frame.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    md = f"# {title}\n\n{note}\n\n{frame.to_markdown(index=False, floatfmt='.4g')}\n"
    html = (
        f"<!doctype html><meta charset='utf-8'><title>{escape(title)}</title>"
        "<style>body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse}"
        " td,th{border:1px solid #ccc;padding:2px 6px}</style>"
        f"<h2>{escape(title)}</h2><p>{escape(note)}</p>"
        + frame.to_html(index=False, border=0, float_format=lambda v: f"{v:.4g}")
        + "\n"
    )
    return csv, md, html


def study_table(title: str, load, not_run: str):
    """A table renderer for a study's outputs: ``load(inputs)`` reads them (None when the
    configuration does not run the study, and then the table says ``not_run``), and the
    decorated ``make(*loaded, settings)`` returns (frame, note)."""

    def wrap(make):
        def render(inputs, settings):
            loaded = load(inputs)
            if loaded is None:
                return plain_table(pd.DataFrame(), title, not_run)
            frame, note = make(*loaded, settings)
            return plain_table(frame, title, note)

        return render

    return wrap
