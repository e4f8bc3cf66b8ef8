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

from biasbench.methods.contract import ContextLogProbs, ContextVectors, TemplateLogProbs
from biasbench.methods.registry import get
from biasbench.stats import holm_bonferroni

Cell = tuple[str, str, str, str]  # (model, source, test, descriptor) of a planned job


@dataclass(frozen=True)
class ReportSettings:
    """What every table and figure is drawn with, all of it from the configuration and its
    plan (:func:`report_settings`): what a model is and what it runs is never inferred from
    which score rows happen to exist."""

    models: Mapping[str, str | None] = field(default_factory=dict)  # model -> paper model
    alpha: float = 0.01
    natural: str | None = None  # the corpus shown as "natural contexts" (natural_source)
    kinds: Mapping[str, str] = field(default_factory=dict)  # model -> static|transformer|elmo
    #: random-weight copies (``random:`` sources, the null-model calibration's copies)
    null_models: tuple[str, ...] = ()
    #: each null model -> the model whose architecture and tokenizer it has
    null_bases: Mapping[str, str] = field(default_factory=dict)
    #: each reassigned draw of the trained-weight null -> the trained model it reads
    trained_bases: Mapping[str, str] = field(default_factory=dict)
    jobs: tuple[Cell, ...] = ()  # embedding jobs: every method on context vectors
    lpbs_jobs: tuple[Cell, ...] = ()  # LPBS (templates) and p-CEAT (corpora)
    adjectives: tuple[str, ...] = ()  # tests whose LPBS attributes have adjective forms
    paired: tuple[str, ...] = ()  # tests whose attributes are definitional pairs


def report_settings(config: Mapping, plan) -> dict:
    """The keyword arguments of :class:`ReportSettings` for a validated config and its plan
    (plain values: they travel as a rule's params)."""
    lpbs_tests = {t: plan.lpbs_descriptors(t) for t in dict.fromkeys(t for _m, t in plan.lpbs_jobs)}
    lpbs_sources = {
        m: ["templates", *(plan.lpbs_corpora if m in plan.lpbs_corpus_models else [])]
        for m, _t in plan.lpbs_jobs
    }
    return {
        "models": {name: m.get("paper_model") for name, m in config["models"].items()},
        "alpha": config["alpha"],
        "natural": config["natural_source"],
        "kinds": {name: spec.kind for name, spec in plan.specs.items()},
        # the random: models and the null-model calibration's seeded copies
        "null_models": tuple(n for n, spec in plan.specs.items() if spec.scheme == "random")
        + tuple(plan.null_copies()),
        "null_bases": plan.null_bases(),
        "trained_bases": plan.trained_bases(),
        "jobs": tuple((j.model, j.source, j.test, j.descriptor) for j in plan.jobs),
        "lpbs_jobs": tuple(
            (m, s, t, d) for m, t in plan.lpbs_jobs for s in lpbs_sources[m] for d in lpbs_tests[t]
        ),
        "adjectives": tuple(t for t in lpbs_tests if plan.lpbs_has_adjectives(t)),
        "paired": tuple(plan.paired_tests()),
    }


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


CELL_COLUMNS = [
    "method",
    "test",
    "column",
    "origin",
    "model",
    "source",
    "effect_size",
    "p_value",
    "note",
    "planned",
]
#: the note of a planned cell without a score row: a defect of the workflow, never a finding
MISSING = "missing: the configuration plans this cell but no score row feeds it"


def finish(cells: list[dict], alpha: float) -> pd.DataFrame:
    """Holm-Bonferroni over our cells, significance flags, stable column order."""
    long = pd.DataFrame(cells, columns=CELL_COLUMNS)
    long["note"] = long["note"].astype(object).fillna("")
    long["planned"] = long["planned"].astype(object).fillna(False).astype(bool)
    ours = long["origin"] == "ours"
    long["p_holm"] = np.nan
    long.loc[ours, "p_holm"] = holm_bonferroni(long.loc[ours, "p_value"].to_numpy())
    long["significant"] = ours & (long["p_value"] < alpha)
    long["significant_holm"] = ours & (long["p_holm"] < alpha)
    return long.reset_index(drop=True)


def is_static(ctx: TableContext, model: str) -> bool:
    return ctx.settings.kinds.get(model) == "static"


def _reads_corpus_logprobs(method: str) -> bool:
    return get(method).consumes is ContextLogProbs


def planned_sources(ctx: TableContext, model: str, method: str | None = None) -> list[str]:
    """The sources the configuration runs a model on, in plan order: its embedding jobs, or
    for probability-based CEAT the corpora of its LPBS jobs."""
    if method is not None and _reads_corpus_logprobs(method):
        jobs = [j for j in ctx.settings.lpbs_jobs if j[1] != "templates"]
    else:
        jobs = ctx.settings.jobs
    return list(dict.fromkeys(s for m, s, _t, _d in jobs if m == model))


def method_source(ctx: TableContext, method: str, model: str | None = None) -> str:
    """Where the paper tables show a method: static vectors on words; otherwise the method's
    declared context. A natural-context method is shown on the natural corpus when the
    configuration runs the model there, else on templates (the cell's source says so);
    probability-based CEAT runs on corpora only."""
    if model is not None and is_static(ctx, model):
        return "words"
    context = get(method).context
    if context != "natural":
        return context
    natural = ctx.natural or "templates"
    if _reads_corpus_logprobs(method) or model is None:
        return natural
    return natural if natural in planned_sources(ctx, model, method) else "templates"


def is_planned(ctx: TableContext, where: Mapping) -> bool:
    """Whether the configuration asks for the score row a cell filter selects: the model's
    kind runs the method, and the plan has its (model, source, test, descriptor) job."""
    method, model = get(where["method"]), where.get("model")
    if ctx.settings.kinds.get(model) not in method.model_kinds:
        return False
    cell = (model, where["source"], where["test"], where.get("descriptor"))
    if method.consumes is ContextVectors:
        return cell in ctx.settings.jobs
    if method.consumes is TemplateLogProbs:
        return cell[1] == "templates" and cell in ctx.settings.lpbs_jobs
    if method.consumes is ContextLogProbs:
        return cell[1] != "templates" and cell in ctx.settings.lpbs_jobs
    return False


def our_cells(ctx: TableContext, selectors: list[tuple[dict, dict]]) -> list[dict]:
    """One record per (labels, score filter): the row the filter matches (exactly one); for a
    planned cell without a row, an "n/a" cell noted :data:`MISSING` (the completeness guard
    counts it); an unplanned cell without a row is left out. A ``source`` of None means the
    method's source in the paper tables (:func:`method_source`)."""
    out = []
    for labels, where in selectors:
        if where.get("source", "") is None:
            where = {**where, "source": method_source(ctx, where["method"], where.get("model"))}
        sel = ctx.scores
        for key, value in where.items():
            sel = sel[sel[key] == value]
        if len(sel) > 1:
            raise ValueError(f"ambiguous score selection {where}: {len(sel)} rows")
        planned = is_planned(ctx, where)
        cell = {**labels, "origin": "ours", "model": where.get("model"), "source": where["source"]}
        cell["planned"] = planned
        if len(sel) == 1:
            row = sel.iloc[0]
            cell |= {"effect_size": row["effect_size"], "p_value": row["p_value"]}
            out.append(cell | {"note": row.get("note", "")})
        elif planned:
            out.append(cell | {"effect_size": np.nan, "p_value": np.nan, "note": MISSING})
    return out


@dataclass(frozen=True)
class Coverage:
    """How many of a table's planned cells are filled, n/a with a reason, or missing."""

    planned: int
    filled: int
    explained: int  # n/a, with the score row's reason
    missing: int  # no score row, or n/a without a reason: a defect

    @classmethod
    def of(cls, long: pd.DataFrame) -> Coverage:
        cells = long[long["origin"].eq("ours") & long["planned"].astype(bool)]
        filled = cells["effect_size"].notna()
        note = cells["note"].fillna("").astype(str)
        explained = ~filled & (note != "") & (note != MISSING)
        return cls(
            len(cells), int(filled.sum()), int(explained.sum()), int((~filled & ~explained).sum())
        )

    def line(self) -> str:
        return (
            f"{self.planned} planned cells: {self.filled} filled, {self.explained} n/a with "
            f"the reason in a footnote, {self.missing} missing"
        )


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
    coverage = Coverage.of(long).line()
    text = (
        f"# {title}\n\n{note} Context sources of our cells: {table.sources}. "
        f"Coverage: {coverage}.\n\n{body}\n"
    )
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
        f"{escape(table.sources)}.</p><p class='coverage'>Coverage: "
        f"{escape(Coverage.of(long).line())}.</p>{body}"
        + (f"<ol style='list-style:none'>{notes}</ol>" if notes else "")
        + "\n"
    )


def plain_table(frame: pd.DataFrame, title: str, note: str) -> tuple[str, str, str]:
    """(CSV, Markdown, HTML) of a table that is not a grid of effect sizes (a study's summary,
    a property matrix): ``frame`` as it should print, ``note`` under the title."""
    from html import escape

    # a table without columns (a study the configuration does not run) is still a CSV that
    # pandas reads, its one cell saying why: the run's completeness guard reads it back
    shown = frame if len(frame.columns) else pd.DataFrame({"note": [note]})
    csv = shown.to_csv(index=False, float_format="%.6g", lineterminator="\n")
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


def left_out(frame: pd.DataFrame | None) -> bool:
    """Whether ``frame`` is what :func:`plain_table` writes for a study the configuration does
    not run (one ``note`` column): a reader that quotes its rows has none to quote, and must
    say so rather than look for its columns."""
    return frame is not None and list(frame.columns) == ["note"]


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


def coverage_lines(paths: list[str]) -> list[str]:
    """One line per table CSV whose planned cells are not all filled, or whose bytes do not
    match their checksum (the end of a run prints them: an empty planned cell or an edited
    table must never pass unseen)."""
    from pathlib import Path

    from biasbench.errors import InputError
    from biasbench.io import read_table_csv

    lines = []
    for path in paths:
        try:
            long = read_table_csv(path, dtype={"note": str}, keep_default_na=False, na_values=[""])
        except InputError as error:
            lines.append(f"{Path(path).stem}: {error}")
            continue
        coverage = Coverage.of(long) if {"origin", "planned"} <= set(long) else None
        if coverage and coverage.filled < coverage.planned:
            lines.append(f"{Path(path).stem}: {coverage.line()}")
    return lines
