"""Schröder et al., *Evaluating Metrics for Bias in Word Embeddings*: its tables and figures,
each declared with the files it reads."""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasbench import paths
from biasbench.io import read_json
from biasbench.reports.figures import no_data
from biasbench.reports.tables import ReportSettings, finish, plain_table, study_table
from biasbench.reports.targets import FigureTarget, Inputs, Table, published_doc, the_file
from biasbench.studies.groundtruth.statistics import (
    WIDTHS,
    WORD_SCORES,
    angles,
    kept,
    robustness,
    set_level_r2,
    subset_robustness,
    word_r2,
)
from biasbench.studies.groundtruth.truth import MAX_DISCRETE_SHARE, discrete_level_share
from biasbench.studies.properties import PROPERTIES, property_matrix
from biasbench.studies.schroeder2021 import S31, S31_SETS, s31_cells

PAPER = "Schröder et al. (2021)"
#: its tables' and figures' section of the report (biasbench.reports.catalog)
SECTION = PAPER
#: its place among the catalog's modules (biasbench.reports.catalog): the report's order
ORDER = 2
PUBLISHED = "resources/published/schroeder2021.yaml"


def _s31_reads(plan) -> dict[str, list[str]]:
    """The paper's values, and the example's contexts and every model's vectors of them (none
    where the configuration does not run the example: the table says so)."""
    models = [
        j.model for j in plan.jobs if (j.test, j.source, j.descriptor) == (S31, "words", "XY")
    ]
    contexts = [paths.CONTEXTS.format(source="words", test=S31, descriptor=d) for d in S31_SETS]
    return {
        "published": [PUBLISHED],
        "contexts": contexts if models else [],
        "embeddings": [paths.EMBEDDINGS.format(model=m, source="words", test=S31) for m in models],
    }


def published_only(plan) -> dict[str, list[str]]:
    return {"published": [PUBLISHED]}


def s31(inputs: Inputs, settings: ReportSettings) -> pd.DataFrame:
    """Section 3.1 on every model, beside the paper's BERT values."""
    cells = s31_cells(the_file(inputs, "published"), inputs["contexts"], inputs["embeddings"])
    return finish(cells, settings.alpha)


SYMBOLS = {"yes": "✓", "no": "✗", "conditional": "(✓)", "": "", "blank": ""}
#: the paper's row names for our scores
PAPER_ROWS = {
    "WEAT word score": "WEAT_word",
    "WEAT d": "WEAT",
    "MAC word": "MAC_word",
    "MAC": "MAC",
    "Direct Bias word": "DirectBias_word",
    "Direct Bias": "DirectBias",
    "SAME word": "SAME_word",
    "SAME": "SAME",
    "SAME stereotype": "SAME_stereo",
    "SAME skew": "SAME_skew",
}


def properties(inputs: Inputs, settings: ReportSettings) -> tuple[str, str, str]:
    """Tables 1/4 from running the checks of ``biasbench.studies.properties``, beside the
    paper's table; cells where they differ are marked and explained."""
    published = published_doc(inputs)
    paper = published["property_matrix"]["rows"]
    found = pd.DataFrame(property_matrix())
    found["paper"] = [
        paper[PAPER_ROWS[s]][p] for s, p in zip(found["score"], found["property"], strict=True)
    ]
    found["paper"] = found["paper"].replace("blank", "")
    found["agrees"] = found["verdict"] == found["paper"]
    wide = pd.DataFrame(
        {
            p: [
                SYMBOLS[r.verdict] + ("" if r.agrees else f" (paper {SYMBOLS[r.paper] or '-'})")
                for r in found[found["property"] == p].itertuples()
            ]
            for p in PROPERTIES
        },
        index=list(dict.fromkeys(found["score"])),
    )
    differ = found[~found["agrees"]]
    note = (
        "Each cell is decided by running the score on constructed inputs under several "
        "attribute configurations (biasbench/studies/properties.py); ✓ holds, ✗ a "
        "counterexample was found, (✓) only when the stereotype follows the X/Y split. Where "
        "the paper's table says otherwise the cell shows it in brackets: "
        + "; ".join(f"{r.score} / {r.property}: {r.evidence}" for r in differ.itertuples())
        + ". The paper's Theorem 1 (a trustworthy score is skew- and stereotype-sensitive) "
        "agrees with these cells and contradicts its own table."
    )
    _, md, html = plain_table(wide.rename_axis("score").reset_index(), PROPERTIES_TITLE, note)
    return found.to_csv(index=False, lineterminator="\n"), md, html


PROPERTIES_TITLE = "Tables 1 and 4: properties of the bias scores, from running the checks"


TABLES = (
    Table(
        "schroeder2021_properties",
        PROPERTIES_TITLE,
        None,
        None,
        "Comparable, trustworthy, skew- and stereotype-sensitive, decided by running each "
        "score on constructed inputs; the paper's own table beside.",
        paper=PAPER,
        reads=published_only,
        render=properties,
    ),
    Table(
        "schroeder2021_s31",
        "Section 3.1: WEAT word scores of six occupations and d for three choices of X and Y",
        None,
        None,
        "Word scores s(w, A, B) (mean cosine with the male minus the female definitional words "
        "of Bolukbasi et al.; words alone, mean over subtokens) and WEAT effect sizes d with the "
        "population and the sample standard deviation; the paper reports d on BERT (which sd it "
        "used is not stated), shown in both rows. Its point: d(X', Y') is near 0 although X' and "
        "Y' are the most stereotyped occupations.",
        paper=PAPER,
        make=s31,
        reads=_s31_reads,
    ),
)


# --- the ground-truth study (section 5) ---------------------------------------------------


def _study_reads(plan) -> dict[str, list[str]]:
    """The published numbers, the masked LM's provenance (its head's accuracy), and the
    records of every model of the study; nothing of the study when it is not configured."""
    if not plan.groundtruth:
        return published_only(plan)
    return {
        **published_only(plan),
        "study_model": [plan.groundtruth_model_file()],
        "study_records": plan.study_files()["study_records"],
    }


def _records(inputs: Inputs) -> tuple[dict, dict, list[dict], str]:
    """(published numbers, masked-LM provenance, every model's record, the representation)."""
    published = published_doc(inputs)
    if not inputs.get("study_records"):
        return published, {}, [], "alone"
    model = read_json(the_file(inputs, "study_model"))
    files = [read_json(p) for p in inputs["study_records"]]
    records = [r for f in files for r in f["models"]]
    return published, model, records, files[0]["settings"]["representation"]


NOT_RUN = "The configuration does not run the ground-truth study (groundtruth: null)."


def _study_records(inputs: Inputs):
    published, model, records, rep = _records(inputs)
    return (published, model, records, rep) if records else None


def _study(title: str):
    return study_table(title, _study_records, NOT_RUN)


def _beside_paper(ours: dict, paper: dict, names: dict[str, str]) -> pd.DataFrame:
    """Our value of each score beside the paper's (``names``: our name -> the paper's key)."""
    return pd.DataFrame(
        [{"score": k, "ours": ours[k], "paper": paper[v]} for k, v in names.items()]
    )


@_study("Section 5: the ground-truth models, how many learned the bias, and their cost")
def study_summary(_published, model, records, _rep, settings):
    frame = pd.DataFrame(records)
    summary = (
        frame.groupby(["mu", "sigma", "alignment"])
        .agg(
            models=("kept", "size"),
            kept=("kept", "sum"),
            r2_unmasking_training=("r2_unmasking_training", "mean"),
            heldout_accuracy=("heldout_accuracy", "mean"),
        )
        .reset_index()
    )
    head = model.get("mlm_head", {})
    note = (
        f"{len(records)} models of {model.get('name', 'the masked LM')} "
        f"({model.get('weights', '')}); "
        f"{int(frame['kept'].sum())} learned the bias (R² of unmasking vs training bias > "
        f"the threshold) and count in the other tables. The masked LM's head: held-out "
        f"masked-token accuracy {head.get('heldout_accuracy', float('nan')):.3f} against "
        f"{head.get('unigram_baseline_accuracy', float('nan')):.3f} for always predicting "
        f"'{head.get('most_frequent_token', '?')}'. The paper fine-tunes all of BERT, 330 "
        "models; here the top layer of a small encoder, so compare shapes, not values."
    )
    return summary, note


@_study("Section 5: the study's design, and how much of each truth its levels set")
def study_design(_published, _model, records, _rep, settings):
    frame = discrete_level_share(records)
    note = (
        f"{len(records)} models. Per injected quantity (the truths the league holds each "
        "method against), the share of its variance across the models that the design's "
        "discrete levels set: R² on the main effects of every parameter (mu, sigma, alignment) "
        "whose values repeat (discrete_factors). At most "
        f"{MAX_DISCRETE_SHARE}: otherwise a rho against the truth mostly ranks a few levels. "
        "Schröder et al.'s grid sets most of it; a Latin hypercube (groundtruth.design) draws "
        "every model's own mean, spread and alignment, so no level repeats."
    )
    return frame, note


@_study("Section 5.2.1: angle between the PCA bias direction and SAME's mean direction")
def study_angles(published, _model, records, rep, settings):
    ours = pd.DataFrame(angles(records, rep))
    paper = published["section_5_2_1_angles"]
    ours["paper (degrees)"] = [paper["similar_correlation"], paper["worse_correlation"]]
    note = (
        "Mean angle in degrees over the kept models whose SAME word-level R² with the training "
        "bias is at least 0.6, split by how much worse Direct Bias correlates; 'n/a' (no models) "
        f"when no model reaches 0.6. Word vectors: {rep}."
    )
    return ours, note


@_study("Table 2: robustness of the word-level scores across repeats of a distribution")
def study_table2(published, _model, records, rep, settings):
    ours = robustness(records, rep)
    paper = published["table_2"]["values"]
    names = {"Direct Bias": "DirectBias", "WEAT": "WEAT", "SAME": "SAME", "unmasking": "unmask"}
    frame = _beside_paper(ours, paper, names)
    note = (
        "Per model the sd of its word scores; within each distribution the mean percentage "
        "difference of these sds over pairs of repeats; the mean over the distributions "
        "(lower: more robust; empty when every distribution has one model, as in the default "
        f"grid: config/presets/schroeder-scale.yaml has 5 repeats). Word vectors: {rep}."
    )
    return frame, note


@_study("Table 3: robustness of the set-level scores to the choice of words")
def study_table3(published, _model, records, rep, settings):
    ours = subset_robustness(records, rep)
    paper = published["table_3"]["values"]
    names = {
        "MAC": "MAC",
        "WEAT": "WEAT",
        "Direct Bias": "DirectBias",
        "SAME": "SAME",
        "SAME stereotype": "SAME_stereo",
        "SAME skew": "SAME_skew",
    }
    frame = _beside_paper(ours, paper, names)
    note = (
        "Mean over the kept models of the mean |b(W_i) - b(W)| over 100 random half-size "
        "subsets of the occupations, divided by the width of the score's interval (WEAT d 4, "
        f"MAC and skew 2, the others 1). Word vectors: {rep}."
    )
    return frame, note


@_study("Figure 9: R² of the set-level scores with the unmasking bias across models")
def study_fig9_table(_published, _model, records, rep, settings):
    frame = pd.DataFrame(set_level_r2(records, rep))
    note = (
        "Pearson r², across the kept models, of each set score with the mean, the sd and the "
        "absolute sum |0.5 - p| of the models' unmasking bias; p < 0.05 is significant as in the "
        f"paper (uncorrected). Word vectors: {rep}."
    )
    return frame, note


def figure6(inputs: Inputs, settings):
    import matplotlib.pyplot as plt

    published, _, records, _ = _records(inputs)
    if not records:
        return no_data(NOT_RUN)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    paper = published["figure_6"]["mean_r2_approx"]
    paper_of = {
        "WEAT": paper["WEAT_SAME"],
        "SAME": paper["WEAT_SAME"],
        "MAC": paper["MAC"],
        "Direct Bias": paper["DirectBias"],
    }
    for ax, against in zip(axes, ("training bias", "unmasking bias"), strict=True):
        for k, rep in enumerate(("alone", "in templates")):
            rows = [r for r in word_r2(records, rep) if r["against"] == against]
            x = np.arange(len(rows)) + (k - 0.5) * 0.35
            ax.bar(
                x,
                [r["mean"] for r in rows],
                0.35,
                yerr=[r["sd"] for r in rows],
                capsize=3,
                label=f"words {rep}",
            )
        ax.scatter(
            range(len(rows)),
            [paper_of[r["score"]] for r in rows],
            marker="_",
            s=400,
            color="k",
            label="paper (approx., vs training bias)" if against == "training bias" else None,
        )
        ax.set_xticks(range(len(rows)), [r["score"] for r in rows])
        ax.set_title(f"R² of word scores with the {against}")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("mean ± sd over kept models")
    fig.suptitle("Word-level scores against the injected bias (cf. Schröder et al. Figure 6)")
    return fig


def figure9(inputs: Inputs, settings):
    import matplotlib.pyplot as plt

    _, _, records, rep = _records(inputs)
    if not records:
        return no_data(NOT_RUN)
    frame = pd.DataFrame(set_level_r2(records, rep))
    grid = frame.pivot(index="score", columns="summary", values="r2").reindex(
        index=list(WIDTHS), columns=["mean", "sd", "absolute"]
    )
    pvals = frame.pivot(index="score", columns="summary", values="p").reindex_like(grid)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.imshow(grid.to_numpy(dtype=float), vmin=0, vmax=1, cmap="Blues")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            value, p = grid.iat[i, j], pvals.iat[i, j]
            text = "n/a" if np.isnan(value) else f"{value:.2f}" + ("*" if p < 0.05 else "")
            ax.text(
                j, i, text, ha="center", va="center", fontweight="bold" if p < 0.05 else "normal"
            )
    ax.set_xticks(range(3), [f"unmasking {c}" for c in grid.columns])
    ax.set_yticks(range(len(grid)), grid.index)
    ax.set_title(f"R² across models (* and bold: p < 0.05); word vectors {rep}", fontsize=9)
    return fig


def figure5(inputs: Inputs, settings):
    import matplotlib.pyplot as plt

    _, _, records, rep = _records(inputs)
    models = kept(records)
    if not models:
        return no_data(NOT_RUN if not records else "no model learned the bias")
    model = models[0]
    p = np.array(model["training_bias"])
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
    for ax, score in zip(axes, WORD_SCORES, strict=True):
        y = np.array(model["representations"][rep]["word_scores"][score])
        ax.scatter(p, y, s=8)
        ax.set_xlabel("training bias (share of male pronouns)")
        ax.set_title(f"{score} (R² {model['representations'][rep]['r2_training'][score]:.2f})")
    axes[0].set_ylabel("word score")
    fig.suptitle(
        f"One model (mu {model['mu']:.3g}, sigma {model['sigma']:.3g}, alignment "
        f"{model['alignment']:.3g}, repeat {model['repeat']}): "
        "word scores against the injected bias (cf. Figure 5)"
    )
    return fig


def _study_table(name, title, render, note):
    return Table(name, title, None, None, note, paper=PAPER, reads=_study_reads, render=render)


TABLES = TABLES + (
    _study_table(
        "schroeder2021_groundtruth",
        "Section 5: the ground-truth models",
        study_summary,
        "How many models learned the injected bias, their cost, and the masked LM's head.",
    ),
    _study_table(
        "groundtruth_design",
        "Section 5: the design's discrete levels",
        study_design,
        "Each truth quantity's variance set by the design's discrete levels (at most half).",
    ),
    _study_table(
        "schroeder2021_angles",
        "Section 5.2.1: PCA vs mean bias direction",
        study_angles,
        "Mean angle between Direct Bias' PCA direction and SAME's mean direction.",
    ),
    _study_table(
        "schroeder2021_table2",
        "Table 2: robustness of word-level scores",
        study_table2,
        "Percentage difference of the word scores' spread between repeats.",
    ),
    _study_table(
        "schroeder2021_table3",
        "Table 3: robustness to the choice of words",
        study_table3,
        "Deviation of set scores on random half subsets of the occupations.",
    ),
    _study_table(
        "schroeder2021_fig9",
        "Figure 9 as a table: set-level R² with unmasking bias",
        study_fig9_table,
        "R² and p of each set score with the unmasking bias' mean, sd and absolute sum.",
    ),
)
FIGURES = (
    FigureTarget(
        "schroeder2021_fig5",
        "Figure 5: one model's word scores against the training bias",
        figure5,
        _study_reads,
        paper=PAPER,
        reading="One point per occupation.",
    ),
    FigureTarget(
        "schroeder2021_fig6",
        "Figure 6: word-level R² against the injected bias",
        figure6,
        _study_reads,
        paper=PAPER,
        reading="Bars: mean over the kept models, whiskers: sd; both word representations; black "
        "ticks: the paper's approximate means.",
    ),
    FigureTarget(
        "schroeder2021_fig9",
        "Figure 9: set-level R² with the unmasking bias",
        figure9,
        _study_reads,
        paper=PAPER,
        reading="Bold with an asterisk: p < 0.05 (uncorrected, as the paper).",
    ),
)
