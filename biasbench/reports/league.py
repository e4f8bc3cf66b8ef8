"""The validity league: every method against the bias injected into the ground-truth study's
models (each against its own truth, :mod:`biasbench.studies.validity`), its split-half
reliability (:mod:`biasbench.studies.reliability`), the census, an extrinsic proxy, its
calibration on null models and its cost; the paired comparisons of the methods' truth rhos and
the reliability table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasbench.io import read_json
from biasbench.methods.contract import QUANTITIES
from biasbench.reports.calibration import calibrated_columns, league_columns
from biasbench.reports.synthesis_inputs import (
    cells_with_truth,
    comparison_inputs,
    injected_rows,
    method_sources,
    reliability,
    source_cells,
    study_scores_inputs,
    synthesis_table,
)
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import FigureTarget, Inputs
from biasbench.studies import reliability as rel
from biasbench.studies import validity
from biasbench.studies.calibration import DESIGNS
from biasbench.studies.cells import MIN_CELLS, primary_cells
from biasbench.studies.groundtruth.every_method import TEST as STUDY_TEST
from biasbench.studies.groundtruth.truth import truth_of


def _why_no_truth(method, with_truth: pd.DataFrame) -> str:
    """Empty where the method has a truth rho, else why not, for the league's row; what its
    rho stands on where that needs saying."""
    rows = with_truth[(with_truth["method"] == method.name) & with_truth["truth"].notna()]
    declared = method.truth
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
    if len(rows) < MIN_CELLS:
        return f"fewer than {MIN_CELLS} models"
    notes = []
    if declared.reads_filter:
        notes.append("reads the slot probabilities the learned-bias filter selects on")
    if method.context == "natural":
        notes.append("on the study's templates, not natural contexts (its models read no corpus)")
    return "; ".join(notes)


def truth_inference(with_truth: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`validity.league_inference` on every study model, beside the same rho on the
    models that pass the learned-bias filter (``kept``) as a sensitivity column."""
    cells = with_truth.dropna(subset=["truth", "effect_size"])
    truths = {method: truth_of(method).quantity for method in cells["method"].unique()}
    table, pairs = validity.league_inference(cells, truths=truths)
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
    "p_floor": "truth_p_floor",
    "p_holm": "truth_p_holm",
    "detectable_rho": "detectable_rho",
    "verdict": "truth_verdict",
    "models_kept": "models_kept",
    "truth_spearman_kept": "truth_spearman_kept",
}


#: the D-study's reach: the units a data-set measure scores and needs, and its data set's
REACH_COLUMNS = (
    "items_scored",
    "items_needed",
    "items_needed_low",
    "items_needed_high",
    "items_held",
    "reachable",
)


def _reach(frames: pd.DataFrame, inputs: Inputs, league: pd.DataFrame) -> pd.DataFrame:
    """Per method whose D-study lengthens a data set's items: the units of the injected
    category the study scored, those the D-study needs (with its interval) and those the
    data set holds (rule study_items), and whether they reach the target."""
    counts = read_json(inputs["study_items"][0]) if inputs.get("study_items") else {}
    by_name = {c["name"]: c for c in counts.values()}
    tested = frames[frames["source"] == "dataset"].drop_duplicates("method")
    dataset_of = dict(zip(tested["method"], tested["test"], strict=True))
    rows = []
    for row in league[league["length_facet"] == "items"].itertuples():
        count = by_name.get(dataset_of.get(row.method), {})
        scored, held = (
            np.nan if count.get(k) is None else float(count[k]) for k in ("scored", "held")
        )
        needed = rel.items_needed(row.length_for_target, scored)
        rows.append(
            {
                "method": row.method,
                "items_scored": scored,
                "items_needed": needed,
                "items_needed_low": rel.items_needed(row.length_low, scored),
                "items_needed_high": rel.items_needed(row.length_high, scored),
                "items_held": held,
                "reachable": rel.reach(needed, held),
            }
        )
    return pd.DataFrame(rows, columns=["method", *REACH_COLUMNS])


def league(inputs: Inputs, settings) -> pd.DataFrame:
    """Per method: its truth and how well it follows it, its reliability, census, extrinsic
    proxy, null-model calibration, cost."""
    from biasbench.methods.registry import REGISTRY

    read = source_cells(inputs, settings)  # the real models' cells and every null source's
    cells, sources, _bases = read
    real = cells[sources.isna()]
    frames = injected_rows(inputs)
    with_truth = cells_with_truth(frames, inputs, settings)
    truth_frame, _pairs = truth_inference(with_truth)
    out = pd.DataFrame(
        {
            "method": [m.name for m in REGISTRY],
            "paper": [m.paper for m in REGISTRY],
            "family": [m.family for m in REGISTRY],
            "truth_quantity": [m.truth.quantity or "none" for m in REGISTRY],
            "truth_on": [m.truth.where for m in REGISTRY],
        }
    )
    truth_frame = truth_frame.rename(columns=TRUTH_COLUMNS)
    out = out.merge(truth_frame[["method", *TRUTH_COLUMNS.values()]], on="method", how="left")
    out["truth_verdict"] = out["truth_verdict"].astype(object).fillna("n/a")
    out["truth_note"] = [_why_no_truth(m, with_truth) for m in REGISTRY]
    out = out.merge(rel.by_method(reliability(inputs)), on="method", how="left")
    out = out.merge(_reach(frames, inputs, out), on="method", how="left")
    census = inputs.get("census", ())
    if census:
        pred = pd.DataFrame(read_json(census[0])["predictive"])
        pred = pred[pred["against"] == "unsigned"]
        per = pred.groupby("measure")["spearman"].mean().rename("census_spearman")
        out = out.merge(per, left_on="method", right_index=True, how="left")
    else:
        out["census_spearman"] = np.nan
    datasets = frames[frames["test"] != STUDY_TEST]
    all_models = pd.concat([real, primary_cells(datasets, method_sources(settings))])
    out = out.merge(validity.extrinsic(all_models), on="method", how="left")
    calibrated = calibrated_columns(read, settings)
    out = out.merge(calibrated, on="method", how="left")
    costs = inputs.get("costs", ())
    if costs:  # a committed benchmark table (benchmarks/), not a workflow output
        timed = pd.read_csv(costs[0], sep="\t")[["method", "seconds"]]
        out = out.merge(timed, on="method", how="left")
        out = out.rename(columns={"seconds": "statistic_seconds"})
    for design in DESIGNS:
        verdict = league_columns(design)["verdict"]
        out[verdict] = out[verdict].astype(object).fillna("n/a")
    out["cells"] = out["method"].map(real.groupby("method").size()).fillna(0).astype(int)
    return out


def _truth_rule(settings) -> str:
    return (
        "truth_spearman: Spearman rho, across every model of the ground-truth study (models; "
        "distributions: the independent draws of injected shares they come from, each model "
        "its own draw unless models share one), of the method's score with its truth: the "
        "injected quantity its construct measures (truth_quantity; each method's "
        "declaration, Method.truth, says which and why), on the study's own test (its "
        "occupations split by debiaswe's stereotype against its definitional words) or on "
        "a data set's items of the injected category, gender (truth_on). Quantities: "
        + "; ".join(f"{k}: {v}" for k, v in QUANTITIES.items())
        + ". truth_ci_low / truth_ci_high: the cluster bootstrap's percentile interval "
        f"({validity.N_BOOT:,} seeded resamples of the distributions, each drawn with all its "
        f"models) at the Bonferroni level 1 - {validity.ALPHA:g} / m over the m methods with a "
        "rho; truth_p: the two-sided permutation p of rho = 0 "
        f"({validity.N_PERM:,} seeded permutations of the truths across the distributions, "
        "each moved whole), truth_p_floor the smallest p that test can give, truth_p_holm "
        "Holm's adjusted p across the methods; truth_verdict, fixed in code before any run "
        f"(biasbench.studies.validity.truth_verdict): found (or reversed) where truth_p_holm "
        f"< {validity.ALPHA:g}, else not found with detectable_rho, the smallest rho found "
        f"with {validity.POWER:.0%} power at the adjusted level on that many distributions "
        "(Fisher's z, Spearman's variance 1.06 / (n - 3)). truth_spearman_kept / "
        "models_kept: the same rho on the models that pass Schröder et al.'s learned-bias "
        "filter (R² of unmasking with training bias), a sensitivity row: LPBS, LPBS he/she "
        "and p-CEAT read the slot probabilities that filter selects on. synthesis_league_pairs "
        "compares each method's rho with the best of its truth quantity."
    )


def league_table(inputs: Inputs, settings):
    title = "Validity league table: every method against its truth, census, proxy and null"
    note = (
        _truth_rule(settings) + " truth_note: why a method has no rho, or what its rho stands "
        "on. reliability_words / _templates / _items: split-half reliability across the "
        "study's models (two complementary random halves of the words, the templates or a "
        "data set's items; Pearson r of the halves' scores, stepped up by Spearman-Brown); "
        "reliability_fit: test-retest reliability across fine-tuning seeds (models fitted "
        "twice from one draw; synthesis_reliability); reliability: the generalizability "
        "coefficient over every facet at once, 1 - the sum of the facets' error shares "
        "(1 - reliability_<facet>: each facet's split leaves the others' errors in what both "
        "halves share); length_for_target: the D-study, the multiple of length_facet's "
        "length (a data set's items, else the words, else the templates; the other facets "
        f"as they are) at which the coefficient reaches {rel.TARGET:g} (below 1: a shorter "
        "measure would do; inf: the other facets' error alone keeps it below); "
        "reliability_low / _high and length_low / _high: their "
        f"{rel.LEVEL:.0%} intervals, the models resampled (each facet's interval at the "
        "Bonferroni level over the method's facets: split halves Fisher's z of the halves' "
        "r, refits the F distribution of the error ratio; the coefficient and the length "
        "at the corners of that box; coverage simulated in tests/test_reliability.py). "
        "items_scored / items_held: the units of the injected category (CrowS-Pairs' "
        "gender pairs, StereoSet's gender items, BEC-Pro's professions, ...) the study "
        "scored and its data set holds; items_needed (low / high): length_for_target "
        "(its interval) times items_scored; reachable: 'not with this data set' where "
        "items_needed exceeds items_held. "
        "census_spearman: mean rho with the 2010 census over the static models "
        "(bommasani2022_predictive); "
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


def pairs_table(inputs: Inputs, settings):
    title = "Validity league, paired: which method follows its truth better"
    _, pairs = truth_inference(cells_with_truth(injected_rows(inputs), inputs, settings))
    note = (
        "Each method against the best of its truth quantity (method_a: the highest rho "
        "against that truth, as synthesis_league's truth_quantity; rhos against different "
        "truths are not ranked, however they differ): difference = rho_a - rho_b on the "
        "study's models; se: its "
        "standard error over "
        "the same cluster-bootstrap resamples for both methods (the distributions resampled; "
        f"{validity.N_BOOT:,} seeded draws); p: the Wald p of no difference (difference / se; "
        "the bootstrap's own p cannot go below 2 / (draws + 1), which Holm across every pair "
        "would never let through), p_holm Holm's adjusted p across every pair of methods "
        "against one truth, the rows shown and the others (the best is chosen after seeing "
        "the rhos: Holm over its rows alone would not hold its level); ci_low / "
        f"ci_high: difference +- z x se at the Bonferroni level 1 - {validity.ALPHA:g} / "
        "those pairs; detectable_difference: the smallest "
        f"difference found with {validity.POWER:.0%} power at that level (the bootstrap's "
        "standard error); power: the chance of finding the observed difference at that "
        "level; verdict, fixed in code before any run: '<method> better' where "
        f"p_holm < {validity.ALPHA:g} and that method's own rho is found (else 'no "
        "difference claimed', saying whose rho is not found), else no difference found, "
        "'underpowered' where the observed difference is below the detectable one."
    )
    return plain_table(pairs, title, note)


def reliability_table(inputs: Inputs, settings):
    title = "Reliability of every method on the study's models: split halves and refits"
    note = (
        "Per method and facet: each ground-truth model scores the method on two complementary "
        "random halves of the facet (words: the X and Y occupations and the definitional "
        "pairs; templates: the study's templates; items: a data set's items of the injected "
        "category), seeded; half_r: Pearson r of the two halves' scores across the models "
        "(models), the mean over splits; reliability: Spearman-Brown's 2 r / (1 + r), the "
        "reliability of the full-length score. Facet fit: some models fine-tuned a second "
        "time from the same draw with another seed (groundtruth.retest per mean; models: "
        "the pairs); reliability 1 - s_e^2 / s_x^2, s_e^2 half the mean squared difference "
        "of the pairs, s_x^2 the score's variance across every model (no half_r; few pairs "
        "give a rough estimate). length_for_target: the D-study of the facet alone, the "
        "multiple of its length (words, templates, items; fit: refits averaged) at which "
        f"Spearman-Brown predicts reliability {rel.TARGET:g}, target (1 - r) / (r (1 - "
        "target)) with r the reliability (below 1: a shorter measure would do; inf: none "
        "reaches it). Each facet's reliability is 1 - its error share of the score's "
        "variance; a method's reliability over every facet (synthesis_league) is 1 - the "
        "sum of them. scored: the models with a score (fit: beside the pairs); error_ratio: "
        f"fit's s_e^2 / s_x^2; reliability_low / _high: the facet's {rel.LEVEL:.0%} "
        "interval, the models resampled (split halves: Fisher's z of half_r over the "
        "models; fit: the F(pairs, scored - 1) distribution of the error ratio)."
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
#: the league figure's reliability columns: each facet's, then over every facet (with its
#: interval printed in the cell)
RELIABILITY = (*(f"reliability_{facet}" for facet in rel.FACETS), "reliability")


def figure_league(inputs: Inputs, settings):
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
                shown = "n/a" if not np.isfinite(v) else f"{v:.2f}"
                if columns[j] == "reliability" and np.isfinite(v):
                    ends = frame[["reliability_low", "reliability_high"]].iloc[i]
                    shown += "\n[{:.2f}, {:.2f}]".format(*ends)
                ax.text(
                    j,
                    i,
                    shown,
                    ha="center",
                    va="center",
                    fontsize=5,
                    color="grey" if not np.isfinite(v) else "black",
                )
    heat.set_title("census, extrinsic proxy, null and real models", fontsize=8)
    reliable.set_title(
        f"reliability per facet, and over every facet\n(its {rel.LEVEL:.0%} interval)", fontsize=8
    )
    fig.suptitle("Validity league table (n/a: see the table's truth_note)", fontsize=9)
    return fig


TABLES = (
    synthesis_table(
        "synthesis_league",
        "Validity league table",
        league_table,
        "Every method against its own truth, census, proxy and null models.",
    ),
    synthesis_table(
        "synthesis_league_pairs",
        "Validity league, paired",
        pairs_table,
        "Paired differences of the methods' truth rhos, Holm-adjusted.",
        reads=study_scores_inputs,
    ),
    synthesis_table(
        "synthesis_reliability",
        "Split-half reliability",
        reliability_table,
        "Each method's split-half reliability over words, templates and items.",
        reads=study_scores_inputs,
    ),
)
FIGURES = (
    FigureTarget(
        "synthesis_league",
        "Validity league table",
        figure_league,
        comparison_inputs,
        reading="Columns as in the synthesis_league table.",
    ),
)
