"""What a model card opens with: its findings in sentences generated from the rows, what each
test compares and what the sign of its score means, each measure's scale and neutral point,
and the design choices a verdict depends on.

The rules are fixed here, before any card is read:

* a cell is **found** when its most conservative test says so: ``p_word_strata`` where the row
  has it (target words exchanged within their word-piece count), else ``p_word`` (the word as
  the unit), else the paper's ``p_value``, below alpha (:data:`TRUSTED`); a cell whose paper
  test alone is below alpha is counted apart, never as found;
* a cell whose trusted test cannot reach alpha whatever the model (its floor) is counted apart;
* a verdict is **sensitive to a design choice** when another encoding, or another variant
  the method declares a choice (``Method.choices``), of the same (method, source, test,
  descriptor) gives the other sign (both scores away from the neutral
  point) or the other found / not found.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from biasbench.methods.contract import FAMILIES
from biasbench.methods.registry import REGISTRY, get
from biasbench.reports.calibration import league_columns
from biasbench.rows import TEST_DESIGNS, is_primary
from biasbench.studies.calibration import DESIGNS

#: the tests of a row, most conservative first, each with its floor and a name
TRUSTED = tuple((d.p, d.floor, d.test) for d in reversed(TEST_DESIGNS))
#: how a verdict changed, the weightiest first (the card's order)
CHANGES = ("sign and significance", "significance", "sign")
#: what a score's sign means, by what swapping X and Y does to it (``Method.swap``)
SIGN = {
    "negates": "positive: X is associated with A (and Y with B) more than the reverse",
    "complements": "above the neutral point: the stereotypical option is preferred",
    "keeps": "no sign: how far from the neutral point",
}


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def trusted(row: Mapping) -> tuple[float, float, str]:
    """(p, floor, test name) of a row's most conservative test (:data:`TRUSTED`); NaN p: none."""
    for column, floor, name in TRUSTED:
        p = _float(row.get(column))
        if not math.isnan(p):
            bound = _float(row.get(floor))
            return p, 0.0 if math.isnan(bound) else bound, name
    return math.nan, math.nan, ""


def judged(rows: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """``rows`` with the trusted test (``test_p``, ``test_floor``, ``test_name``) and the
    verdict columns ``found``, ``paper_only`` (the paper's p alone below alpha, the trusted
    test able to reach it) and ``cannot`` (the trusted test's floor at or above alpha)."""
    rows = rows.reset_index(drop=True)  # one label per row, whatever was concatenated
    tested = [trusted(r) for r in rows.to_dict("records")]
    out = rows.assign(
        test_p=[t[0] for t in tested],
        test_floor=[t[1] for t in tested],
        test_name=[t[2] for t in tested],
    )
    paper = pd.to_numeric(out["p_value"], errors="coerce")
    out["cannot"] = out["test_p"].notna() & (out["test_floor"] >= alpha)
    out["found"] = (out["test_p"] < alpha) & ~out["cannot"]
    out["paper_only"] = (paper < alpha) & ~out["found"] & ~out["cannot"]
    return out


#: what a card says of a significant cell whose test has no "calibrated" verdict
UNSHOWN = "significant under a test not shown calibrated"


def _league_verdicts(league: pd.DataFrame | None) -> dict[tuple[str, str], str]:
    """(method, design) -> the league's calibration verdict at its alpha (pooled over the
    null sources whose detection check passed)."""
    if league is None or league.empty:
        return {}
    out = {}
    for design in DESIGNS:
        column = league_columns(design)["verdict"]
        if column in league:
            for method, verdict in zip(league["method"], league[column], strict=True):
                out[(str(method), design)] = str(verdict)
    return out


def _null_spread(rows: pd.DataFrame, own_null: pd.DataFrame | None) -> pd.Series:
    """Per row: the largest distance from the neutral point of its cell's effect on the
    model's own null copies (same method, source, test, descriptor); NaN without copies."""
    if own_null is None or own_null.empty:
        return pd.Series(np.nan, index=rows.index)
    keys = ["method", "source", "test", "descriptor"]
    copies = own_null[is_primary(own_null)].copy()
    neutral = copies["method"].map(lambda m: get(str(m)).neutral_point)
    copies["distance"] = (pd.to_numeric(copies["effect_size"], errors="coerce") - neutral).abs()
    spread = copies.groupby(keys, dropna=False)["distance"].max()
    index = pd.MultiIndex.from_frame(rows[keys].astype(object))
    return pd.Series(spread.reindex(index).to_numpy(), index=rows.index)


def card_verdicts(
    rows: pd.DataFrame,
    league: pd.DataFrame | None,
    alpha: float,
    own_null: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """:func:`judged` with the card's rule, fixed before any card is read. A cell is
    **found** where (1) its most conservative test with a "calibrated" verdict at alpha in
    the league (``shown_p``, ``shown_name``: pooled over the null sources where a bad test
    could fail) exists and can reach alpha; (2) that p survives Holm over every tested cell of
    the card (``p_holm``: a cell without a calibrated test enters with its trusted p); (3)
    its effect lies beyond the spread of the model's own null copies on the same cell
    (``inside_null``; no copies: not checked). ``unshown``: significant under its trusted
    test, which has no "calibrated" verdict (``shown_verdict``: what it has)."""
    from biasbench.stats import holm_bonferroni

    cells = judged(rows, alpha)
    verdicts = _league_verdicts(league)
    shown_p, shown_name, shown_floor, trusted_verdict = [], [], [], []
    for row in cells.to_dict("records"):
        chosen = (math.nan, "", math.nan)
        for d in reversed(TEST_DESIGNS):
            p = _float(row.get(d.p))
            if not math.isnan(p) and verdicts.get((row["method"], d.name)) == "calibrated":
                floor = _float(row.get(d.floor))
                chosen = (p, d.test, 0.0 if math.isnan(floor) else floor)
                break
        shown_p.append(chosen[0])
        shown_name.append(chosen[1])
        shown_floor.append(chosen[2])
        name = next((d.name for d in TEST_DESIGNS if d.test == row["test_name"]), "")
        trusted_verdict.append(verdicts.get((row["method"], name), "n/a (no comparison)"))
    cells = cells.assign(
        shown_p=shown_p,
        shown_name=shown_name,
        shown_floor=shown_floor,
        shown_verdict=trusted_verdict,
    )
    tested = cells["test_p"].notna()
    p_family = cells["shown_p"].where(cells["shown_p"].notna(), cells["test_p"])
    cells["p_holm"] = np.nan
    if tested.any():
        cells.loc[tested, "p_holm"] = holm_bonferroni(p_family[tested].to_numpy(float))
    neutral = cells["method"].map(lambda m: get(str(m)).neutral_point)
    distance = (pd.to_numeric(cells["effect_size"], errors="coerce") - neutral).abs()
    spread = _null_spread(cells, own_null)
    cells["null_spread"] = spread
    cells["inside_null"] = spread.notna() & (distance <= spread)
    shown = cells["shown_p"].notna() & (cells["shown_floor"] < alpha)
    cells["found"] = shown & (cells["p_holm"] < alpha) & ~cells["inside_null"]
    cells["unshown"] = (cells["test_p"] < alpha) & ~cells["cannot"] & ~shown
    return cells


def _cell(row) -> str:
    parts = [str(row["test"])]
    descriptor = row.get("descriptor")
    if isinstance(descriptor, str) and descriptor and descriptor != "all":
        parts.append(descriptor)
    return "/".join(parts) + f" ({row['source']})"


def _labels_text(labels: Mapping[str, Mapping[str, str]], row) -> str:
    own = labels.get(f"{row['test']}/{row['descriptor']}")
    if not own or all(own.get(r, r) in ("", r) for r in "XYAB"):
        return ""  # a word set without labels: its roles say nothing more
    return f"{own.get('X', 'X')} vs {own.get('Y', 'Y')}, {own.get('A', 'A')} vs {own.get('B', 'B')}"


def _validity(league: pd.DataFrame | None, methods: list[str]) -> str:
    """What the comparison says of these methods' tests and truth, in a clause."""
    if league is None or league.empty:
        return (
            "no comparison beside this card: how far these methods can be trusted is not known here"
        )
    mine = league[league["method"].isin(methods)]
    parts = []
    for row in mine.to_dict("records"):
        verdicts = []
        for design in DESIGNS:
            verdict = str(row.get(league_columns(design)["verdict"], "n/a"))
            if verdict not in ("n/a", "nan", ""):
                verdicts.append(f"{design} {verdict}")
        rho = _float(row.get("truth_spearman"))
        truth = (
            f"ground-truth rho {rho:.2f} ({row.get('truth_verdict', 'n/a')})"
            if not math.isnan(rho)
            else "no ground-truth rho"
        )
        parts.append(f"{row['method']}: {truth}; null models: {', '.join(verdicts) or 'n/a'}")
    return "; ".join(parts)


def summary_lines(
    rows: pd.DataFrame,
    league: pd.DataFrame | None,
    labels: Mapping[str, Mapping[str, str]],
    alpha: float,
    top: int = 3,
    own_null: pd.DataFrame | None = None,
) -> list[str]:
    """The card's findings, per family, under :func:`card_verdicts`' rule: how many tested
    cells are found, the strongest with what they compare; how many are significant under a
    test not shown calibrated (with its verdict), inside the model's own null copies'
    spread, or cannot reach alpha; and what the comparison says of the methods."""
    cells = card_verdicts(rows, league, alpha, own_null)
    tested = cells[cells["test_p"].notna()]
    lines = [
        f"A cell is **found** at p < {alpha:g} only under a test the comparison shows "
        f"calibrated at {alpha:g} on null models where a bad test could fail, after Holm over "
        f"the card's {len(tested)} tested cells, and beyond the spread of the model's own null "
        "copies.",
        "",
    ]
    for family in FAMILIES:
        part = tested[tested["family"] == family]
        if part.empty:
            continue
        methods = sorted(set(part["method"]))
        found = part[part["found"]]
        sentence = (
            f"* **{family}** ({', '.join(methods)}): bias found in {len(found)} of "
            f"{len(part)} tested cells"
        )
        unshown = part[part["unshown"]]
        if len(unshown):
            groups = unshown.groupby(["method", "test_name", "shown_verdict"]).size()
            why = "; ".join(
                f"{method}'s {name}: {verdict}, {n}"
                for (method, name, verdict), n in groups.items()
            )
            sentence += f"; {len(unshown)} more {UNSHOWN} ({why})"
        inside = int((part["inside_null"] & (part["p_holm"] < alpha)).sum())
        if inside:
            sentence += f"; {inside} significant but inside its own null copies' spread"
        cannot = int(part["cannot"].sum())
        if cannot:
            sentence += f"; {cannot} cannot reach {alpha:g} whatever the model (too few words)"
        lines.append(sentence + ".")
        strongest = found.assign(size=found["effect_size"].astype(float).abs())
        for row in strongest.sort_values("size", ascending=False).head(top).to_dict("records"):
            compared = _labels_text(labels, row)
            lines.append(
                f"  * {row['method']} on {_cell(row)}: {_float(row['effect_size']):.3g}, "
                f"p = {row['shown_p']:.3g} ({row['shown_name']}; Holm {row['p_holm']:.3g})"
                + (f"; {compared}" if compared else "")
            )
        lines.append(f"  * Validity: {_validity(league, methods)}.")
    return lines if len(lines) > 2 else ["* No test with a p-value ran on this model."]


def test_lines(rows: pd.DataFrame, labels: Mapping[str, Mapping[str, str]]) -> list[str]:
    """What each word-set test of the card compares: its X, Y, A and B."""
    keys = sorted({f"{t}/{d}" for t, d in zip(rows["test"], rows["descriptor"], strict=True)})
    lines = ["| test | X | Y | A | B |", "|---|---|---|---|---|"]
    shown = [k for k in keys if k in labels]
    for key in shown:
        own = labels[key]
        lines.append(f"| {key} | " + " | ".join(own.get(r, "") for r in "XYAB") + " |")
    return lines if shown else []


def scale_lines(methods: list[str]) -> list[str]:
    """Each measure's neutral point and what its sign means."""
    lines = ["| method | neutral point | sign | what it is |", "|---|---|---|---|"]
    for method in REGISTRY:
        if method.name in methods:
            lines.append(
                f"| {method.name} | {method.neutral_point:g} | {SIGN[method.swap]} | "
                f"{method.description} |"
            )
    return lines


def sensitivity(rows: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Per cell (method, source, test, descriptor) with a primary row: each other encoding or
    variant whose score has the other sign (both away from the neutral point) or the other
    verdict (found against not found, both able to reach alpha)."""
    cells = judged(rows, alpha)
    primary = is_primary(cells)
    keys = ["method", "source", "test", "descriptor"]
    out = []
    for key, group in cells.groupby(keys, sort=True, dropna=False):
        main = group[primary.loc[group.index]]
        if main.empty:
            continue
        first = main.iloc[0]
        neutral = get(str(key[0])).neutral_point
        sign = np.sign(_float(first["effect_size"]) - neutral)
        method = get(str(key[0]))
        choices = method.variants if method.choices is None else method.choices
        for other in group[~primary.loc[group.index]].to_dict("records"):
            if other["variant"] != first["variant"] and other["variant"] not in choices:
                continue  # a part of the data (BEC-Pro's male rows), not another way to measure
            changed = []
            other_sign = np.sign(_float(other["effect_size"]) - neutral)
            if sign and other_sign and sign != other_sign and np.isfinite(sign * other_sign):
                changed.append("sign")
            able = not first["cannot"] and not other["cannot"]
            both_tested = not math.isnan(first["test_p"]) and not math.isnan(other["test_p"])
            if able and both_tested and bool(first["found"]) != bool(other["found"]):
                changed.append("significance")
            if changed:
                out.append(
                    {
                        **dict(zip(keys, key, strict=True)),
                        "changed": " and ".join(changed),
                        "primary": f"{first['encoding']}/{first['variant']}",
                        "primary_effect": _float(first["effect_size"]),
                        "primary_p": first["test_p"],
                        "other": f"{other['encoding']}/{other['variant']}",
                        "other_effect": _float(other["effect_size"]),
                        "other_p": other["test_p"],
                    }
                )
    columns = [*keys, "changed", "primary", "primary_effect", "primary_p", "other"]
    return pd.DataFrame(out, columns=[*columns, "other_effect", "other_p"])


def sensitivity_lines(
    rows: pd.DataFrame, alpha: float, limit: int = 24, per_method: int = 3
) -> list[str]:
    """The cells whose verdict changes with an encoding or variant, as a table (the default
    each follows first): the weightiest changes first, at most ``per_method`` rows of a
    method, so every method's shows."""
    table = sensitivity(rows, alpha)
    if table.empty:
        return ["No verdict of this card changes with an encoding or variant it ran."]
    table = table.assign(weight=table["changed"].map(CHANGES.index)).sort_values(
        ["weight", "method", "test", "descriptor"], kind="stable"
    )
    shown = table.groupby("method", sort=False).head(per_method).head(limit)
    lines = [
        f"{len(table)} verdicts change with a design choice (the default, which follows the "
        "paper's reference, first; p: each row's most conservative test):",
        "",
        "| method | cell | changes | default: effect, p | other choice: effect, p |",
        "|---|---|---|---|---|",
    ]
    for row in shown.to_dict("records"):
        lines.append(
            f"| {row['method']} | {_cell(row)} | {row['changed']} | {row['primary']}: "
            f"{row['primary_effect']:.3g}, {row['primary_p']:.3g} | {row['other']}: "
            f"{row['other_effect']:.3g}, {row['other_p']:.3g} |"
        )
    if len(table) > len(shown):
        lines.append(f"| ... | {len(table) - len(shown)} more in the collected scores | | | |")
    return lines


def folded_notes(notes: pd.Series, least: int = 3) -> tuple[pd.Series, list[str]]:
    """Notes repeated in at least ``least`` rows, each replaced by a marker [n] and listed
    once: (the notes to print, the caveats "[n] note (k rows)")."""
    text = notes.fillna("").astype(str)
    counts = text[text != ""].value_counts()
    repeated = [n for n, k in counts.items() if k >= least]
    marker = {n: f"[{i + 1}]" for i, n in enumerate(repeated)}
    caveats = [f"{marker[n]} {n} ({counts[n]} rows)" for n in repeated]
    return text.map(lambda n: marker.get(n, n)), caveats
