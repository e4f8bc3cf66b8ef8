"""Agreement between the methods, the comparison no paper made: every method against every
other, as rank correlations on one scale over the (model, test) cells both score and across
models (the zoo and the ground-truth study's injected-bias models)
(:mod:`biasbench.studies.agreement`); not corrected for reliability (:data:`UNCORRECTED`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasbench.io import read_tsv
from biasbench.reports.figures import no_data
from biasbench.reports.synthesis_inputs import (
    comparison_cells,
    method_sources,
    null_mask,
    synthesis_table,
)
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import SCORES, FigureTarget, Inputs
from biasbench.studies.agreement import (
    MIN_LEVELS,
    agreement,
    cluster_order,
    correlation_matrix,
)
from biasbench.studies.cells import MIN_CELLS, model_cells, primary_cells


def _scales() -> dict[str, dict]:
    """Per method: whether it is a magnitude (keeps its value when X and Y swap) and its
    neutral point, for agreement on one scale."""
    from biasbench.methods.registry import REGISTRY

    return {
        "magnitude": {m.name: m.swap == "keeps" for m in REGISTRY},
        "neutral": {m.name: m.neutral_point for m in REGISTRY},
    }


#: the columns of a correction for attenuation, left out: the only reliabilities are the
#: ground-truth study's, measured on its fine-tunes of one masked LM, not on these cells
UNCORRECTED = ("reliability_a", "reliability_b", "spearman_corrected", "corrected_beyond_1")


def _agreement(cells: pd.DataFrame, settings) -> pd.DataFrame:
    """Agreement on one scale, uncorrected (:data:`UNCORRECTED`)."""
    return agreement(cells, settings.alpha, **_scales()).drop(columns=list(UNCORRECTED))


def agreement_pairs(inputs: Inputs, settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    cells = comparison_cells(inputs, settings)
    real = cells[~null_mask(cells, settings)]
    return real, _agreement(real, settings)


def model_agreement(inputs: Inputs, settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Agreement across models (the zoo and the ground-truth study's injected-bias models):
    every method's mean score per model."""
    cells = comparison_cells(inputs, settings)
    injected = inputs.get("study_datasets", ())
    if injected:
        frames = pd.concat([read_tsv(p) for p in injected], ignore_index=True)
        cells = pd.concat(
            [cells, primary_cells(frames, method_sources(settings))], ignore_index=True
        )
    per_model = model_cells(cells[~null_mask(cells, settings)])
    return per_model, _agreement(per_model, settings)


#: the agreement table's ``over`` of the rows over shared (model, test) cells
AGREEMENT_OVER_CELLS = "(model, test) cells"


def agreement_table(inputs: Inputs, settings):
    title = "Agreement between methods over the cells both score, on one scale"
    _, pairs = agreement_pairs(inputs, settings)
    _, across = model_agreement(inputs, settings)
    pairs = pd.concat(
        [pairs.assign(over=AGREEMENT_OVER_CELLS), across.assign(over="models")],
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
        f"n < {MIN_CELLS}: none; none either where models or tests, if more than one, number "
        f"under {MIN_LEVELS}: 3 models give 10 distinct resamples, no interval). "
        "rho is not corrected for attenuation: the only reliabilities measured "
        "(synthesis_reliability) are the ground-truth study's, on its fine-tunes of one "
        "masked LM, another population than these cells, and dividing by them printed "
        "values beyond 1; a correction needs each population's own split halves. "
        "sign agreement: share of shared cells with the same "
        "raw sign; significance agreement: share of the cells both test with the same "
        f"verdict at p < {settings.alpha}. Pairs without a shared cell are left out. Rows "
        "'over models' compare each method's mean score per model across the zoo and the "
        "ground-truth study's injected-bias models."
    )
    return plain_table(pairs, title, note)


def _heat(ax, cells, pairs, title):
    methods = sorted(cells["method"].unique())
    matrix = correlation_matrix(pairs, methods)
    n = correlation_matrix(pairs.assign(spearman=pairs["n"]), methods)
    order = cluster_order(matrix)
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


def figure_agreement(inputs: Inputs, settings):
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


#: what the agreement reads of the ground-truth study
AGREEMENT_STUDY_ROLES = ("study_datasets", "study_methods")


def agreement_inputs(plan) -> dict[str, list[str]]:
    """The scores, and the ground-truth study's scores (its models are the agreement's
    across models)."""
    study = plan.study_files()
    return {"scores": [SCORES], **{r: study[r] for r in AGREEMENT_STUDY_ROLES}}


TABLES = (
    synthesis_table(
        "synthesis_agreement",
        "Agreement between methods",
        agreement_table,
        "Rank correlation on one scale per pair, with its interval.",
        reads=agreement_inputs,
    ),
)
FIGURES = (
    FigureTarget(
        "synthesis_agreement",
        "Agreement: clustered rank correlations between methods",
        figure_agreement,
        agreement_inputs,
        reading="Rho over the (model, test) cells both methods score; n below rho.",
    ),
)
