"""The comparison no paper made: every method against every other (agreement), against
injected ground truth, the census and an extrinsic proxy, and against null models (the
validity league table), from the scores of all four papers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasbench import rows
from biasbench.io import read_json, read_tsv
from biasbench.reports.figures import no_data
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import SCORES, FigureTarget, Table
from biasbench.studies import synthesis as syn
from biasbench.studies.groundtruth.every_method import QUANTITIES, injected_quantity
from biasbench.studies.groundtruth.every_method import TEST as STUDY_TEST

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
    files = [SCORES, *plan.injected_scores, *plan.injected_methods, *plan.groundtruth]
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


def _with_truth(frames: pd.DataFrame, inputs: list[str], settings) -> pd.DataFrame:
    """The study models' primary cells with the bias injected into each (column ``truth``):
    on the study's own test the quantity the method should track, on a data set the mean
    male probability mu; only the models that learned the bias (Schröder et al.'s R² bar)."""
    from biasbench.methods.registry import get

    records = {
        r["name"]: r
        for p in inputs
        if Path(p).parent.name == "groundtruth" and p.endswith(".json")
        for r in read_json(p)["models"]
    }
    cells = syn.primary_cells(frames, _context(settings))
    cells = cells[np.array([records.get(m, {}).get("kept", False) for m in cells["model"]], bool)]

    def truth(row) -> float:
        record = records[row.model]
        if row.test == STUDY_TEST:
            return record["injected"][injected_quantity(get(row.method))]
        return record["mu"] if row.descriptor == "all" else np.nan

    return cells.assign(truth=[truth(r) for r in cells.itertuples(index=False)])


def _scores(inputs: list[str]) -> pd.DataFrame:
    return read_tsv(inputs[0])


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


def agreement_pairs(inputs, settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    cells = _cells(inputs, settings)
    real = cells[~_null_mask(cells, settings)]
    return real, syn.agreement(real, settings.alpha)


def model_agreement(inputs, settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Agreement across models (the zoo and the ground-truth study's injected-bias models):
    every method's mean score per model."""
    cells = _cells(inputs, settings)
    injected = [p for p in inputs if p.endswith(".datasets.tsv")]
    if injected:
        frames = pd.concat([read_tsv(p) for p in injected], ignore_index=True)
        cells = pd.concat([cells, syn.primary_cells(frames, _context(settings))], ignore_index=True)
    per_model = syn.model_cells(cells[~_null_mask(cells, settings)])
    return per_model, syn.agreement(per_model, settings.alpha)


def agreement_table(inputs, settings):
    title = "Agreement between methods over the cells both score"
    _, pairs = agreement_pairs(inputs, settings)
    _, across = model_agreement(inputs, settings)
    pairs = pd.concat(
        [pairs.assign(over="(model, test) cells"), across.assign(over="models")],
        ignore_index=True,
    )
    pairs = pairs[pairs["n"] > 0]
    note = (
        "Cells: (model, test, descriptor) of the real models both methods score (primary rows). "
        "rho: Spearman over the shared cells with a 95% percentile bootstrap interval (1,000 "
        f"seeded resamples of the cells; n < {syn.MIN_CELLS}: none); sign agreement: share of "
        "shared cells with the same sign (a magnitude such as Direct Bias, MAC or DivDist is "
        "never negative); significance agreement: share of the cells both test with the same "
        f"verdict at p < {settings.alpha}. Pairs without a shared cell are left out (the "
        "data-set measures share cells only with the measures of their own data set). Rows "
        "'over models' compare each method's mean score per model across the zoo and the "
        "ground-truth study's injected-bias models."
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


def null_table(inputs, settings):
    title = "Null-model control: significant results on random weights"
    cells = _cells(inputs, settings)
    null = sorted(set(cells["model"]) & set(settings.null_models))
    share = syn.significant_share(cells, null, settings.alpha)
    note = (
        f"Per method, the share of its tested cells with p < {settings.alpha} on the null "
        f"models ({', '.join(null) or 'none configured'}: each transformer's architecture and "
        "tokenizer with seeded random weights) and on the real models. A measure that finds "
        "significant bias in random weights at a rate far above alpha reads something other "
        "than learned associations (the tokenizer, word frequency, the templates). Methods "
        "without a test (MAC, Direct Bias, the data-set percentages, DivDist) have no row."
    )
    return plain_table(share, title, note)


def _why_no_truth(method, with_truth: pd.DataFrame) -> str:
    """Empty where the method has a truth rho, else why not, for the league's row."""
    rows = with_truth[with_truth["method"] == method.name]
    if with_truth.empty:
        return "the ground-truth study did not run"
    if "transformer" not in method.model_kinds:
        return "static vectors only (on a transformer it is s-SEAT on the words alone)"
    if rows.empty:
        return "not run on the study's models"
    if rows["effect_size"].nunique() < 2 or rows["truth"].nunique() < 2:
        return "no spread across the study's models"
    if len(rows) < syn.MIN_CELLS:
        return f"fewer than {syn.MIN_CELLS} kept models"
    if method.context == "natural":
        return "on the study's templates, not natural contexts (its models read no corpus)"
    return ""


def league(inputs, settings) -> pd.DataFrame:
    """Per method: ground truth, census, extrinsic proxy, null-model share, cost."""
    from biasbench.methods.registry import REGISTRY

    scores = _scores(inputs)
    cells = syn.primary_cells(scores, _context(settings))
    real = cells[~_null_mask(cells, settings)]
    null = sorted(set(cells["model"]) & set(settings.null_models))
    frames = _injected(inputs)
    with_truth = _with_truth(frames, inputs, settings)
    truth_frame = syn.ground_truth(with_truth)
    out = pd.DataFrame(
        {
            "method": [m.name for m in REGISTRY],
            "paper": [m.paper for m in REGISTRY],
            "family": [m.family for m in REGISTRY],
        }
    )
    out = out.merge(truth_frame, on="method", how="left")
    out["truth_note"] = [_why_no_truth(m, with_truth) for m in REGISTRY]
    draws = [read_tsv(p) for p in inputs if p.endswith(".robustness.tsv")]
    if draws:
        on_all = (with_truth["test"] == STUDY_TEST) | (with_truth["descriptor"] == "all")
        study = with_truth[on_all].groupby(["method", "model"], as_index=False)["effect_size"]
        study = study.mean()  # a data set's score on all its items (one row per task or form)
        out = out.merge(syn.robustness(pd.concat(draws), study), on="method", how="left")
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
    share = syn.significant_share(cells, null, settings.alpha)
    out = out.merge(
        share[["method", "significant_null", "significant_real"]], on="method", how="left"
    )
    costs = [p for p in inputs if p.endswith("method_costs.tsv")]
    if costs:  # a committed benchmark table (benchmarks/), not a workflow output
        timed = pd.read_csv(costs[0], sep="\t")[["method", "seconds"]]
        out = out.merge(timed, on="method", how="left")
        out = out.rename(columns={"seconds": "statistic_seconds"})
    out["cells"] = out["method"].map(real.groupby("method").size()).fillna(0).astype(int)
    return out


def league_table(inputs, settings):
    title = "Validity league table: every method against ground truth, census, proxy and null"
    quantities = "; ".join(f"{k}: {v}" for k, v in QUANTITIES.items())
    note = (
        "truth_spearman: Spearman rho, across the ground-truth study's models that learned the "
        "bias (Schröder et al.'s R² bar; models), of the method's score with the bias injected "
        "into each, with a 95% bootstrap interval (models resampled, 1,000 seeded draws). On "
        "the study's own test (its occupations split by debiaswe's stereotype against its "
        "definitional words, in the configured templates; LPBS: he against she in the study's "
        "test templates), the injected quantity the method should rise with ("
        f"{quantities}; a test of X against Y: difference; SAME's skew: direction; its "
        "stereotype: spread; a magnitude: magnitude); on a data set the mean male probability "
        "mu. truth_note: why a method has no rho, or what its rho stands on. words_noise / "
        "templates_noise / items_noise: the mean |score on a random half of the words "
        "(templates; a data set's items) - score on all| over the study models, divided by the "
        "standard deviation of the score across them (below 1: the choice moves the score less "
        "than the injected bias does). census_spearman: "
        "mean rho with the 2010 census over the static models (bommasani2022_predictive); "
        "extrinsic_spearman: rho across models with the WinoBias F1 gap; significant_null / "
        "_real: share of p < alpha on random-weight and real models; statistic_seconds: the "
        "statistic alone on a typical test (benchmarks/bench_methods.py, model inference "
        "excluded); cells: scored (model, test) cells on the real models."
    )
    return plain_table(league(inputs, settings), title, note)


#: the league figure's heat-map columns: (column, colour scale)
VALIDITY = ("census_spearman", "extrinsic_spearman", "significant_null", "significant_real")
NOISE = syn.NOISE


def figure_league(inputs, settings):
    import matplotlib.pyplot as plt

    frame = league(inputs, settings).set_index("method")
    n = len(frame)
    fig, (truth, validity, noise) = plt.subplots(
        1,
        3,
        figsize=(13, 0.32 * n + 2),
        sharey=True,
        gridspec_kw={"width_ratios": [2.2, len(VALIDITY), len(NOISE)]},
    )
    y = np.arange(n)
    rho = frame["truth_spearman"].astype(float).to_numpy()
    low = frame.get("truth_ci_low", pd.Series(np.nan, frame.index)).astype(float).to_numpy()
    high = frame.get("truth_ci_high", pd.Series(np.nan, frame.index)).astype(float).to_numpy()
    ok = np.isfinite(rho)
    truth.errorbar(
        rho[ok],
        y[ok],
        xerr=[rho[ok] - low[ok], high[ok] - rho[ok]],
        fmt="o",
        color="black",
        ecolor="grey",
        capsize=2,
        markersize=3,
    )
    for i in np.flatnonzero(~ok):
        truth.text(0, i, "n/a", ha="center", va="center", fontsize=6, color="grey")
    truth.axvline(0, color="grey", lw=0.5)
    truth.set_xlim(-1.05, 1.05)
    truth.set_yticks(y, frame.index, fontsize=7)
    truth.invert_yaxis()
    truth.set_title("ground truth: rho with the\ninjected bias (95% interval)", fontsize=8)
    for ax, columns, scale in (
        (validity, VALIDITY, dict(vmin=-1, vmax=1, cmap="RdBu_r")),
        (noise, NOISE, dict(vmin=0, vmax=2, cmap="Oranges")),
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
    validity.set_title("census, extrinsic proxy, null and real models", fontsize=8)
    noise.set_title(
        "robustness: half the words, templates\nor items, / spread across models", fontsize=8
    )
    fig.suptitle("Validity league table (n/a: see the table's truth_note)", fontsize=9)
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
        "Rank correlation, sign and significance agreement per pair.",
        reads=lambda plan: [SCORES, *plan.injected_scores],
    ),
    _table(
        "synthesis_null",
        "Null-model control",
        null_table,
        "Significant results on random weights.",
        reads=lambda plan: [SCORES],
    ),
    _table(
        "synthesis_league",
        "Validity league table",
        league_table,
        "Every method against ground truth, census, proxy and null models.",
    ),
)
FIGURES = (
    FigureTarget(
        "synthesis_agreement",
        "Agreement: clustered rank correlations between methods",
        figure_agreement,
        lambda plan: [SCORES, *plan.injected_scores],
        reading="Rho over the (model, test) cells both methods score; n below rho.",
    ),
    FigureTarget(
        "synthesis_league",
        "Validity league table",
        figure_league,
        _reads,
        reading="Columns as in the synthesis_league table.",
    ),
)
