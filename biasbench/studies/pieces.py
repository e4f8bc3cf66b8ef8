"""Word-piece balance and tokenization: the null-model calibration split by whether the words a
method's tests exchange differ in their number of word pieces.

Random weights do not make words of different piece counts exchangeable (a word of two pieces
is pooled from two token vectors): where the X and Y words (or A and B) differ, a test that
moves words rejects on a null model for the tokenizer's sake. :func:`piece_gaps` measures the
gaps from the tokenization tables, :func:`piece_sensitivity` splits
:func:`biasbench.studies.calibration.calibration` by them at several thresholds and
:func:`tokenization` gives the word test's null share per test and tokenizer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from biasbench.studies.calibration import (
    ALPHAS,
    DESIGNS,
    LEVEL,
    calibration,
    p_column,
    shares_below,
)

#: |mean pieces of X words - of Y words| below this: the targets are balanced in word pieces
#: (the tokenization table's column; the null control reads every PIECE_THRESHOLDS)
BALANCED_GAP = 0.5
#: the thresholds of the piece-balance sensitivity analysis (synthesis_null_pieces)
PIECE_THRESHOLDS = (0.25, 0.5, 1.0)
PIECE_GROUPS = ("balanced", "imbalanced")
#: the gap a method's cells are split by: that of the words its tests exchange
GAP_OF = {"targets": "dXY", "attributes": "dAB"}


def piece_gaps(pieces: pd.DataFrame) -> pd.DataFrame:
    """Per (tokenizer, test, descriptor) of the tokenization tables (``pieces``: columns
    tokenizer, test, descriptor, role, word, pieces): dXY and dAB, the mean number of word
    pieces of the X words minus the Y words and of A minus B (NaN without both roles), the
    share of X and of Y words of more than one piece, the numbers of X and Y words, and
    ``pieces``: balanced where |dXY| < BALANCED_GAP, else imbalanced."""
    keys = ["tokenizer", "test", "descriptor"]
    frame = pieces.assign(multi=pieces["pieces"] > 1)
    grouped = frame.groupby([*keys, "role"], sort=True)
    mean = grouped["pieces"].mean().unstack("role")
    multi = grouped["multi"].mean().unstack("role")
    count = grouped["pieces"].size().unstack("role")
    for table in (mean, multi, count):
        for role in "XYAB":
            if role not in table:
                table[role] = np.nan
    out = pd.DataFrame(
        {
            "dXY": mean["X"] - mean["Y"],
            "dAB": mean["A"] - mean["B"],
            "multi_X": multi["X"],
            "multi_Y": multi["Y"],
            "words_X": count["X"].fillna(0).astype(int),
            "words_Y": count["Y"].fillna(0).astype(int),
        }
    )
    out["pieces"] = np.where(out["dXY"].abs() < BALANCED_GAP, *PIECE_GROUPS)
    out.loc[out["dXY"].isna(), "pieces"] = "n/a"
    return out.reset_index()


def piece_gap(
    cells: pd.DataFrame,
    null_bases: Mapping[str, str],
    gaps: pd.DataFrame,
    permutes: Mapping[str, str | None],
) -> np.ndarray:
    """Per cell: how far the words its method's tests exchange (``permutes``: method ->
    targets | attributes | None) differ in mean word pieces under the cell's base tokenizer
    (|dXY| or |dAB| of :func:`piece_gaps`); NaN for any other cell (a real model, a static
    model's copy: no tokenizer; a method that exchanges no words)."""
    keys = ["tokenizer", "test", "descriptor"]
    # the keys as objects on both sides: without null models every tokenizer is NaN (float64)
    # and an empty gaps table's columns have no dtype, which merge refuses to match
    left = pd.DataFrame(
        {
            "tokenizer": cells["model"].map(dict(null_bases)).to_numpy(dtype=object),
            "test": cells["test"].to_numpy(dtype=object),
            "descriptor": cells["descriptor"].to_numpy(dtype=object),
        }
    )
    right = (
        gaps[[*keys, *GAP_OF.values()]]
        if len(gaps)
        else pd.DataFrame(columns=[*keys, "dXY", "dAB"])
    ).astype(dict.fromkeys(keys, object))
    merged = left.merge(right, on=keys, how="left")
    words = cells["method"].map(dict(permutes)).to_numpy()
    gap = np.full(len(cells), np.nan)
    for which, column in GAP_OF.items():
        mine = words == which
        gap[mine] = pd.to_numeric(merged.loc[mine, column], errors="coerce").abs()
    return gap


def piece_balance(
    cells: pd.DataFrame,
    null_bases: Mapping[str, str],
    gaps: pd.DataFrame,
    permutes: Mapping[str, str | None],
    threshold: float = BALANCED_GAP,
) -> pd.Series:
    """Per cell: ``balanced`` where :func:`piece_gap` is below ``threshold``, ``imbalanced``
    where it is not, n/a where the cell has none."""
    return _balance(piece_gap(cells, null_bases, gaps, permutes), threshold, cells.index)


def _balance(gap: np.ndarray, threshold: float, index: pd.Index) -> pd.Series:
    out = np.where(gap < threshold, PIECE_GROUPS[0], PIECE_GROUPS[1]).astype(object)
    out[np.isnan(gap)] = "n/a"
    return pd.Series(out, index=index)


def piece_sensitivity(
    cells: pd.DataFrame,
    null_models: Iterable[str],
    null_bases: Mapping[str, str],
    gaps: pd.DataFrame,
    permutes: Mapping[str, str | None],
    thresholds: Iterable[float] = PIECE_THRESHOLDS,
    alphas: Iterable[float] = ALPHAS,
    designs: Mapping[str, str] = DESIGNS,
    level: float = LEVEL,
) -> pd.DataFrame:
    """:func:`calibration` of a transformer's null cells split by piece balance
    (:func:`piece_balance`), once per threshold: per threshold, method, design and group
    (balanced, imbalanced), the cells that can reach each alpha, their clusters, the
    cluster-aware share and interval, and the verdict. The threshold was chosen after the
    word test was seen to reject on imbalanced targets; the other thresholds show how much
    the claim leans on it."""
    alphas = list(alphas)
    null = cells[cells["model"].isin(set(null_models))]
    gap = piece_gap(null, null_bases, gaps, permutes)
    out = []
    for threshold in thresholds:
        balance = _balance(gap, threshold, null.index)
        for group in PIECE_GROUPS:
            part = null[balance == group]
            if part.empty:
                continue
            table = calibration(part, null_models, null_bases, alphas, designs, level)
            out.append(table.assign(threshold=threshold, pieces=group))
    keep = ["threshold", "pieces", "method", "design"]
    keep += [
        f"{c}_{a:g}"
        for a in alphas
        for c in ("cells", "clusters", "null", "null_low", "null_high", "verdict")
    ]
    if not out:
        return pd.DataFrame(columns=keep)
    frame = pd.concat(out, ignore_index=True)
    frame = frame[frame[[f"cells_{a:g}" for a in alphas]].sum(axis=1) > 0]
    return frame[keep].sort_values(["method", "design", "threshold", "pieces"], ignore_index=True)


def tokenization(
    cells: pd.DataFrame,
    null_bases: Mapping[str, str],
    gaps: pd.DataFrame,
    alphas: Iterable[float] = ALPHAS,
    column: str = "p_word",
    level: float = LEVEL,
) -> pd.DataFrame:
    """Per (test, descriptor, tokenizer) of ``gaps`` (:func:`piece_gaps`): its piece gaps and
    multi-piece shares, and on the null models with that tokenizer the cells of every method
    with a ``column`` p-value (``cells_word``) and the share below each alpha with its exact
    interval."""
    alphas = list(alphas)
    p = p_column(cells, column)
    tested = pd.DataFrame(
        {
            "tokenizer": cells["model"].map(dict(null_bases)),
            "test": cells["test"],
            "descriptor": cells["descriptor"],
            "p": p,
        }
    )
    tested = tested[tested["tokenizer"].notna() & tested["p"].notna()]
    by_cell = {k: g["p"].to_numpy() for k, g in tested.groupby(["tokenizer", "test", "descriptor"])}
    rows = []
    for row in gaps.itertuples(index=False):
        values = by_cell.get((row.tokenizer, row.test, row.descriptor), np.array([]))
        out = {
            "test": row.test,
            "descriptor": row.descriptor,
            "tokenizer": row.tokenizer,
            "dXY": row.dXY,
            "dAB": row.dAB,
            "multi_X": row.multi_X,
            "multi_Y": row.multi_Y,
            "words_X": row.words_X,
            "words_Y": row.words_Y,
            "pieces": row.pieces,
            "cells_word": len(values),
        }
        rows.append(out | shares_below(values, alphas, level, "word"))
    columns = ["test", "descriptor", "tokenizer", "dXY", "dAB", "multi_X", "multi_Y"]
    columns += ["words_X", "words_Y", "pieces", "cells_word"]
    columns += [f"word{c}_{a:g}" for a in alphas for c in ("", "_low", "_high")]
    return pd.DataFrame(rows, columns=columns).sort_values(
        ["test", "descriptor", "tokenizer"], ignore_index=True
    )
