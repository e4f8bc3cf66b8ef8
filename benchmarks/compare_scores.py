"""Compare two ``results/scores/all.tsv`` files: an old one (before the method interface of the
library, one model name per context source, variants in the ``encoding`` column) and a new one.

Old rows are mapped to the new schema first: the MiniLM per-corpus model names become
``minilm-l6``; ``word/mean+reduced`` becomes encoding ``word/mean``, variant ``reduced``; LPBS and
p-CEAT's ``<targets>/<attribute form>`` encodings become variants (``full``, ``reduced``,
``full+adjective``, ...) with the encoding saying how the probabilities were obtained
(``causal`` for the causal LMs of the default zoo). Then rows are matched on the key columns
and every shared value column is compared; the report counts identical, differing, removed and
added rows per (method, source), and lists the differences.

    .venv/bin/python benchmarks/compare_scores.py OLD_all.tsv NEW_all.tsv [--tolerance 0]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from biasbench.io import read_tsv
from biasbench.rows import KEY_COLUMNS

KEYS = KEY_COLUMNS
VALUES = [
    "effect_size",
    "p_value",
    "se",
    "tau_squared",
    "n_x",
    "n_y",
    "n_a",
    "n_b",
    "n_partitions",
    "exact",
    "dropped_X",
    "dropped_Y",
    "dropped_A",
    "dropped_B",
    "dropped",
    "seed",
]
OLD_MODELS = {
    "minilm-reddit": "minilm-l6",
    "minilm-wikipedia": "minilm-l6",
    "minilm-wiki-sentences": "minilm-l6",
    "minilm-bug": "minilm-l6",
}


def to_new_schema(old: pd.DataFrame, probability_encoding: str) -> pd.DataFrame:
    old = old.copy()
    old["model"] = old["model"].replace(OLD_MODELS)
    old["variant"] = "full"
    reduced = old["encoding"].str.endswith("+reduced")
    old.loc[reduced, "variant"] = "reduced"
    old.loc[reduced, "encoding"] = old.loc[reduced, "encoding"].str.replace("+reduced", "")
    probability = old["method"].isin(["LPBS", "p-CEAT"])
    parts = old.loc[probability, "encoding"].str.split("/", expand=True)
    old.loc[probability, "variant"] = parts[0].where(parts[1] == "noun", parts[0] + "+" + parts[1])
    old.loc[probability, "encoding"] = probability_encoding
    return old


def same(a: pd.Series, b: pd.Series, tolerance: float) -> pd.Series:
    """Element-wise equality; NaN equals NaN; numbers within ``tolerance``."""
    both_nan = a.isna() & b.isna()
    numeric = pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b)
    if numeric and tolerance > 0:
        close = np.isclose(a.astype(float), b.astype(float), rtol=0, atol=tolerance)
        return pd.Series(close, index=a.index) | both_nan
    return (a.astype(str) == b.astype(str)) | both_nan


def compare(old: pd.DataFrame, new: pd.DataFrame, tolerance: float = 0.0) -> dict:
    """Counts and listings of the differences between the two score tables."""
    merged = old.merge(new, on=KEYS, how="outer", suffixes=("_old", "_new"), indicator=True)
    both = merged[merged["_merge"] == "both"]
    differs = pd.Series(False, index=both.index)
    changed_columns: dict[str, int] = {}
    for column in VALUES:
        if f"{column}_old" not in both or f"{column}_new" not in both:
            continue
        diff = ~same(both[f"{column}_old"], both[f"{column}_new"], tolerance)
        if diff.any():
            changed_columns[column] = int(diff.sum())
        differs |= diff
    groups = ["method", "source"]
    summary = pd.DataFrame(
        {
            "identical": both[~differs].groupby(groups).size(),
            "differing": both[differs].groupby(groups).size(),
            "removed": merged[merged["_merge"] == "left_only"].groupby(groups).size(),
            "added": merged[merged["_merge"] == "right_only"].groupby(groups).size(),
        }
    )
    return {
        "summary": summary.fillna(0).astype(int),
        "changed_columns": changed_columns,
        "differing": both[differs][
            KEYS + [c for v in VALUES for c in (f"{v}_old", f"{v}_new") if c in both]
        ],
        "new_columns": sorted(set(new.columns) - set(old.columns)),
        "removed_columns": sorted(set(old.columns) - set(new.columns) - {"variant"}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--tolerance", type=float, default=0.0)
    parser.add_argument("--probability-encoding", default="causal")
    args = parser.parse_args()
    old_raw = read_tsv(args.old)
    # a table already in the schema (it has the variant column) is compared as it is
    old = old_raw if "variant" in old_raw else to_new_schema(old_raw, args.probability_encoding)
    new = read_tsv(args.new)
    out = compare(old, new, args.tolerance)
    pd.set_option("display.width", 200)
    print(f"old: {len(old)} rows, new: {len(new)} rows")
    print(f"columns added: {out['new_columns']}; removed: {out['removed_columns']}")
    print(out["summary"].to_string())
    print(f"\nvalue columns that differ (rows): {out['changed_columns'] or 'none'}")
    if len(out["differing"]):
        print(out["differing"].head(40).to_string(index=False))


if __name__ == "__main__":
    main()
