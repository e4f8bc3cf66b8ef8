"""Paper tables from the tidy score table, with the published numbers beside ours.

Each builder returns a long frame (one row per cell, ours and published) for the CSV and
a Markdown rendering. Significance: **bold** when p < alpha (the paper's convention, no
correction), and a dagger when the cell stays significant after Holm-Bonferroni over all of
our cells in that table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from biasbench.stats import holm_bonferroni

PAPER_MODELS = ("ELMo", "BERT", "GPT-2", "OPT", "BLOOM")
TABLE3_TESTS = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2")
TABLE11_TESTS = ("C3", "C6", "C9", "Occ", "I1", "I2")
ENCODING_LEVELS = {"sent": None, "avg": "word/mean", "start": "word/first", "end": "word/last"}


@dataclass(frozen=True)
class TableContext:
    scores: pd.DataFrame
    published: pd.DataFrame
    models: dict[str, str | None]  # configured model -> paper model it stands for (or None)
    alpha: float = 0.01


def load_published(path: str) -> pd.DataFrame:
    return pd.read_csv(path, comment="#", dtype={"value": float})


def _primary_descriptor(scores: pd.DataFrame, test: str) -> str | None:
    present = set(scores.loc[scores["test"] == test, "descriptor"])
    return "names" if "names" in present else ("terms" if "terms" in present else None)


CELL_COLUMNS = ["method", "test", "column", "origin", "source", "effect_size", "p_value"]


def _finish(cells: list[dict], alpha: float) -> pd.DataFrame:
    """Holm-Bonferroni over our cells, significance flags, stable column order."""
    long = pd.DataFrame(cells, columns=CELL_COLUMNS)
    ours = long["origin"] == "ours"
    long["p_holm"] = np.nan
    long.loc[ours, "p_holm"] = holm_bonferroni(long.loc[ours, "p_value"].to_numpy())
    long["significant"] = ours & (long["p_value"] < alpha)
    long["significant_holm"] = ours & (long["p_holm"] < alpha)
    return long.reset_index(drop=True)


def _our_cells(ctx: TableContext, selectors: list[tuple[dict, dict]]) -> list[dict]:
    """One record per (labels, score filter) whose filter matches exactly one score row."""
    out = []
    for labels, where in selectors:
        if where.get("source", "") is None:
            where = {**where, "source": method_source(ctx.scores, where["method"])}
        sel = ctx.scores
        for key, value in where.items():
            sel = sel[sel[key] == value]
        if len(sel) > 1:
            raise ValueError(f"ambiguous score selection {where}: {len(sel)} rows")
        if len(sel) == 1:
            row = sel.iloc[0]
            out.append(
                {
                    **labels,
                    "origin": "ours",
                    "source": row["source"],
                    "effect_size": row["effect_size"],
                    "p_value": row["p_value"],
                }
            )
    return out


def _published_cells(
    ctx: TableContext, table: str, column_of: Callable[[pd.Series], str]
) -> list[dict]:
    """The paper's values, ordered model by model (ELMo, BERT, ...) so columns group."""
    pub = ctx.published[ctx.published["table"] == table]
    pub = pub.assign(order=pub["paper_model"].map(PAPER_MODELS.index)).sort_values(
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


def _transformers(ctx: TableContext) -> list[str]:
    return [
        m for m in ctx.models if m in set(ctx.scores.loc[ctx.scores["method"] != "WEAT", "model"])
    ]


def _label(ctx: TableContext, model: str) -> str:
    paper = ctx.models.get(model)
    return f"{model} (as {paper})" if paper else model


#: context source of each method in the paper's replication tables (Table 2's defaults);
#: CEAT falls back to templates when no Reddit corpus is configured
SOURCE_OF_METHOD = {
    "WEAT": "words",
    "s-SEAT": "templates",
    "w-SEAT": "templates",
    "CEAT": "reddit",
    "LPBS": "templates",
}


def method_source(scores: pd.DataFrame, method: str) -> str:
    """The method's default source if ``scores`` hold any row of it there, else templates."""
    default = SOURCE_OF_METHOD[method]
    on_default = (scores["method"] == method) & (scores["source"] == default)
    return default if on_default.any() else "templates"


def primary_scores(scores: pd.DataFrame, method: str) -> tuple[pd.DataFrame, str]:
    """A method's rows in its paper-default encoding on its default source, and that source."""
    source = method_source(scores, method)
    rows = scores[
        (scores["method"] == method) & scores["primary"].astype(bool) & (scores["source"] == source)
    ]
    return rows, source


def _where(method: str, test: str, model: str, descriptor: str | None, **extra) -> dict:
    """Score filter of one cell: the method's default source and encoding unless overridden."""
    where = {
        "method": method,
        "test": test,
        "model": model,
        "descriptor": descriptor,
        "source": None,  # the method's default source, resolved against the scores
        "primary": True,
    }
    where.update(extra)
    return where


def table3(ctx: TableContext) -> pd.DataFrame:
    """s-SEAT, w-SEAT (templates) and CEAT (Reddit) per test and model (paper Table 3)."""
    selectors = [
        (
            {"method": method, "test": test, "column": _label(ctx, model)},
            _where(method, test, model, _primary_descriptor(ctx.scores, test)),
        )
        for method in ("s-SEAT", "w-SEAT", "CEAT")
        for test in TABLE3_TESTS
        for model in _transformers(ctx)
    ]
    cells = _our_cells(ctx, selectors) + _published_cells(
        ctx, "table3", lambda r: f"{r.paper_model} {'orig.' if r.variant == 'orig' else 'paper'}"
    )
    return _finish(cells, ctx.alpha)


def table11(ctx: TableContext) -> pd.DataFrame:
    """Names vs terms per test, method and model (paper Table 11); WEAT rows for static models."""
    selectors = [
        (
            {"method": method, "test": test, "column": f"{_label(ctx, model)} {descriptor}"},
            _where(method, test, model, descriptor),
        )
        for test in TABLE11_TESTS
        for method in ("WEAT", "s-SEAT", "w-SEAT", "CEAT")
        for model in ctx.models
        for descriptor in ("names", "terms")
    ]
    cells = _our_cells(ctx, selectors) + _published_cells(
        ctx, "table11", lambda r: f"{r.paper_model} {r.variant} (paper)"
    )
    return _finish(cells, ctx.alpha)


def table12(ctx: TableContext) -> pd.DataFrame:
    """Contextualization: templates vs Reddit for every method (paper Table 12)."""
    selectors = [
        (
            {"method": method, "test": test, "column": f"{_label(ctx, model)} {label}"},
            _where(method, test, model, _primary_descriptor(ctx.scores, test), source=source),
        )
        for test in TABLE3_TESTS
        for method in ("s-SEAT", "w-SEAT", "CEAT")
        for model in _transformers(ctx)
        for label, source in (("template", "templates"), ("reddit", "reddit"))
    ]
    cells = _our_cells(ctx, selectors) + _published_cells(
        ctx, "table12", lambda r: f"{r.paper_model} {r.variant} (paper)"
    )
    return _finish(cells, ctx.alpha)


def table13(ctx: TableContext) -> pd.DataFrame:
    """Encoding level: sentence vs word mean / first / last subword (paper Table 13), for
    SEAT (s-SEAT for the sentence, w-SEAT for words) and CEAT."""
    selectors = []
    for test in TABLE3_TESTS:
        descriptor = _primary_descriptor(ctx.scores, test)
        for row, sent_method, word_method in (
            ("SEAT", "s-SEAT", "w-SEAT"),
            ("CEAT", "CEAT", "CEAT"),
        ):
            for model in _transformers(ctx):
                for level, encoding in ENCODING_LEVELS.items():
                    if encoding is None:  # the method's sentence encoding: [CLS] or last token
                        sent = "sent/last" if _is_decoder(ctx, model) else "sent/cls"
                        where = _where(sent_method, test, model, descriptor, encoding=sent)
                    else:
                        where = _where(word_method, test, model, descriptor, encoding=encoding)
                    where.pop("primary")
                    label = {"method": row, "test": test, "column": f"{_label(ctx, model)} {level}"}
                    selectors.append((label, where))
    cells = _our_cells(ctx, selectors) + _published_cells(
        ctx, "table13", lambda r: f"{r.paper_model} {r.variant} (paper)"
    )
    return _finish(cells, ctx.alpha)


METHOD_PAIRS = (
    ("s-SEAT", "w-SEAT"),
    ("s-SEAT", "CEAT"),
    ("w-SEAT", "CEAT"),
    ("s-SEAT", "LPBS"),
    ("w-SEAT", "LPBS"),
    ("CEAT", "LPBS"),
)
MIN_POINTS = 3  # fewer points give no meaningful correlation: "n/a", as in the paper


def table5(ctx: TableContext) -> pd.DataFrame:
    """Pearson correlations between methods per model, over all (test, descriptor) scores
    and over those significant for both methods (paper Table 5)."""
    cells = []
    for model in _transformers(ctx):
        per_method = {}
        for method in ("s-SEAT", "w-SEAT", "CEAT", "LPBS"):
            rows, source = primary_scores(ctx.scores[ctx.scores["model"] == model], method)
            per_method[method] = (
                rows.set_index(["test", "descriptor"])[["effect_size", "p_value"]],
                source,
            )
        for first, second in METHOD_PAIRS:
            (one, src1), (two, src2) = per_method[first], per_method[second]
            both = one.merge(two, left_index=True, right_index=True, suffixes=("_1", "_2"))
            sig = both[(both["p_value_1"] < ctx.alpha) & (both["p_value_2"] < ctx.alpha)]
            for label, frame in (("all", both), ("sig.", sig)):
                r = (
                    np.corrcoef(frame["effect_size_1"], frame["effect_size_2"])[0, 1]
                    if len(frame) >= MIN_POINTS
                    else np.nan
                )
                cells.append(
                    {
                        "method": f"{first} / {second}",
                        "test": "all tests",
                        "column": f"{_label(ctx, model)} {label}",
                        "origin": "ours",
                        "source": f"{src1}/{src2}",
                        "effect_size": float(r),
                        "p_value": np.nan,
                    }
                )
    cells += _published_cells(ctx, "table5", lambda r: f"{r.paper_model} {r.variant} (paper)")
    return _finish(cells, ctx.alpha)


def _lpbs_models(ctx: TableContext) -> list[str]:
    return [
        m for m in ctx.models if m in set(ctx.scores.loc[ctx.scores["method"] == "LPBS", "model"])
    ]


def _lpbs_where(test: str, model: str, descriptor: str | None, encoding: str) -> dict:
    return {
        "method": "LPBS",
        "test": test,
        "model": model,
        "source": "templates",
        "descriptor": descriptor,
        "encoding": encoding,
    }


def _has_adjectives(ctx: TableContext, test: str) -> bool:
    rows = ctx.scores[(ctx.scores["method"] == "LPBS") & (ctx.scores["test"] == test)]
    return rows["encoding"].str.endswith("/adjective").any()


def table4(ctx: TableContext) -> pd.DataFrame:
    """LPBS with simplified, reduced (to the model's vocabulary) and full target sets (paper
    Table 4). Attributes in adjective form where the test defines one, as the paper's
    simplified column (its C1 value is Table 6's adjective score)."""
    selectors = []
    for test in TABLE3_TESTS:
        form = "adjective" if _has_adjectives(ctx, test) else "noun"
        descriptor = _primary_descriptor(ctx.scores, test)
        for model in _lpbs_models(ctx):
            for variant, desc, encoding in (
                ("simplified", "simplified", f"full/{form}"),
                ("reduced", descriptor, f"reduced/{form}"),
                ("full", descriptor, f"full/{form}"),
            ):
                labels = {
                    "method": "LPBS",
                    "test": test,
                    "column": f"{_label(ctx, model)} {variant}",
                }
                selectors.append((labels, _lpbs_where(test, model, desc, encoding)))
    cells = _our_cells(ctx, selectors) + _published_cells(
        ctx, "table4", lambda r: f"{r.paper_model} {r.variant} (paper)"
    )
    return _finish(cells, ctx.alpha)


def table6(ctx: TableContext) -> pd.DataFrame:
    """LPBS with the simplified sets, attributes as nouns vs adjectives (paper Table 6)."""
    selectors = [
        (
            {"method": "LPBS", "test": test, "column": f"{_label(ctx, model)} {form}"},
            _lpbs_where(test, model, "simplified", f"full/{form}"),
        )
        for test in TABLE3_TESTS
        if _has_adjectives(ctx, test)
        for model in _lpbs_models(ctx)
        for form in ("noun", "adjective")
    ]
    cells = _our_cells(ctx, selectors) + _published_cells(
        ctx, "table6", lambda r: f"{r.paper_model} {r.variant} (paper)"
    )
    return _finish(cells, ctx.alpha)


def _corpus_of(ctx: TableContext, method: str) -> str | None:
    """Reddit if the method has rows there, else its first corpus (not templates/words)."""
    sources = ctx.scores.loc[ctx.scores["method"] == method, "source"]
    corpora = [s for s in dict.fromkeys(sources) if s not in ("templates", "words")]
    return "reddit" if "reddit" in corpora else (corpora[0] if corpora else None)


def table14(ctx: TableContext) -> pd.DataFrame:
    """Cosine (CEAT on word/mean) vs probability (probability-based CEAT) with simplified,
    reduced and full target sets (paper Table 14); cosine on the CEAT corpus if any model
    has one, else on templates."""
    cosine_source = _corpus_of(ctx, "CEAT") or "templates"
    prob_source = _corpus_of(ctx, "p-CEAT")
    selectors = []
    for test in TABLE3_TESTS:
        descriptor = _primary_descriptor(ctx.scores, test)
        for model in _transformers(ctx):
            cells = [
                ("CEAT", cosine_source, "simplified", "simplified", "word/mean"),
                ("CEAT", cosine_source, "reduced", descriptor, "word/mean+reduced"),
                ("CEAT", cosine_source, "full", descriptor, "word/mean"),
                ("p-CEAT", prob_source, "simplified", "simplified", "full/noun"),
                ("p-CEAT", prob_source, "reduced", descriptor, "reduced/noun"),
                ("p-CEAT", prob_source, "full", descriptor, "full/noun"),
            ]
            for method, source, variant, desc, encoding in cells:
                labels = {
                    "method": method,
                    "test": test,
                    "column": f"{_label(ctx, model)} {variant}",
                }
                where = {"method": method, "test": test, "model": model, "source": source}
                selectors.append((labels, {**where, "descriptor": desc, "encoding": encoding}))
    cells = _our_cells(ctx, selectors) + _published_cells(
        ctx, "table14", lambda r: f"{r.paper_model} {r.variant} (paper)"
    )
    return _finish(cells, ctx.alpha)


def _is_decoder(ctx: TableContext, model: str) -> bool:
    """Decoders have no scored ``sent/cls`` (see scoring.method_encodings)."""
    rows = ctx.scores[(ctx.scores["model"] == model) & (ctx.scores["method"] == "s-SEAT")]
    return not (rows["encoding"] == "sent/cls").any()


def weat_static(ctx: TableContext) -> pd.DataFrame:
    """WEAT on the static embeddings, every test and descriptor."""
    static = ctx.scores[ctx.scores["method"] == "WEAT"]
    selectors = [
        (
            {"method": "WEAT", "test": t, "column": f"{m} {d}"},
            {"method": "WEAT", "test": t, "model": m, "descriptor": d},
        )
        for t in dict.fromkeys(static["test"])
        for m in dict.fromkeys(static["model"])
        for d in ("names", "terms")
    ]
    return _finish(_our_cells(ctx, selectors), ctx.alpha)


TABLES: dict[str, tuple[Callable[[TableContext], pd.DataFrame], str]] = {
    "table3_seat": (table3, "Table 3: s-SEAT, w-SEAT and CEAT effect sizes per test and model"),
    "table5_correlations": (
        table5,
        "Table 5: Pearson correlation between methods, all scores and significant ones only",
    ),
    "table11_names_terms": (table11, "Table 11: target description, names vs group terms"),
    "table12_contexts": (table12, "Table 12: contextualization, template sentences vs Reddit"),
    "table13_encoding": (
        table13,
        "Table 13: encoding level, sentence vs word (mean, first, last subword)",
    ),
    "table4_lpbs": (table4, "Table 4: LPBS with simplified, reduced and full target sets"),
    "table6_adjectives": (table6, "Table 6: LPBS with attributes as nouns or adjectives"),
    "table14_probability": (
        table14,
        "Table 14: cosine (CEAT) vs probability (LPBS scores combined as in CEAT)",
    ),
    "weat_static": (weat_static, "WEAT on static word embeddings"),
}


def _fmt(row: pd.Series) -> str:
    if pd.isna(row["effect_size"]):
        return "n/a"
    text = f"{row['effect_size']:.2f}"
    if row["significant"]:
        text = f"**{text}**"
    if row["significant_holm"]:
        text += "†"
    return text


def to_markdown(long: pd.DataFrame, title: str, alpha: float) -> str:
    """Wide Markdown: one line per (method, test), one column per model/variant."""
    if not (long["origin"] == "ours").any():
        return f"# {title}\n\nNo scores for this table in the current configuration.\n"
    long = long.assign(cell=long.apply(_fmt, axis=1))
    columns = list(dict.fromkeys(long.loc[long["origin"] == "ours", "column"]))
    columns += [c for c in dict.fromkeys(long["column"]) if c not in columns]
    rows = list(dict.fromkeys(zip(long["method"], long["test"], strict=True)))
    wide = long.pivot_table(
        index=["method", "test"], columns="column", values="cell", aggfunc="first"
    )
    wide = wide.reindex(index=pd.MultiIndex.from_tuples(rows), columns=columns).fillna("")
    wide.index.names = ["method", "test"]
    body = wide.reset_index().to_markdown(index=False)
    ours = long[long["origin"] == "ours"]
    used = "; ".join(
        f"{m}: {', '.join(sorted(set(g['source'])))}" for m, g in ours.groupby("method", sort=False)
    )
    note = (
        f"Effect sizes (Table 5: Pearson r, n/a below {MIN_POINTS} points); **bold**: "
        f"p < {alpha} (uncorrected, as in the paper); †: also significant "
        "after Holm-Bonferroni over all of our cells in this table. Columns marked (paper), "
        "orig. or paper are published values of Husse & Spitz (2022) for their models "
        f"(significance not transcribed). Context sources of our cells: {used}."
    )
    return f"# {title}\n\n{note}\n\n{body}\n"
