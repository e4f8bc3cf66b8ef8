"""Null-model calibration, reported: the false-positive shares of the paper's test, the
word-level test and the word-level test within word-piece counts on random weights
(``synthesis_null``) and on real vectors with the words reassigned (``synthesis_null_trained``),
the cells that cannot reject (``synthesis_null_floors``), the split by word-piece balance
(``synthesis_null_pieces``, ``synthesis_tokenization``), the calibration figure, and the
league's calibration columns (:mod:`biasbench.studies.calibration`,
:mod:`biasbench.studies.pieces`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasbench import nulls
from biasbench.io import read_tsv
from biasbench.reports.figures import no_data, pyplot
from biasbench.reports.synthesis_inputs import (
    comparison_cells,
    method_sources,
    null_inputs,
    null_mask,
    piece_inputs,
    scores_with,
    source_cells,
    synthesis_table,
)
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import SCORES, FigureTarget, Inputs
from biasbench.rows import TEST_DESIGNS
from biasbench.studies import calibration as cal
from biasbench.studies.cells import MIN_CELLS, primary_cells
from biasbench.studies.pieces import (
    BALANCED_GAP,
    PIECE_THRESHOLDS,
    piece_gaps,
    piece_sensitivity,
    tokenization,
)


def _piece_gaps(inputs: Inputs) -> pd.DataFrame:
    """:func:`biasbench.studies.pieces.piece_gaps` of the tokenization tables the target reads
    (each named by its base model: results/tokenization/<base>.tsv)."""
    files = inputs.get("tokenization", ())
    frames = [read_tsv(p).assign(tokenizer=Path(p).stem) for p in files]
    if not frames:
        return piece_gaps(
            pd.DataFrame(columns=["tokenizer", "test", "descriptor", "role", "word", "pieces"])
        )
    pieces = pd.concat(frames, ignore_index=True)
    pieces[["test", "descriptor"]] = pieces[["test", "descriptor"]].astype(object).fillna("")
    return piece_gaps(pieces)


#: how the null-model control names a base model's copies: (infix, what they are)
COPY_KINDS = (
    ("s", "seeded copies"),
    ("g", "copies, one per generated design"),
    ("i", "copies, one per data-set item design"),
)


def null_names(null: list[str]) -> str:
    """The null models, each base model's seeded copies (``<base>-null-s<i>``), the copies
    of its generated designs (``<base>-null-g<i>``) and of its data-set item designs
    (``<base>-null-i<i>``) as one entry each."""
    copies: dict[tuple[str, str], list[int]] = {}
    named = []
    for name in null:
        for infix, _what in COPY_KINDS:
            base, sep, index = name.rpartition(f"-null-{infix}")
            if sep and index.isdigit():
                copies.setdefault((base, infix), []).append(int(index))
                break
        else:
            named.append(name)
    what = dict(COPY_KINDS)
    named += [
        f"{base}-null-{infix}0..{infix}{max(i)} ({len(i)} {what[infix]})"
        for (base, infix), i in copies.items()
    ]
    return ", ".join(named)


def _alphas(settings) -> tuple[float, ...]:
    """The calibration table's levels: 0.01 and 0.05, and the configured alpha."""
    return tuple(sorted({*cal.ALPHAS, float(settings.alpha)}))


def _permutes() -> dict[str, str | None]:
    """Method -> the words its tests exchange (the registry's ``permutes``)."""
    from biasbench.methods.registry import REGISTRY

    return {m.name: m.permutes for m in REGISTRY}


def _null_cells(inputs: Inputs, settings) -> tuple[pd.DataFrame, list[str]]:
    cells = comparison_cells(inputs, settings)
    return cells, sorted(set(cells["model"]) & set(settings.null_models))


def _verdict_rule(alphas) -> str:
    needed = ", ".join(f"{cal.min_clusters(a)} at {a:g}" for a in alphas)
    return (
        "verdict_<alpha>, fixed in code before any run (biasbench.studies.calibration.verdict): "
        "miscalibrated where the interval's lower bound is above alpha; calibrated where its "
        f"upper bound is at most {cal.CALIBRATED_RATIO:g} x alpha on at least needed_<alpha> "
        f"clusters ({needed}: the fewest at which a false-positive share of "
        f"{cal.DETECT_RATIO:g} x alpha is found miscalibrated with {cal.POWER:.0%} power, "
        "each cluster counted once); otherwise undetermined, with the clusters it has and "
        "needs. chance_<alpha>: the probability that a test whose false-positive rate is "
        "exactly alpha would be called calibrated on the clusters it has "
        "(biasbench.studies.calibration.chance_calibrated; 0 below needed_<alpha>; 80% takes "
        + ", ".join(f"{cal.clusters_for_verdict(a):,} at {a:g}" for a in alphas)
        + "): what an undetermined verdict can mean"
    )


def _by_source(read, settings, alphas) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`cal.by_source` on the cells of :func:`source_cells` (``read``): the table by
    source and its detection checks."""
    cells, sources, bases = read
    return cal.by_source(cells, sources, bases, alphas, paired=settings.paired)


def _sources_note() -> str:
    return "; ".join(
        f"{s.key}: {s.label} (randomizes {s.randomizes or 'nothing a test exchanges'})"
        for s in cal.SOURCES
    )


def null_table(inputs: Inputs, settings):
    title = "Null-model control by source: false-positive shares, paper and word tests"
    read = source_cells(inputs, settings)
    null = sorted(set(read[0]["model"]) & set(settings.null_models))
    alphas = _alphas(settings)
    table, checks = _by_source(read, settings, alphas)
    passing = ", ".join(checks.loc[checks["passes"].astype(bool), "source"]) or "none"
    note = (
        "Per null source, method and test design (paper: the paper's p_value; word: p_word, "
        "the same statistic tested with the stimulus word as the exchangeable unit, every "
        "context of a word moving with it; strata: p_word_strata, the word test exchanging "
        "target words only with words of as many word pieces). The sources "
        f"(biasbench.studies.calibration.SOURCES): {_sources_note()}. The null models: "
        f"{null_names(null) or '(none configured)'} and the trained-weight null's draws. "
        "by_construction: the cells whose test exchanges what their source randomizes (a p "
        "uniform there whatever the method: left out of every share; where no other cell is "
        f"left the verdict is '{cal.BY_CONSTRUCTION}'). Each source's verdicts stand only where "
        "its detection check caught a known-bad test (synthesis_null_detection; passing: "
        f"{passing}); elsewhere they read '{cal.WITHHELD}', a 'miscalibrated' kept. The "
        "pooled rows cover the passing sources alone, every cell labelled by its own source. "
        "Per alpha: cannot_<alpha>, the cells whose design cannot give p below alpha "
        "whatever the model (named in synthesis_null_floors), left out; cells_<alpha> the "
        "others and clusters_<alpha> their clusters (one test and descriptor on one base "
        "model); null_<alpha>, the mean over clusters of the share of a cluster's cells with "
        f"p < alpha, with its {cal.LEVEL:.0%} interval null_low / null_high, exact over the "
        f"clusters. {_verdict_rule(alphas)}. cells_real / real_<alpha>: the share of the "
        "real models' cells (that can reach alpha) below it."
    )
    return plain_table(table, title, note)


def detection_table(inputs: Inputs, settings):
    title = "Null-model control: can each source catch a test known to be miscalibrated?"
    cells, sources, bases = source_cells(inputs, settings)
    checks = cal.detection(cells, sources, bases, settings.paired)
    note = (
        "Per null source (biasbench.studies.calibration.SOURCES): what its draws randomize, "
        "the test known to be miscalibrated there (known_bad), its cells and clusters on "
        f"the source (none exact by construction; those that can reach "
        f"{cal.DETECTION_ALPHA:g}), its false-positive share at {cal.DETECTION_ALPHA:g} with "
        f"the {cal.LEVEL:.0%} cluster interval and verdict. passes: the verdict is "
        "'miscalibrated', so a bad test can fail there; a source that does not pass (or "
        "declares no known-bad test: i.i.d. random directions make every word test of a "
        "scale-free method exact) gives no 'calibrated' or 'undetermined' verdict in "
        "synthesis_null, and is left out of the pooled rows."
    )
    return plain_table(checks, title, note)


def trained_table(kind: nulls.TrainedNull):
    """The calibration table of a trained-weight null kind (:mod:`biasbench.nulls`):
    its draws' cells, each (model, test, descriptor) a cluster, a test exact under the kind by
    construction counted apart."""

    def render(inputs: Inputs, settings):
        cells = primary_cells(
            scores_with(inputs, "trained"),
            method_sources(settings),
        )
        cells = cells[~null_mask(cells, settings)]  # the random-weight copies are another null
        bases = {m: b for m, b in settings.trained_bases.items() if kind.draw_pattern.fullmatch(m)}
        draws = sorted(set(cells["model"]) & set(bases))
        alphas = _alphas(settings)
        table = cal.calibration(
            cells, draws, bases, alphas, randomizes=kind.randomizes, paired=settings.paired
        )
        models = ", ".join(sorted(set(bases.values()))) or "(none configured)"
        note = (
            kind.describes.format(models=models, by_construction=cal.BY_CONSTRUCTION)
            + " Clusters: one (model, test, descriptor), its draws sharing words and vectors. "
            f"Columns, floors and verdicts as in synthesis_null; {_verdict_rule(alphas)}. "
            "cells_real / real_<alpha>: the real models' own cells."
        )
        return plain_table(table, f"{kind.title}: {kind.heading}", note)

    return render


def trained_inputs(kind: nulls.TrainedNull):
    """What a trained-weight null kind's table reads: the scores and its draws' rows."""

    def reads(plan) -> dict[str, list[str]]:
        return {"scores": [SCORES], "trained": plan.trained_files(kind.key)}

    return reads


def trained_tables() -> tuple:
    """The calibration table of every trained-weight null kind (:data:`nulls.TRAINED_NULLS`),
    each reading its own files."""
    return tuple(
        synthesis_table(
            kind.table,
            kind.title,
            trained_table(kind),
            kind.summary,
            reads=trained_inputs(kind),
        )
        for kind in nulls.TRAINED_NULLS
    )


def floors_table(inputs: Inputs, settings):
    title = "Null-model control: the cells that cannot reject at alpha"
    cells, null = _null_cells(inputs, settings)
    table = cal.cannot_reject_cells(cells, null, settings.null_bases, _alphas(settings))
    note = (
        "Per alpha, method, test design and cluster (base model, test, descriptor): null "
        "cells whose design cannot give a p-value below alpha whatever the model (floor: the "
        "smallest p it can give: 1/N of N enumerated partitions, 2/N for a two-sided test of "
        "equal sides, 1/(1 + n) of n sampled ones; a binomial or Wilcoxon test's with every "
        "unit on one side), and how many. They are left out of synthesis_null's shares: a "
        "cell that cannot reject says nothing about a test's calibration."
    )
    return plain_table(table, title, note)


def generated_table(inputs: Inputs, settings):
    title = "Null-model control on generated designs, by the property X and Y differ in"
    cells, sources, bases = source_cells(inputs, settings)
    alphas = _alphas(settings)
    frames = []
    for source in (s for s in cal.SOURCES if s.key.startswith("generated")):
        mine = cells[sources == source.key]
        for kind, part in mine.groupby("descriptor", sort=True):
            table = cal.calibration(
                part,
                sorted(set(part["model"])),
                bases,
                alphas,
                randomizes=source.randomizes,
                paired=settings.paired,
            )
            frames.append(table.assign(source=source.key, designs=kind))
    frames = frames or [
        cal.calibration(cells.iloc[:0], [], bases, alphas).assign(source="", designs="")
    ]
    table = pd.concat(frames, ignore_index=True)
    table = table[
        ["source", "designs", *(c for c in table.columns if c not in ("source", "designs"))]
    ]
    note = (
        "The null cells of the generated designs alone (biasbench.studies.generated; "
        "null_calibration.designs per base model), by source and by the property whose two "
        "classes X and Y are (designs: initial letter, last two letters, length, frequency "
        "band of the lexicon, word pieces under the base's tokenizer; A and B two classes of "
        "another), drawn from the lexicon (null_calibration.lexicon) with no word used "
        "twice; each design scored on its words alone on a random copy of its own, one "
        "cluster each. A test that is not robust to what X and Y differ in rejects: the word "
        "test on 'pieces' designs on random weights is the source's known-bad test "
        "(synthesis_null_detection); the stratified test (strata) exchanges target words only "
        "within their piece count and removes that confound, not the others. On random "
        "static vectors (i.i.d. directions) a scale-free method's test is exact by "
        f"construction. Columns as in synthesis_null; {_verdict_rule(alphas)}."
    )
    return plain_table(table, title, note)


def pieces_table(inputs: Inputs, settings):
    title = "Null-model control by word-piece balance, at several thresholds"
    cells, null = _null_cells(inputs, settings)
    alphas = _alphas(settings)
    table = piece_sensitivity(
        cells, null, settings.null_bases, _piece_gaps(inputs), _permutes(), alphas=alphas
    )
    note = (
        "A transformer's null cells split by whether the words its method's tests exchange "
        "(the targets X and Y for WEAT, SEAT, CEAT, RIPA, RND; the attributes A and B for "
        "SAME, LPBS, p-CEAT) differ in their mean number of word pieces under the base "
        "model's tokenizer by less than the threshold (balanced) or more (imbalanced), at "
        f"each threshold of {', '.join(f'{t:g}' for t in PIECE_THRESHOLDS)} pieces; "
        "columns and verdict as in synthesis_null. Random weights do not make words of "
        "different piece counts exchangeable (a word of two pieces is pooled from two token "
        "vectors): where they differ, a test that moves words rejects for the tokenizer's "
        "sake. The threshold of 0.5 was set after the word test was seen to reject on "
        "imbalanced targets; the others show how far a claim leans on it. Static models' "
        "copies and the data-set measures (no words exchanged) are in no row."
    )
    return plain_table(table, title, note)


def tokenization_table(inputs: Inputs, settings):
    title = "Null-model control by tokenization: word-piece gaps and the word test's share"
    cells = comparison_cells(inputs, settings)
    table = tokenization(
        cells[null_mask(cells, settings)],
        settings.null_bases,
        _piece_gaps(inputs),
        _alphas(settings),
    )
    level = f"{cal.LEVEL:.0%}"
    note = (
        "Per test, descriptor and tokenizer (a base transformer whose architecture and "
        "tokenizer null models have: its random: models and seeded copies): dXY, the mean "
        "number of word pieces of the X words minus the Y words, each counted as the "
        "extraction pools it (the tokens covering the word in its template contexts, the "
        "count most of them give), dAB the same for A and B, multi_X / multi_Y the share of "
        "words of more than one piece, words_X / words_Y their numbers; pieces: balanced "
        f"where |dXY| < {BALANCED_GAP:g}, else imbalanced. cells_word: the primary null "
        "cells of every method with a word-level p-value (p_word) on those null models, "
        f"word_<alpha> the share of them with p < alpha and its exact {level} interval. "
        "Random weights do not make words of different piece counts exchangeable (a word of "
        "two pieces is pooled from two token vectors): where X and Y differ, the word test "
        "rejects for the tokenizer's sake, correctly; the calibration claim holds for the "
        "balanced cells."
    )
    return plain_table(table, title, note)


#: what of calibration's row a design puts in the league, in the league's order
LEAGUE_WHAT = (("null",), ("null_low", "null_high"), ("clusters",), ("verdict",))


def _league_block(designs) -> tuple[tuple[str, str, str], ...]:
    """(column, design, what) of ``designs`` side by side, one ``LEAGUE_WHAT`` group at a
    time."""
    return tuple(
        (d.league_column(what), d.name, what)
        for group in LEAGUE_WHAT
        for d in designs
        for what in group
    )


#: the league's calibration columns: (column, design, what of calibration's row); the
#: paper's and the word-level test's side by side, the stratified test's after them (the
#: table's order since that test was added)
CALIBRATED = (
    ("significant_real", "paper", "real"),
    *_league_block(TEST_DESIGNS[:2]),
    *_league_block(TEST_DESIGNS[2:]),
)


def league_columns(design: str) -> dict[str, str]:
    """For one test design: what of :func:`cal.calibration`'s row -> the league's column."""
    return {what: column for column, d, what in CALIBRATED if d == design}


def calibrated_columns(read, settings) -> pd.DataFrame:
    """Per method at the configured alpha: each design's cluster-aware share over the
    sources whose detection check passed (:func:`cal.pooled_rows`), its interval, clusters
    and verdict; ``read``: :func:`source_cells`."""
    alpha = settings.alpha
    table, _checks = _by_source(read, settings, (alpha,))
    table = cal.pooled_rows(table).set_index(["method", "design"])
    out = pd.DataFrame({"method": sorted(table.index.get_level_values("method").unique())})
    for column, design, what in CALIBRATED:
        values = table.xs(design, level="design")[f"{what}_{alpha:g}"] if len(table) else None
        out[column] = out["method"].map(values) if values is not None else np.nan
    return out.reindex(columns=["method", *(c for c, _, _ in CALIBRATED)])


#: each design's name, as the figure's legend and the cards say it
DESIGN_LABELS = {d.name: d.label for d in TEST_DESIGNS}


def _sqrt_axis(ax) -> None:
    """A share axis on a square-root scale: alpha and the small shares stay apart."""
    ax.set_xscale("function", functions=(np.sqrt, np.square))
    ax.set_xlim(0, 1)
    ticks = [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks], fontsize=6)


def _qq(ax, cells: pd.DataFrame, null: list[str], methods: list[str]) -> None:
    """Null p-values against the uniform's quantiles: a calibrated test follows the diagonal,
    an anti-conservative one runs below it (too many small p-values)."""
    on_null = cells[cells["model"].isin(set(null))]
    colours = pyplot().get_cmap("tab20")
    for i, method in enumerate(methods):
        mine = on_null[on_null["method"] == method]
        for design, column in cal.DESIGNS.items():
            p = np.sort(cal.p_column(mine, column).dropna().to_numpy())
            if len(p) < MIN_CELLS:
                continue
            expected = (np.arange(1, len(p) + 1) - 0.5) / len(p)
            ax.plot(
                expected,
                p,
                ls={"paper": "-", "word": "--"}.get(design, ":"),
                marker=".",
                markersize=3,
                lw=1,
                color=colours((2 * i) % 20 + (i // 10) % 2),  # the dark shades first
                label=f"{method} ({design})",
            )
    ax.plot([0, 1], [0, 1], color="grey", lw=0.7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("uniform quantile (expected p)", fontsize=7)
    ax.set_ylabel("p-value on null models (sorted)", fontsize=7)
    ax.set_title(
        "QQ: null p-values against the uniform (solid: paper, dashed: word,\ndotted: word "
        "within word-piece strata; below the diagonal: too many small p)",
        fontsize=8,
    )
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=5, loc="upper left")


def figure_calibration(inputs: Inputs, settings):
    """Per method: the share of null cells below 0.01 and 0.05 with its exact interval for the
    paper's test and the word-level test side by side against the nominal alpha, and a QQ
    plot of the null p-values against the uniform."""
    import textwrap

    read = source_cells(inputs, settings)
    cells = read[0]
    null = sorted(set(cells["model"]) & set(settings.null_models))
    table = cal.pooled_rows(_by_source(read, settings, cal.ALPHAS)[0])
    if table.empty:
        return no_data("no null source caught its known-bad test (synthesis_null_detection)")
    counted = table.pivot(index="method", columns="design", values="cells_null")
    counted = counted.reindex(columns=list(cal.DESIGNS)).fillna(0)
    methods = [m for m in counted.index if counted.loc[m].sum() > 0]
    no_null = [m for m in counted.index if counted.loc[m].sum() == 0]
    no_word = [m for m in methods if counted.loc[m, "word"] == 0]
    if not methods:
        return no_data("no null-model cell with a p-value (null_models: none, or not scored)")
    plt = pyplot()
    fig, axes = plt.subplots(
        1,
        len(cal.ALPHAS) + 1,
        figsize=(14, 0.55 * len(methods) + 2.8),
        gridspec_kw={"width_ratios": [1] * len(cal.ALPHAS) + [1.3]},
    )
    y = np.arange(len(methods))
    rows = table.set_index(["method", "design"])
    for ax, alpha in zip(axes, cal.ALPHAS, strict=False):
        offsets = np.linspace(-0.27, 0.27, len(TEST_DESIGNS))  # each design's row in a band
        for offset, d in zip(offsets, TEST_DESIGNS, strict=True):
            design = d.name
            part = rows.xs(design, level="design").reindex(methods)
            share = part[f"null_{alpha:g}"].to_numpy(float)
            low = part[f"null_low_{alpha:g}"].to_numpy(float)
            high = part[f"null_high_{alpha:g}"].to_numpy(float)
            ok = np.isfinite(share)
            ax.errorbar(
                share[ok],
                y[ok] + offset,
                xerr=[share[ok] - low[ok], high[ok] - share[ok]],
                capsize=2,
                markersize=4,
                lw=1,
                label=d.label,
                fmt=d.marker,
                color=d.colour,
                mfc=d.colour if d.filled else "white",
            )
            for i in np.flatnonzero(~ok):
                ax.text(0.5, i + offset, f"{design}: n/a", fontsize=5, color="grey", va="center")
            verdicts = part[f"verdict_{alpha:g}"].fillna("n/a").astype(str).str.split(" ").str[0]
            clusters = part[f"clusters_{alpha:g}"].fillna(0).astype(int)
            for i in np.flatnonzero(ok):
                ax.text(
                    0.97,
                    i + offset,
                    f"{verdicts.iloc[i]} ({clusters.iloc[i]} clusters)",
                    fontsize=5,
                    ha="right",
                    va="center",
                    color="tab:red" if verdicts.iloc[i] == "miscalibrated" else "black",
                    transform=ax.get_yaxis_transform(),
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.3, "alpha": 0.8},
                )
        ax.axvline(alpha, color="tab:red", lw=1, ls=":", label=f"nominal alpha {alpha:g}")
        _sqrt_axis(ax)
        ax.set_yticks(y, methods if ax is axes[0] else [""] * len(methods), fontsize=7)
        ax.set_ylim(len(methods) - 0.5, -0.5)
        ax.set_xlabel(f"share of null cells with p < {alpha:g} (sqrt scale)", fontsize=7)
        ax.set_title(
            f"false positives at alpha {alpha:g} (95% interval over clusters; verdict)",
            fontsize=8,
        )
    handles, labels = axes[0].get_legend_handles_labels()  # below the panels: no marker hidden
    fig.legend(handles, labels, fontsize=7, loc="lower left", ncol=len(labels), frameon=False)
    fig.subplots_adjust(bottom=0.09)
    _qq(axes[-1], cells, null, methods)
    why = []
    if no_word:
        why.append(f"no word-level p-value on the null models yet: {', '.join(no_word)}")
    if no_null:
        why.append(f"a test but no null-model cell (left out): {', '.join(no_null)}")
    title = "Calibration on null models (pooled over the sources that catch a bad test): " + (
        "; ".join(why) if why else "every method with both tests"
    )
    fig.suptitle("\n".join(textwrap.wrap(title, 160)), fontsize=8)
    return fig


TABLES = (
    synthesis_table(
        "synthesis_null",
        "Null-model control",
        null_table,
        "Significant results on null models, by source and pooled where a bad test is caught.",
        reads=piece_inputs,
    ),
    synthesis_table(
        "synthesis_null_detection",
        "Null-model detection check",
        detection_table,
        "Per null source: is a test known to be miscalibrated caught there?",
        reads=null_inputs,
    ),
    synthesis_table(
        "synthesis_null_generated",
        "Null-model control on generated designs",
        generated_table,
        "Significant results on random weights over generated designs, by property.",
        reads=null_inputs,
    ),
    *trained_tables(),
    synthesis_table(
        "synthesis_null_floors",
        "Null-model cells that cannot reject",
        floors_table,
        "The null cells whose design cannot reach alpha, named and counted.",
        reads=null_inputs,
    ),
    synthesis_table(
        "synthesis_null_pieces",
        "Null-model control by word-piece balance",
        pieces_table,
        "The transformers' null shares split by word-piece balance at several thresholds.",
        reads=piece_inputs,
    ),
    synthesis_table(
        "synthesis_tokenization",
        "Null-model control by tokenization",
        tokenization_table,
        "Per test and tokenizer: the word-piece gaps of X and Y and the word test's null share.",
        reads=piece_inputs,
    ),
)
FIGURES = (
    FigureTarget(
        "synthesis_calibration",
        "Calibration: false-positive shares and null p-values, paper against word test",
        figure_calibration,
        null_inputs,
        reading="Markers: the share of null-model cells with p < alpha (clusters weighing "
        "alike; cells whose test cannot reach alpha left out), whiskers its 95% interval over "
        "the clusters, dotted line the nominal alpha, at the right the verdict and the "
        "clusters; filled circles the paper's test, hollow squares the word-level test, "
        "hollow triangles the word-level test within word-piece strata (n/a: no such p-value "
        "on the null models). Right: the null p-values against the uniform; "
        "a calibrated test follows the diagonal. Columns as in the synthesis_null table.",
    ),
)
