"""The comparison no paper made: every method against every other (agreement), against
injected ground truth, the census and an extrinsic proxy, and against null models (the
validity league table), from the scores of all four papers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasbench import rows
from biasbench.io import read_json, read_rows, read_tsv
from biasbench.reports.figures import no_data, pyplot
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import SCORES, FigureTarget, Table
from biasbench.studies import reliability as rel
from biasbench.studies import synthesis as syn
from biasbench.studies import validity
from biasbench.studies.groundtruth.every_method import TEST as STUDY_TEST
from biasbench.studies.groundtruth.truth import ON_STUDY, QUANTITIES, TRUTH, truth_of
from biasbench.studies.null_calibration import is_null_file, is_trained_null_file

COSTS = "benchmarks/method_costs.tsv"
DIVDIST_VALIDITY = "results/studies/divdist/validity.json"


def _context(settings) -> dict[str, str]:
    """Each method's own source: its declared context, "natural" read as the configured
    natural corpus."""
    from biasbench.methods.registry import REGISTRY

    return {
        m.name: (settings.natural or "templates") if m.context == "natural" else m.context
        for m in REGISTRY
    }


def _reads(plan) -> list[str]:
    """The scores, the injected-bias models' scores and records, the statistic costs where the
    benchmark has written them, and the DivDist study's validity tables where it runs."""
    files = [
        SCORES,
        *plan.null_files(),
        *plan.injected_scores,
        *plan.injected_methods,
        *plan.groundtruth,
    ]
    if (plan.root / COSTS).is_file():
        files.append(COSTS)
    if plan.divdist:
        files.append(DIVDIST_VALIDITY)
    return files


def _injected(inputs: list[str]) -> pd.DataFrame:
    """Score rows of the ground-truth study's models: the data sets and every method on the
    study's own test."""
    files = [p for p in inputs if p.endswith((".datasets.tsv", ".methods.tsv"))]
    return pd.concat([read_tsv(p) for p in files], ignore_index=True) if files else rows.frame([])


def _records(inputs: list[str]) -> dict[str, dict]:
    """The ground-truth study's records by model name."""
    return {
        r["name"]: r
        for p in inputs
        if Path(p).parent.name == "groundtruth" and p.endswith(".json")
        for r in read_json(p)["models"]
    }


def _with_truth(frames: pd.DataFrame, inputs: list[str], settings) -> pd.DataFrame:
    """The study models' primary cells with the quantity each method's construct measures
    (``truth``: its entry in ``groundtruth.truth.TRUTH``, on the study's own test or on a data
    set's rows of the injected category), every model with ``kept`` (Schröder et al.'s R²
    bar, the league's sensitivity row) and ``cluster``: the models that share one draw of the
    injected shares (identical ``p``) are one cluster."""
    records = _records(inputs)
    cells = syn.primary_cells(frames, _context(settings))
    cells = cells[cells["model"].isin(set(records))].reset_index(drop=True)
    draws = {name: repr(r["p"]) for name, r in records.items()}
    cluster_of = {d: i for i, d in enumerate(dict.fromkeys(draws.values()))}

    def truth(row) -> float:
        declared = truth_of(row.method)
        on_study = row.test == STUDY_TEST
        if declared.quantity is None or on_study != (declared.where == ON_STUDY):
            return np.nan
        if not on_study and row.descriptor != "all":
            return np.nan
        return records[row.model]["injected"].get(declared.quantity, np.nan)

    return cells.assign(
        truth=[truth(r) for r in cells.itertuples(index=False)],
        kept=[bool(records[m]["kept"]) for m in cells["model"]],
        cluster=[cluster_of[draws[m]] for m in cells["model"]],
    )


def _scores(inputs: list[str], extra=is_null_file) -> pd.DataFrame:
    """The tidy scores, with the rows of the inputs ``extra`` picks (the null-model
    calibration's, where the target reads them)."""
    added = [read_rows(p) for p in inputs if extra(p)]
    return pd.concat([read_rows(inputs[0]), *added], ignore_index=True)


def _with_null(plan) -> list[str]:
    """The tidy scores and the null-model calibration's rows (the null cells)."""
    return [SCORES, *plan.null_files()]


def _with_pieces(plan) -> list[str]:
    """The null cells and the word pieces of their stimuli under each base model's tokenizer."""
    return [*_with_null(plan), *plan.tokenization_files()]


def _piece_gaps(inputs: list[str]) -> pd.DataFrame:
    """:func:`syn.piece_gaps` of the tokenization tables among the inputs (each named by its
    base model: results/tokenization/<base>.tsv)."""
    files = [p for p in inputs if syn.is_tokenization_file(p)]
    frames = [read_tsv(p).assign(tokenizer=Path(p).stem) for p in files]
    if not frames:
        return syn.piece_gaps(
            pd.DataFrame(columns=["tokenizer", "test", "descriptor", "role", "word", "pieces"])
        )
    pieces = pd.concat(frames, ignore_index=True)
    pieces[["test", "descriptor"]] = pieces[["test", "descriptor"]].astype(object).fillna("")
    return syn.piece_gaps(pieces)


def null_names(null: list[str]) -> str:
    """The null models, each base model's seeded copies (``<base>-null-s<i>``) as one entry."""
    copies: dict[str, list[int]] = {}
    named = []
    for name in null:
        base, sep, index = name.rpartition("-null-s")
        if sep and index.isdigit():
            copies.setdefault(base, []).append(int(index))
        else:
            named.append(name)
    named += [f"{base}-null-s0..s{max(i)} ({len(i)} seeded copies)" for base, i in copies.items()]
    return ", ".join(named)


def _cells(inputs: list[str], settings) -> pd.DataFrame:
    return syn.primary_cells(_scores(inputs), _context(settings))


def _null_mask(cells: pd.DataFrame, settings) -> pd.Series:
    """The rows of the configuration's null models (``random:`` sources), never guessed from
    a model's name."""
    return cells["model"].isin(set(settings.null_models))


def scores_table(inputs, settings):
    title = "Every score of the four papers' methods, one tidy table"
    cells = _cells(inputs, settings)
    cells["significant"] = cells["p_value"] < settings.alpha
    cells["null model"] = _null_mask(cells, settings)
    keep = [
        "method",
        "paper",
        "family",
        "model",
        "null model",
        "source",
        "test",
        "descriptor",
        "encoding",
        "variant",
        "effect_size",
        "p_value",
        "significant",
    ]
    note = (
        "Primary rows (each method's default encoding and variant) of results/scores/all.tsv, "
        "one per (method, model, test, descriptor), on the method's own context source where "
        f"it has several; significant: p < {settings.alpha}; null model: random weights."
    )
    return plain_table(cells[keep], title, note)


def _scales() -> dict[str, dict]:
    """Per method: whether it is a magnitude (keeps its value when X and Y swap) and its
    neutral point, for agreement on one scale."""
    from biasbench.methods.registry import REGISTRY

    return {
        "magnitude": {m.name: m.swap == "keeps" for m in REGISTRY},
        "neutral": {m.name: m.neutral_point for m in REGISTRY},
    }


def _agreement(cells: pd.DataFrame, inputs, settings) -> pd.DataFrame:
    by_method = rel.by_method(reliability(inputs)).set_index("method")["reliability"]
    return syn.agreement(
        cells,
        settings.alpha,
        reliability=by_method.dropna().to_dict(),
        **_scales(),
    )


def agreement_pairs(inputs, settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    cells = _cells(inputs, settings)
    real = cells[~_null_mask(cells, settings)]
    return real, _agreement(real, inputs, settings)


def model_agreement(inputs, settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Agreement across models (the zoo and the ground-truth study's injected-bias models):
    every method's mean score per model."""
    cells = _cells(inputs, settings)
    injected = [p for p in inputs if p.endswith(".datasets.tsv")]
    if injected:
        frames = pd.concat([read_tsv(p) for p in injected], ignore_index=True)
        cells = pd.concat([cells, syn.primary_cells(frames, _context(settings))], ignore_index=True)
    per_model = syn.model_cells(cells[~_null_mask(cells, settings)])
    return per_model, _agreement(per_model, inputs, settings)


def agreement_table(inputs, settings):
    title = "Agreement between methods over the cells both score, on one scale"
    _, pairs = agreement_pairs(inputs, settings)
    _, across = model_agreement(inputs, settings)
    pairs = pd.concat(
        [pairs.assign(over="(model, test) cells"), across.assign(over="models")],
        ignore_index=True,
    )
    pairs = pairs[pairs["n"] > 0]
    note = (
        "Cells: (model, test, descriptor) of the real models both methods score (primary rows). "
        "scale: where one method is a magnitude (its value keeps when X and Y swap: MAC, "
        "Direct Bias, SAME, DivDist, ...) and the other signed, the signed score enters as "
        "its distance from its neutral point (|score - neutral|), the quantity a magnitude "
        "measures; otherwise both as they are. rho: Spearman over the shared cells (n, over "
        "models and tests: the independent inputs behind it) with a 95% percentile interval "
        "from the crossed bootstrap (1,000 seeded resamples drawing models and tests "
        "independently, each cell weighted by how often its model and its test were drawn; "
        f"n < {syn.MIN_CELLS}: none). spearman_corrected: rho / sqrt(reliability_a x "
        "reliability_b), Spearman's correction for attenuation with each method's lowest "
        "split-half reliability on the ground-truth study's models (synthesis_reliability; "
        "clipped to [-1, 1], empty without both: a zoo model's reliability is assumed to be "
        "the study's). sign agreement: share of shared cells with the same raw sign; "
        "significance agreement: share of the cells both test with the same verdict at p < "
        f"{settings.alpha}. Pairs without a shared cell are left out. Rows 'over models' "
        "compare each method's mean score per model across the zoo and the ground-truth "
        "study's injected-bias models."
    )
    return plain_table(pairs, title, note)


def _heat(ax, cells, pairs, title):
    methods = sorted(cells["method"].unique())
    matrix = syn.correlation_matrix(pairs, methods)
    n = syn.correlation_matrix(pairs.assign(spearman=pairs["n"]), methods)
    order = syn.cluster_order(matrix)
    matrix, n = matrix.loc[order, order], n.loc[order, order]
    image = ax.imshow(matrix.to_numpy(float), vmin=-1, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(len(order)), order, rotation=90, fontsize=6)
    ax.set_yticks(range(len(order)), order, fontsize=6)
    for i in range(len(order)):
        for j in range(len(order)):
            if i != j and np.isfinite(matrix.iat[i, j]):
                text = f"{matrix.iat[i, j]:.1f}\n{int(n.iat[i, j])}"
                ax.text(j, i, text, ha="center", va="center", fontsize=3.5)
    ax.set_title(title, fontsize=8)
    return image


def figure_agreement(inputs, settings):
    import matplotlib.pyplot as plt

    real, pairs = agreement_pairs(inputs, settings)
    if pairs.empty:
        return no_data("fewer than two methods with scores")
    per_model, model_pairs = model_agreement(inputs, settings)
    fig, axes = plt.subplots(1, 2, figsize=(20, 10))
    _heat(axes[0], real, pairs, "over (model, test) cells both score (clustered; rho and n)")
    image = _heat(
        axes[1],
        per_model,
        model_pairs,
        "across models: each method's mean score per model (zoo + injected-bias models)",
    )
    fig.colorbar(image, ax=axes[1], shrink=0.6, label="Spearman rho")
    fig.suptitle("Agreement between the four papers' methods", fontsize=10)
    return fig


def _alphas(settings) -> tuple[float, ...]:
    """The calibration table's levels: 0.01 and 0.05, and the configured alpha."""
    return tuple(sorted({*syn.ALPHAS, float(settings.alpha)}))


def _permutes() -> dict[str, str | None]:
    """Method -> the words its tests exchange (the registry's ``permutes``)."""
    from biasbench.methods.registry import REGISTRY

    return {m.name: m.permutes for m in REGISTRY}


def _null_cells(inputs, settings) -> tuple[pd.DataFrame, list[str]]:
    cells = _cells(inputs, settings)
    return cells, sorted(set(cells["model"]) & set(settings.null_models))


def _verdict_rule(alphas) -> str:
    needed = ", ".join(f"{syn.min_clusters(a)} at {a:g}" for a in alphas)
    return (
        "verdict_<alpha>, fixed in code before any run (biasbench.studies.synthesis.verdict): "
        "miscalibrated where the interval's lower bound is above alpha; calibrated where its "
        f"upper bound is at most {syn.CALIBRATED_RATIO:g} x alpha on at least needed_<alpha> "
        f"clusters ({needed}: the fewest at which a false-positive share of "
        f"{syn.DETECT_RATIO:g} x alpha is found miscalibrated with {syn.POWER:.0%} power, "
        "each cluster counted once); otherwise undetermined, with the clusters it has and "
        "needs"
    )


def null_table(inputs, settings):
    title = "Null-model control: false-positive shares on random weights, paper and word tests"
    cells, null = _null_cells(inputs, settings)
    alphas = _alphas(settings)
    table = syn.calibration(cells, null, settings.null_bases, alphas)
    note = (
        "Per method and test design (paper: the paper's p_value; word: p_word, the same "
        "statistic tested with the stimulus word as the exchangeable unit, every context of a "
        "word moving with it; strata: p_word_strata, the word test exchanging target words "
        "only with words of as many word pieces): cells_null, the primary cells of the null "
        "models "
        f"{null_names(null) or '(none configured)'} with that p-value (each transformer's "
        "architecture and tokenizer with seeded random weights, each static model's stimuli "
        "as seeded random directions of their vectors' norms). Per alpha: cannot_<alpha>, "
        "the cells whose design cannot give p below alpha whatever the model (too few words "
        "or partitions; named in synthesis_null_floors), left out; cells_<alpha> the others "
        "and clusters_<alpha> their clusters (one test and descriptor on one base model: its "
        "copies share words, templates and word pieces); null_<alpha>, the false-positive "
        "share: the mean over clusters of the share of a cluster's cells with p < alpha, "
        f"with its {syn.LEVEL:.0%} interval null_low / null_high, exact over the clusters "
        "(each cluster one trial, its share the success: exact when its copies agree, "
        f"conservative when they do not). {_verdict_rule(alphas)}. cells_real / "
        "real_<alpha>: the share of the real models' cells (that can reach alpha) below it. "
        "Methods without a test (MAC, Direct Bias, the data-set percentages, DivDist) have "
        "no row; synthesis_null_pieces splits the transformers' cells by word-piece balance."
    )
    return plain_table(table, title, note)


def trained_table(inputs, settings):
    title = "Trained-weight null: false-positive shares on real vectors, words reassigned"
    cells = syn.primary_cells(_scores(inputs, is_trained_null_file), _context(settings))
    cells = cells[~_null_mask(cells, settings)]  # the random-weight copies are another null
    draws = sorted(set(cells["model"]) & set(settings.trained_bases))
    alphas = _alphas(settings)
    table = syn.calibration(cells, draws, settings.trained_bases, alphas)
    models = sorted(set(settings.trained_bases.values()))
    note = (
        f"The trained models {', '.join(models) or '(none configured)'} scored again on their "
        "own vectors with each test's words reassigned to its sets at random: the targets "
        "shuffled between X and Y, the attributes between A and B (definitional pairs flipped "
        "by a coin), sizes kept; each draw a model <model>-reassigned-r<i>. No word's set then "
        "has anything to do with its vector, while the vectors keep all a trained model has "
        "(frequency, anisotropy, word pieces): the null every test of the family states, on "
        "the geometry real results come from. The word-level test's p is the probability of "
        "its statistic under exactly this reassignment, so its share is alpha up to sampling "
        "(a check of the machinery); the paper tests' shares measure what their "
        "context-level or sample-level units add. Clusters: one (model, test, descriptor), "
        "its draws sharing words and vectors. Columns, floors and verdicts as in "
        f"synthesis_null; {_verdict_rule(alphas)}. cells_real / real_<alpha>: the real models' "
        "own cells."
    )
    return plain_table(table, title, note)


def floors_table(inputs, settings):
    title = "Null-model control: the cells that cannot reject at alpha"
    cells, null = _null_cells(inputs, settings)
    table = syn.cannot_reject_cells(cells, null, settings.null_bases, _alphas(settings))
    note = (
        "Per alpha, method, test design and cluster (base model, test, descriptor): null "
        "cells whose design cannot give a p-value below alpha whatever the model (floor: the "
        "smallest p it can give: 1/N of N enumerated partitions, 2/N for a two-sided test of "
        "equal sides, 1/(1 + n) of n sampled ones; a binomial or Wilcoxon test's with every "
        "unit on one side), and how many. They are left out of synthesis_null's shares: a "
        "cell that cannot reject says nothing about a test's calibration."
    )
    return plain_table(table, title, note)


def pieces_table(inputs, settings):
    title = "Null-model control by word-piece balance, at several thresholds"
    cells, null = _null_cells(inputs, settings)
    alphas = _alphas(settings)
    table = syn.piece_sensitivity(
        cells, null, settings.null_bases, _piece_gaps(inputs), _permutes(), alphas=alphas
    )
    note = (
        "A transformer's null cells split by whether the words its method's tests exchange "
        "(the targets X and Y for WEAT, SEAT, CEAT, RIPA, RND; the attributes A and B for "
        "SAME, LPBS, p-CEAT) differ in their mean number of word pieces under the base "
        "model's tokenizer by less than the threshold (balanced) or more (imbalanced), at "
        f"each threshold of {', '.join(f'{t:g}' for t in syn.PIECE_THRESHOLDS)} pieces; "
        "columns and verdict as in synthesis_null. Random weights do not make words of "
        "different piece counts exchangeable (a word of two pieces is pooled from two token "
        "vectors): where they differ, a test that moves words rejects for the tokenizer's "
        "sake. The threshold of 0.5 was set after the word test was seen to reject on "
        "imbalanced targets; the others show how far a claim leans on it. Static models' "
        "copies and the data-set measures (no words exchanged) are in no row."
    )
    return plain_table(table, title, note)


def tokenization_table(inputs, settings):
    title = "Null-model control by tokenization: word-piece gaps and the word test's share"
    cells = _cells(inputs, settings)
    table = syn.tokenization(
        cells[_null_mask(cells, settings)],
        settings.null_bases,
        _piece_gaps(inputs),
        _alphas(settings),
    )
    level = f"{syn.LEVEL:.0%}"
    note = (
        "Per test, descriptor and tokenizer (a base transformer whose architecture and "
        "tokenizer null models have: its random: models and seeded copies): dXY, the mean "
        "number of word pieces of the X words minus the Y words, each counted as the "
        "extraction pools it (the tokens covering the word in its template contexts, the "
        "count most of them give), dAB the same for A and B, multi_X / multi_Y the share of "
        "words of more than one piece, words_X / words_Y their numbers; pieces: balanced "
        f"where |dXY| < {syn.BALANCED_GAP:g}, else imbalanced. cells_word: the primary null "
        "cells of every method with a word-level p-value (p_word) on those null models, "
        f"word_<alpha> the share of them with p < alpha and its exact {level} interval. "
        "Random weights do not make words of different piece counts exchangeable (a word of "
        "two pieces is pooled from two token vectors): where X and Y differ, the word test "
        "rejects for the tokenizer's sake, correctly; the calibration claim holds for the "
        "balanced cells."
    )
    return plain_table(table, title, note)


def survival_groups(cells: pd.DataFrame) -> list[tuple[str, str, pd.Series]]:
    """(paper, which cells, mask over ``cells``) of the survival table: Husse & Spitz's
    Table 3 cells, their LPBS and p-CEAT cells, Schröder et al.'s scores and Section 3.1
    test, the data-set measures (Delobelle et al.), Bommasani & Liang's prior measures and
    DivDist, and every cell."""
    from biasbench.reports import husse2022 as husse
    from biasbench.studies.bommasani2022 import PRIOR
    from biasbench.studies.schroeder2021 import S31

    table3 = cells["method"].isin([husse.S_SEAT, husse.W_SEAT, husse.CEAT])
    table3 &= cells["test"].isin(husse.TABLE3_TESTS)
    names = set(cells.loc[table3 & (cells["descriptor"] == "names"), "test"])
    table3 &= np.where(cells["test"].isin(names), cells["descriptor"] == "names", True)
    table3 &= cells["descriptor"].isin(["names", "terms"])
    datasets = cells["source"] == "dataset"  # every data-set scorer's rows
    schroeder = ("WEAT", "MAC", "Direct Bias", "SAME", "SAME skew", "SAME stereotype")
    return [
        (
            husse.PAPER,
            "Table 3: s-SEAT, w-SEAT, CEAT on its tests (names where a test has them, else terms)",
            table3,
        ),
        (
            husse.PAPER,
            "LPBS and p-CEAT on the word-set tests (Tables 4, 14)",
            cells["method"].isin([husse.LPBS, husse.P_CEAT]) & ~datasets,
        ),
        (
            "Schröder et al. (2021)",
            f"the scores it compares ({', '.join(schroeder)}) and its Section 3.1 test ({S31})",
            cells["method"].isin(schroeder) | (cells["test"] == S31),
        ),
        ("Delobelle et al. (2022)", "the data-set measures (every data set)", datasets),
        (
            "Bommasani & Liang (2022)",
            f"the prior measures ({', '.join(PRIOR)}) and DivDist",
            cells["method"].isin([*PRIOR, "DivDist"]),
        ),
        ("all papers", "every tested cell", pd.Series(True, index=cells.index)),
    ]


SURVIVAL = syn.SURVIVAL


def survival(inputs, settings) -> pd.DataFrame:
    """Per paper's cells and method on the real models: how many cells the paper's test
    calls significant at alpha and how many of them stay significant under the word test."""
    cells = _cells(inputs, settings)
    cells = cells[~_null_mask(cells, settings)].reset_index(drop=True)
    out = []
    for paper, which, mask in survival_groups(cells):
        part = syn.survival(cells[np.asarray(mask, bool)], settings.alpha)
        if part.empty:
            part = pd.DataFrame([{"method": "(no tested cell)", **dict.fromkeys(SURVIVAL, 0)}])
        elif len(part) > 1:
            total = part[SURVIVAL].sum().astype(object)
            total["method"] = "(all methods)"
            part = pd.concat([part, total.to_frame().T], ignore_index=True)
        part[SURVIVAL] = part[SURVIVAL].astype(int)
        part["survival_share"] = syn.survival_share(part)
        out.append(part.assign(paper=paper, cells=which))
    frame = pd.concat(out, ignore_index=True)
    return frame[["paper", "cells", "method", *SURVIVAL, "survival_share"]]


def survival_table(inputs, settings):
    title = "Survival: the paper's significant cells under the word-level test"
    note = (
        f"Real models only, primary cells. tested: cells with the paper's p-value; "
        f"cannot_reject: of those, cells whose test cannot give p below {settings.alpha} "
        f"whatever the model (its design's floor); significant_paper: p_value < "
        f"{settings.alpha} (the paper's test); word_cannot_reject: of those, the cells whose "
        "word-level test (p_word, the stimulus word as the exchangeable unit) cannot reach "
        "alpha (too few words), left out of the share; word_tested: those whose word test "
        f"can; surviving: of those, p_word < {settings.alpha} as well; survival_share: "
        "surviving / word_tested (empty without a word-tested cell); strata_tested / "
        "surviving_strata: the same under the word-level test within word-piece counts "
        "(p_word_strata; a transformer's cells only). A cell may count under "
        "several papers (a method one paper introduces and another evaluates); '(all "
        "methods)' sums a paper's rows."
    )
    return plain_table(survival(inputs, settings), title, note)


#: the league's calibration columns: (column, design, what of calibration's row)
CALIBRATED = (
    ("significant_real", "paper", "real"),
    ("significant_null", "paper", "null"),
    ("significant_null_word", "word", "null"),
    ("null_low", "paper", "null_low"),
    ("null_high", "paper", "null_high"),
    ("null_word_low", "word", "null_low"),
    ("null_word_high", "word", "null_high"),
    ("null_clusters", "paper", "clusters"),
    ("null_word_clusters", "word", "clusters"),
    ("calibration_paper", "paper", "verdict"),
    ("calibration_word", "word", "verdict"),
    ("significant_null_strata", "strata", "null"),
    ("null_strata_low", "strata", "null_low"),
    ("null_strata_high", "strata", "null_high"),
    ("null_strata_clusters", "strata", "clusters"),
    ("calibration_strata", "strata", "verdict"),
)


def league_columns(design: str) -> dict[str, str]:
    """For one test design: what of :func:`syn.calibration`'s row -> the league's column."""
    return {what: column for column, d, what in CALIBRATED if d == design}


def _calibrated_columns(
    cells: pd.DataFrame, null: list[str], null_bases: dict, alpha: float
) -> pd.DataFrame:
    """Per method at the configured alpha: the word test's cluster-aware share on the null
    models, both designs' intervals, clusters and verdicts."""
    table = syn.calibration(cells, null, null_bases, (alpha,)).set_index(["method", "design"])
    out = pd.DataFrame({"method": sorted(table.index.get_level_values("method").unique())})
    for column, design, what in CALIBRATED:
        values = table.xs(design, level="design")[f"{what}_{alpha:g}"] if len(table) else None
        out[column] = out["method"].map(values) if values is not None else np.nan
    return out.reindex(columns=["method", *(c for c, _, _ in CALIBRATED)])


def _why_no_truth(method, with_truth: pd.DataFrame) -> str:
    """Empty where the method has a truth rho, else why not, for the league's row; what its
    rho stands on where that needs saying."""
    rows = with_truth[(with_truth["method"] == method.name) & with_truth["truth"].notna()]
    declared = truth_of(method.name)
    if declared.quantity is None:
        return f"no injected truth: {declared.why}"
    if with_truth.empty:
        return "the ground-truth study did not run"
    if "transformer" not in method.model_kinds:
        return "static vectors only (on a transformer it is s-SEAT on the words alone)"
    if rows.empty:
        return "not run on the study's models"
    if rows["effect_size"].nunique() < 2 or rows["truth"].nunique() < 2:
        return "no spread across the study's models"
    if len(rows) < syn.MIN_CELLS:
        return f"fewer than {syn.MIN_CELLS} models"
    notes = []
    if declared.reads_filter:
        notes.append("reads the slot probabilities the learned-bias filter selects on")
    if method.context == "natural":
        notes.append("on the study's templates, not natural contexts (its models read no corpus)")
    return "; ".join(notes)


def truth_inference(inputs, settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`validity.league_inference` on every study model, beside the same rho on the
    models that pass the learned-bias filter (``kept``) as a sensitivity column."""
    with_truth = _with_truth(_injected(inputs), inputs, settings)
    cells = with_truth.dropna(subset=["truth", "effect_size"])
    table, pairs = validity.league_inference(cells)
    kept = cells[cells["kept"].astype(bool)]
    sensitivity = [
        {
            "method": method,
            "models_kept": frame["model"].nunique(),
            "truth_spearman_kept": validity.spearman(
                frame["truth"].to_numpy(), frame["effect_size"].to_numpy()
            ),
        }
        for method, frame in kept.drop_duplicates(["method", "model"]).groupby("method")
    ]
    table = table.merge(
        pd.DataFrame(sensitivity, columns=["method", "models_kept", "truth_spearman_kept"]),
        on="method",
        how="left",
    )
    return table, pairs


#: the league's truth columns: validity.league_inference's -> the league's
TRUTH_COLUMNS = {
    "models": "models",
    "clusters": "distributions",
    "truth_spearman": "truth_spearman",
    "ci_low": "truth_ci_low",
    "ci_high": "truth_ci_high",
    "p": "truth_p",
    "p_holm": "truth_p_holm",
    "detectable_rho": "detectable_rho",
    "verdict": "truth_verdict",
    "models_kept": "models_kept",
    "truth_spearman_kept": "truth_spearman_kept",
}


def reliability(inputs) -> pd.DataFrame:
    """Split-half reliability per method and facet (:func:`rel.split_half`) from the study's
    halves files (``*.robustness.tsv``)."""
    halves = [read_tsv(p) for p in inputs if p.endswith(".robustness.tsv")]
    if not halves:
        return pd.DataFrame(columns=["method", "facet", "models", "half_r", "reliability"])
    return rel.split_half(pd.concat(halves, ignore_index=True))


def league(inputs, settings) -> pd.DataFrame:
    """Per method: its truth and how well it follows it, its reliability, census, extrinsic
    proxy, null-model calibration, cost."""
    from biasbench.methods.registry import REGISTRY

    scores = _scores(inputs)
    cells = syn.primary_cells(scores, _context(settings))
    real = cells[~_null_mask(cells, settings)]
    null = sorted(set(cells["model"]) & set(settings.null_models))
    frames = _injected(inputs)
    with_truth = _with_truth(frames, inputs, settings)
    truth_frame, _pairs = truth_inference(inputs, settings)
    out = pd.DataFrame(
        {
            "method": [m.name for m in REGISTRY],
            "paper": [m.paper for m in REGISTRY],
            "family": [m.family for m in REGISTRY],
            "truth_quantity": [TRUTH[m.name].quantity or "none" for m in REGISTRY],
            "truth_on": [TRUTH[m.name].where for m in REGISTRY],
        }
    )
    truth_frame = truth_frame.rename(columns=TRUTH_COLUMNS)
    out = out.merge(truth_frame[["method", *TRUTH_COLUMNS.values()]], on="method", how="left")
    out["truth_verdict"] = out["truth_verdict"].astype(object).fillna("n/a")
    out["truth_note"] = [_why_no_truth(m, with_truth) for m in REGISTRY]
    out = out.merge(rel.by_method(reliability(inputs)), on="method", how="left")
    census = [p for p in inputs if p.endswith("validity.json")]
    if census:
        pred = pd.DataFrame(read_json(census[0])["predictive"])
        pred = pred[pred["against"] == "unsigned"]
        per = pred.groupby("measure")["spearman"].mean().rename("census_spearman")
        out = out.merge(per, left_on="method", right_index=True, how="left")
    else:
        out["census_spearman"] = np.nan
    datasets = frames[frames["test"] != STUDY_TEST]
    all_models = pd.concat([real, syn.primary_cells(datasets, _context(settings))])
    out = out.merge(syn.extrinsic(all_models), on="method", how="left")
    calibrated = _calibrated_columns(cells, null, settings.null_bases, settings.alpha)
    out = out.merge(calibrated, on="method", how="left")
    costs = [p for p in inputs if p.endswith("method_costs.tsv")]
    if costs:  # a committed benchmark table (benchmarks/), not a workflow output
        timed = pd.read_csv(costs[0], sep="\t")[["method", "seconds"]]
        out = out.merge(timed, on="method", how="left")
        out = out.rename(columns={"seconds": "statistic_seconds"})
    for design in syn.DESIGNS:
        verdict = league_columns(design)["verdict"]
        out[verdict] = out[verdict].fillna("n/a")
    out["cells"] = out["method"].map(real.groupby("method").size()).fillna(0).astype(int)
    return out


def _truth_rule(settings) -> str:
    return (
        "truth_spearman: Spearman rho, across every model of the ground-truth study (models; "
        "distributions: the independent draws of injected shares they come from, each model "
        "its own draw unless models share one), of the method's score with its truth: the "
        "injected quantity its construct measures (truth_quantity; biasbench.studies."
        "groundtruth.truth.TRUTH says which and why), on the study's own test (its "
        "occupations split by debiaswe's stereotype against its definitional words) or on "
        "a data set's items of the injected category, gender (truth_on). Quantities: "
        + "; ".join(f"{k}: {v}" for k, v in QUANTITIES.items())
        + ". truth_ci_low / truth_ci_high: the cluster bootstrap's percentile interval "
        f"({validity.N_BOOT:,} seeded resamples of the distributions, each drawn with all its "
        f"models) at the Bonferroni level 1 - {validity.ALPHA:g} / m over the m methods with a "
        "rho; truth_p: the bootstrap's two-sided p of rho = 0, truth_p_holm Holm's adjusted "
        "p across the methods; truth_verdict, fixed in code before any run "
        f"(biasbench.studies.validity.truth_verdict): found (or reversed) where truth_p_holm "
        f"< {validity.ALPHA:g}, else not found with detectable_rho, the smallest rho found "
        f"with {validity.POWER:.0%} power at the adjusted level on that many distributions "
        "(Fisher's z, Spearman's variance 1.06 / (n - 3)). truth_spearman_kept / "
        "models_kept: the same rho on the models that pass Schröder et al.'s learned-bias "
        "filter (R² of unmasking with training bias), a sensitivity row: LPBS, LPBS he/she "
        "and p-CEAT read the slot probabilities that filter selects on. synthesis_league_pairs "
        "compares the methods' rhos pair by pair."
    )


def league_table(inputs, settings):
    title = "Validity league table: every method against its truth, census, proxy and null"
    note = (
        _truth_rule(settings) + " truth_note: why a method has no rho, or what its rho stands "
        "on. reliability_words / _templates / _items: split-half reliability across the "
        "study's models (two complementary random halves of the words, the templates or a "
        "data set's items; Pearson r of the halves' scores, stepped up by Spearman-Brown: "
        "synthesis_reliability); reliability: the lowest of them. census_spearman: "
        "mean rho with the 2010 census over the static models (bommasani2022_predictive); "
        "extrinsic_spearman: rho across models with the WinoBias F1 gap; significant_real: "
        "share of the real models' cells that can reach alpha with p < alpha (the paper's "
        "test); significant_null: "
        "the false-positive share on the null models (clusters weighing alike, cells whose "
        "test cannot reach alpha left out), null_low / null_high its interval over "
        "null_clusters clusters, calibration_paper its verdict; significant_null_word, "
        "null_word_low / null_word_high, null_word_clusters, calibration_word: the same for "
        "the word-level test (p_word: every context of a stimulus word moves with it); "
        "significant_null_strata, null_strata_low / null_strata_high, null_strata_clusters, "
        "calibration_strata: the same for the word-level test within word-piece counts "
        "(p_word_strata: target words exchanged only with words of as many pieces). "
        "Verdicts: synthesis_null (both alphas and the counts); statistic_seconds: the "
        "statistic alone on a typical test (benchmarks/bench_methods.py, model inference "
        "excluded); cells: scored (model, test) cells on the real models."
    )
    return plain_table(league(inputs, settings), title, note)


def pairs_table(inputs, settings):
    title = "Validity league, paired: which method follows its truth better"
    _table, pairs = truth_inference(inputs, settings)
    note = (
        "Per pair of methods with a truth rho: difference = rho_a - rho_b on the study's "
        "models (each with its own truth, as synthesis_league), its percentile interval from "
        "the same cluster-bootstrap resamples for both methods (the distributions resampled; "
        f"{validity.N_BOOT:,} seeded draws) at the Bonferroni level 1 - "
        f"{validity.ALPHA:g} / pairs; p: the bootstrap's two-sided p of no difference, "
        "p_holm Holm's adjusted p across the pairs; detectable_difference: the smallest "
        f"difference found with {validity.POWER:.0%} power at that level (the bootstrap's "
        "standard error); verdict, fixed in code before any run: '<method> better' where "
        f"p_holm < {validity.ALPHA:g}, else no difference found, 'underpowered' where the "
        "observed difference is below the detectable one."
    )
    return plain_table(pairs, title, note)


def reliability_table(inputs, settings):
    title = "Reliability: split-half reliability of every method on the study's models"
    note = (
        "Per method and facet: each ground-truth model scores the method on two complementary "
        "random halves of the facet (words: the X and Y occupations and the definitional "
        "pairs; templates: the study's templates; items: a data set's items of the injected "
        "category), seeded; half_r: Pearson r of the two halves' scores across the models "
        "(models), the mean over splits; reliability: Spearman-Brown's 2 r / (1 + r), the "
        "reliability of the full-length score. A correlation between two measures is bounded "
        "by the square root of the product of their reliabilities (synthesis_agreement "
        "corrects for it)."
    )
    return plain_table(reliability(inputs), title, note)


#: the league figure's heat-map columns: (column, colour scale)
VALIDITY = (
    "census_spearman",
    "extrinsic_spearman",
    "significant_null",
    "significant_null_word",
    "significant_real",
)
#: the league figure's reliability columns
RELIABILITY = tuple(f"reliability_{facet}" for facet in rel.FACETS)


def figure_league(inputs, settings):
    import matplotlib.pyplot as plt

    frame = league(inputs, settings).set_index("method")
    n = len(frame)
    fig, (truth, heat, reliable) = plt.subplots(
        1,
        3,
        figsize=(14, 0.32 * n + 2),
        sharey=True,
        gridspec_kw={"width_ratios": [2.6, len(VALIDITY), len(RELIABILITY)]},
    )
    y = np.arange(n)
    rho = frame["truth_spearman"].astype(float).to_numpy()
    low, high = (frame[c].astype(float).to_numpy() for c in ("truth_ci_low", "truth_ci_high"))
    found = frame["truth_verdict"].astype(str).isin(["found", "reversed"]).to_numpy()
    for mask, style, label in (
        (found, dict(mfc="black"), "found (Holm-adjusted)"),
        (~found, dict(mfc="white"), "not found"),
    ):
        ok = np.isfinite(rho) & mask
        truth.errorbar(
            rho[ok],
            y[ok],
            xerr=[rho[ok] - low[ok], high[ok] - rho[ok]],
            fmt="o",
            color="black",
            ecolor="grey",
            capsize=2,
            markersize=4,
            label=label,
            **style,
        )
    kept = frame["truth_spearman_kept"].astype(float).to_numpy()
    ok = np.isfinite(kept)
    truth.plot(kept[ok], y[ok], "x", color="tab:red", markersize=4, label="filtered models only")
    for i in np.flatnonzero(~np.isfinite(rho)):
        truth.text(0, i, "n/a", ha="center", va="center", fontsize=6, color="grey")
    for i in np.flatnonzero(np.isfinite(rho)):
        quantity = frame["truth_quantity"].iloc[i]
        truth.text(-1.02, i, quantity, ha="left", va="center", fontsize=5, color="tab:blue")
    truth.axvline(0, color="grey", lw=0.5)
    truth.set_xlim(-1.05, 1.05)
    truth.set_yticks(y, frame.index, fontsize=7)
    truth.invert_yaxis()
    truth.legend(fontsize=5, loc="lower right")
    truth.set_title(
        "rho with its own truth (blue), Holm-adjusted\ninterval over independent draws",
        fontsize=8,
    )
    for ax, columns, scale in (
        (heat, VALIDITY, dict(vmin=-1, vmax=1, cmap="RdBu_r")),
        (reliable, RELIABILITY, dict(vmin=0, vmax=1, cmap="Greens")),
    ):
        grid = frame.reindex(columns=list(columns)).astype(float)
        ax.imshow(grid.to_numpy(), aspect="auto", **scale)
        ax.set_xticks(range(len(columns)), [c.replace("_", "\n") for c in columns], fontsize=7)
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                v = grid.iat[i, j]
                ax.text(
                    j,
                    i,
                    "n/a" if not np.isfinite(v) else f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=5,
                    color="grey" if not np.isfinite(v) else "black",
                )
    heat.set_title("census, extrinsic proxy, null and real models", fontsize=8)
    reliable.set_title("split-half reliability\n(Spearman-Brown)", fontsize=8)
    fig.suptitle("Validity league table (n/a: see the table's truth_note)", fontsize=9)
    return fig


#: the calibration figure's designs: (design, label, marker style)
DESIGN_STYLE = (
    ("paper", "paper's test (p_value)", dict(fmt="o", color="black", mfc="black")),
    ("word", "word-level test (p_word)", dict(fmt="s", color="tab:orange", mfc="white")),
    (
        "strata",
        "word-level test within word-piece counts (p_word_strata)",
        dict(fmt="^", color="tab:blue", mfc="white"),
    ),
)
#: each design's name, as the figure's legend and the cards say it
DESIGN_LABELS = {design: label for design, label, _style in DESIGN_STYLE}


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
        for design, column in syn.DESIGNS.items():
            p = np.sort(syn.p_column(mine, column).dropna().to_numpy())
            if len(p) < syn.MIN_CELLS:
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


def figure_calibration(inputs, settings):
    """Per method: the share of null cells below 0.01 and 0.05 with its exact interval for the
    paper's test and the word-level test side by side against the nominal alpha, and a QQ
    plot of the null p-values against the uniform."""
    import textwrap

    cells = _cells(inputs, settings)
    null = sorted(set(cells["model"]) & set(settings.null_models))
    table = syn.calibration(cells, null, settings.null_bases, syn.ALPHAS)
    counted = table.pivot(index="method", columns="design", values="cells_null")
    counted = counted.reindex(columns=list(syn.DESIGNS)).fillna(0)
    methods = [m for m in counted.index if counted.loc[m].sum() > 0]
    no_null = [m for m in counted.index if counted.loc[m].sum() == 0]
    no_word = [m for m in methods if counted.loc[m, "word"] == 0]
    if not methods:
        return no_data("no null-model cell with a p-value (null_models: none, or not scored)")
    plt = pyplot()
    fig, axes = plt.subplots(
        1,
        len(syn.ALPHAS) + 1,
        figsize=(14, 0.55 * len(methods) + 2.8),
        gridspec_kw={"width_ratios": [1] * len(syn.ALPHAS) + [1.3]},
    )
    y = np.arange(len(methods))
    rows = table.set_index(["method", "design"])
    for ax, alpha in zip(axes, syn.ALPHAS, strict=False):
        offsets = np.linspace(-0.27, 0.27, len(DESIGN_STYLE))  # each design's row in a band
        for offset, (design, label, style) in zip(offsets, DESIGN_STYLE, strict=True):
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
                label=label,
                **style,
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
    title = "Calibration on null models (random weights): " + (
        "; ".join(why) if why else "every method with both tests"
    )
    fig.suptitle("\n".join(textwrap.wrap(title, 160)), fontsize=8)
    return fig


def _table(name, title, render, note, reads=_reads):
    return Table(name, title, None, None, note, reads=reads, render=render)


TABLES = (
    _table(
        "synthesis_scores",
        "Every score, one tidy table",
        scores_table,
        "Primary rows of every method.",
        reads=lambda plan: [SCORES],
    ),
    _table(
        "synthesis_agreement",
        "Agreement between methods",
        agreement_table,
        "Rank correlation on one scale, corrected for reliability, per pair.",
        reads=lambda plan: [SCORES, *plan.injected_scores, *plan.injected_methods],
    ),
    _table(
        "synthesis_null",
        "Null-model control",
        null_table,
        "Significant results on random weights.",
        reads=_with_pieces,
    ),
    _table(
        "synthesis_null_trained",
        "Trained-weight null",
        trained_table,
        "Significant results on real vectors with each test's words reassigned at random.",
        reads=lambda plan: [SCORES, *plan.trained_files()],
    ),
    _table(
        "synthesis_null_floors",
        "Null-model cells that cannot reject",
        floors_table,
        "The null cells whose design cannot reach alpha, named and counted.",
        reads=_with_null,
    ),
    _table(
        "synthesis_null_pieces",
        "Null-model control by word-piece balance",
        pieces_table,
        "The transformers' null shares split by word-piece balance at several thresholds.",
        reads=_with_pieces,
    ),
    _table(
        "synthesis_tokenization",
        "Null-model control by tokenization",
        tokenization_table,
        "Per test and tokenizer: the word-piece gaps of X and Y and the word test's null share.",
        reads=_with_pieces,
    ),
    _table(
        "synthesis_survival",
        "Survival under the word-level test",
        survival_table,
        "Per paper's cells: the paper's significant cells that stay significant under p_word.",
        reads=lambda plan: [SCORES],
    ),
    _table(
        "synthesis_league",
        "Validity league table",
        league_table,
        "Every method against its own truth, census, proxy and null models.",
    ),
    _table(
        "synthesis_league_pairs",
        "Validity league, paired",
        pairs_table,
        "Paired differences of the methods' truth rhos, Holm-adjusted.",
    ),
    _table(
        "synthesis_reliability",
        "Split-half reliability",
        reliability_table,
        "Each method's split-half reliability over words, templates and items.",
    ),
)
FIGURES = (
    FigureTarget(
        "synthesis_agreement",
        "Agreement: clustered rank correlations between methods",
        figure_agreement,
        lambda plan: [SCORES, *plan.injected_scores, *plan.injected_methods],
        reading="Rho over the (model, test) cells both methods score; n below rho.",
    ),
    FigureTarget(
        "synthesis_calibration",
        "Calibration: false-positive shares and null p-values, paper against word test",
        figure_calibration,
        _with_null,
        reading="Markers: the share of null-model cells with p < alpha (clusters weighing "
        "alike; cells whose test cannot reach alpha left out), whiskers its 95% interval over "
        "the clusters, dotted line the nominal alpha, at the right the verdict and the "
        "clusters; filled circles the paper's test, hollow squares the word-level test, "
        "hollow triangles the word-level test within word-piece strata (n/a: no such p-value "
        "on the null models). Right: the null p-values against the uniform; "
        "a calibrated test follows the diagonal. Columns as in the synthesis_null table.",
    ),
    FigureTarget(
        "synthesis_league",
        "Validity league table",
        figure_league,
        _reads,
        reading="Columns as in the synthesis_league table.",
    ),
)
