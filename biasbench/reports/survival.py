"""Survival, reported: per paper's cells and method on the real models, how many cells the
paper's test calls significant and how many stay significant under the word-level test
(:mod:`biasbench.studies.survival`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasbench.reports.synthesis_inputs import comparison_cells, null_mask, synthesis_table
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import Inputs, scores_only
from biasbench.studies import survival as survival_study


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


SURVIVAL = survival_study.SURVIVAL


def survival(inputs: Inputs, settings) -> pd.DataFrame:
    """Per paper's cells and method on the real models: how many cells the paper's test
    calls significant at alpha and how many of them stay significant under the word test."""
    cells = comparison_cells(inputs, settings)
    cells = cells[~null_mask(cells, settings)].reset_index(drop=True)
    out = []
    for paper, which, mask in survival_groups(cells):
        part = survival_study.survival(cells[np.asarray(mask, bool)], settings.alpha)
        if part.empty:
            part = pd.DataFrame([{"method": "(no tested cell)", **dict.fromkeys(SURVIVAL, 0)}])
        elif len(part) > 1:
            total = part[SURVIVAL].sum().astype(object)
            total["method"] = "(all methods)"
            part = pd.concat([part, total.to_frame().T], ignore_index=True)
        part[SURVIVAL] = part[SURVIVAL].astype(int)
        part["survival_share"] = survival_study.survival_share(part)
        out.append(part.assign(paper=paper, cells=which))
    frame = pd.concat(out, ignore_index=True)
    return frame[["paper", "cells", "method", *SURVIVAL, "survival_share"]]


def survival_table(inputs: Inputs, settings):
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


TABLES = (
    synthesis_table(
        "synthesis_survival",
        "Survival under the word-level test",
        survival_table,
        "Per paper's cells: the paper's significant cells that stay significant under p_word.",
        reads=scores_only,
    ),
)
FIGURES = ()
