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
  point) or the other found / not found;
* a p-value prints no finer than its test resolves (:func:`p_shown`): a test whose design
  cannot reach alpha says so in words, a p at its design's floor prints as that bound, and an
  analytic tail (a z, t, binomial or Wilcoxon test: a floor below :data:`RESOLUTION`) below
  :data:`RESOLUTION` prints as "< 1e-6".
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


#: the finest p a card prints for an analytic tail (a test whose design floor is below it: a
#: z-test such as CEAT's combined effect, a t, binomial or Wilcoxon test): below it "< 1e-6".
#: Such a p is computed from a distribution's tail, not counted, and an approximation's error
#: is absolute (Berry-Esseen), so a p of 1e-10 and one of 1e-300 are no different evidence;
#: and no verdict of a card turns on smaller digits: Holm over the card's cells compares its
#: smallest p with alpha / cells, above 1e-6 for fewer than 10,000 cells at alpha 0.01. A
#: permutation test's own floor, 1/(1 + n) of n sampled partitions, is far above it.
RESOLUTION = 1e-6
RESOLUTION_TEXT = "1e-6"


def _exponent(text: str) -> str:
    """A number's exponent without its padding zero: "1e-05" -> "1e-5"."""
    mantissa, e, power = text.partition("e")
    return f"{mantissa}e{int(power)}" if e else text


def _up(value: float, digits: int = 2) -> str:
    """``value`` rounded up to ``digits`` significant digits (a bound that stays a bound)."""
    scale = 10.0 ** (math.floor(math.log10(value)) - digits + 1)
    return _exponent(f"{math.ceil(value / scale - 1e-9) * scale:.{digits}g}")


def p_shown(p, floor, alpha: float, tested: str = "words") -> str:
    """A p-value as a card prints it, no finer than its test resolves: blank without one;
    "cannot reach <alpha> with these <tested>" where the design's floor (the smallest p it can
    give, whatever the model) is at or above ``alpha`` (too few words or items: 3 words a
    side enumerate 20 partitions); "<= <floor>" at the floor (1/N of N enumerated partitions,
    1/(1 + n) of n sampled ones, rounded up); "< 1e-6" for an analytic tail below
    :data:`RESOLUTION`; else three significant digits."""
    p, floor = _float(p), _float(floor)
    if math.isnan(p):
        return ""
    if not math.isnan(floor) and floor >= alpha:
        return f"cannot reach {alpha:g} with these {tested}"
    if not math.isnan(floor) and floor >= RESOLUTION and p <= floor * (1 + 1e-9):
        return f"<= {_up(floor)}"
    if p < RESOLUTION and (math.isnan(floor) or floor < RESOLUTION):
        return f"< {RESOLUTION_TEXT}"
    shown = f"{p:.3g}"
    if not math.isnan(floor) and float(shown) < floor:  # rounded below what the design gives
        shown = _up(p, 3)
    return _exponent(shown)


def p_is(shown: str) -> str:
    """A printed p (:func:`p_shown`) in a sentence: "p = 0.002", "p <= 0.001", "p < 1e-6";
    "its test cannot reach ..." where it cannot."""
    if shown[:1].isdigit():
        return f"p = {shown}"
    return f"p {shown}" if shown.startswith("<") else f"its test {shown}"


def unit_of(row: Mapping) -> str:
    """What a row's test exchanges, as a card names it: a data set's items, else words."""
    return "items" if str(row.get("source")) == "dataset" else "words"


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


#: what identifies a cell across models: a method on one test (or data set) and source
CELL_KEYS = ["method", "source", "test", "descriptor"]


def zoo_spread(rows: pd.DataFrame, cells: pd.DataFrame | None, model: str) -> pd.DataFrame:
    """Per row of ``rows``: the effect sizes of the zoo's other real models (no null model) in
    the same cell, from the comparison's cells (``synthesis_scores``): ``median``, ``min``,
    ``max`` and ``count`` (NaN and 0 where no other model scored it, or without cells)."""
    empty = pd.DataFrame(
        {"median": np.nan, "min": np.nan, "max": np.nan, "count": 0}, index=rows.index
    )
    if cells is None or cells.empty or rows.empty:
        return empty
    zoo = cells[(cells["model"] != model) & ~cells["null model"].astype(bool)]
    zoo = zoo[zoo["effect_size"].notna()].copy()
    zoo[CELL_KEYS] = zoo[CELL_KEYS].astype(str)  # a blank descriptor reads "nan" on both sides
    zoo["effect_size"] = zoo["effect_size"].astype(float)
    spread = zoo.groupby(CELL_KEYS)["effect_size"].agg(["median", "min", "max", "count"])
    index = pd.MultiIndex.from_frame(rows[CELL_KEYS].astype(str))
    out = spread.reindex(index).set_axis(rows.index)
    out["count"] = out["count"].fillna(0).astype(int)
    return out


def _neutral(method) -> float:
    return get(str(method)).neutral_point


def _size(row, zoo: bool, copies: bool = True) -> str:
    """A cell's effect against the zoo's other models and the model's own null copies."""
    effect, neutral = _float(row["effect_size"]), _neutral(row["method"])
    parts = [f"{effect:.3g}"]
    count = int(row.get("zoo_count", 0) or 0)
    if count:
        parts.append(
            f"zoo median {row['zoo_median']:.3g} [{row['zoo_min']:.3g}, {row['zoo_max']:.3g}] "
            f"over {count} other model{'s' if count > 1 else ''}"
        )
    elif zoo:
        parts.append("no other model of the zoo scored it")
    spread = _float(row.get("null_spread"))
    around = f"{neutral:g} ± " if neutral else "±"
    if math.isnan(spread):
        parts.append("no null copy of the model scored it" if copies else "no null copies")
    elif row["inside_null"]:
        parts.append(f"inside its null copies' spread ({around}{spread:.3g})")
    elif spread == 0:
        parts.append("beyond its null copies, all at the neutral point")
    else:
        ratio = abs(effect - neutral) / spread
        parts.append(f"{ratio:.1f}x its null copies' widest ({around}{spread:.3g})")
    return ", ".join(parts)


def _association(labels: Mapping[str, Mapping[str, str]], row) -> str:
    """What a cell's test compares, "X vs Y with A vs B", and the cell."""
    cell = _cell(row)
    own = labels.get(f"{row['test']}/{row['descriptor']}")
    if not own or all(own.get(r, r) in ("", r) for r in "XYAB"):
        return cell
    where = cell.replace(" (", ", ").removesuffix(")")
    return f"{own['X']} vs {own['Y']} with {own['A']} vs {own['B']} ({where})"


def _cells(n: int) -> str:
    return f"{n} tested cell{'' if n == 1 else 's'}"


def _strongest(cells: pd.DataFrame) -> dict:
    """The cell a verdict quotes: the smallest p (its calibrated test's where it has one), then
    the largest effect against its null copies' spread, then from the neutral point."""
    p = cells["shown_p"].where(cells["shown_p"].notna(), cells["test_p"])
    distance = (cells["effect_size"].astype(float) - cells["method"].map(_neutral)).abs()
    ratio = distance / cells["null_spread"].where(cells["null_spread"] > 0)
    order = cells.assign(_p=p, _ratio=ratio.fillna(-1.0), _distance=distance).sort_values(
        ["_p", "_ratio", "_distance"], ascending=[True, False, False], kind="stable"
    )
    return order.iloc[0].to_dict()


def _shown_test(row, alpha: float) -> str:
    """The p a verdict quotes with its test's name: the calibrated test's where it has one."""
    if not math.isnan(_float(row.get("shown_p"))):
        p, floor, name = row["shown_p"], row["shown_floor"], row["shown_name"]
    else:
        p, floor, name = row["test_p"], row["test_floor"], row["test_name"]
    return f"{p_is(p_shown(p, floor, alpha, unit_of(row)))} under its {name}"


def _families(tested: pd.DataFrame, row) -> str:
    """How many of the families that test a cell's association (test and descriptor) find it."""
    same = tested[
        (tested["test"].astype(str) == str(row["test"]))
        & (tested["descriptor"].astype(str) == str(row["descriptor"]))
    ]
    testing = [f for f in FAMILIES if f in set(same["family"])]
    if len(testing) < 2:
        return ""
    finding = [f for f in testing if same.loc[same["family"] == f, "found"].any()]
    named = f" ({', '.join(finding)})" if finding else ""
    return f"; found by {len(finding)} of the {len(testing)} families that test it{named}"


def _by_verdict(cells: pd.DataFrame) -> str:
    """The methods of cells significant under a test not shown calibrated, by that verdict."""
    head = cells["shown_verdict"].astype(str).str.split(" (", n=1, regex=False).str[0]
    head = head.replace({"n/a": "no null-model verdict", "nan": "no null-model verdict"})
    groups = cells.assign(head=head).groupby("head", sort=True)["method"]
    return "; ".join(f"{v}: {', '.join(sorted(set(m)))}" for v, m in groups)


def _family_verdict(
    part: pd.DataFrame,
    tested: pd.DataFrame,
    labels: Mapping[str, Mapping[str, str]],
    alpha: float,
    compared: bool,
    copies: bool = True,
) -> str:
    """One family's verdict under :func:`card_verdicts`' rule, in a sentence."""
    mine = part[part["test_p"].notna()]
    if mine.empty:
        methods = ", ".join(sorted(set(part["method"])))
        return (
            f"no test with a p-value: its {len(part)} scores ({methods}) are sizes alone, "
            "which find no bias by themselves (Scores, below)"
        )
    found = mine[mine["found"]]
    if len(found):
        best = _strongest(found)
        associations = len(found[["test", "descriptor"]].astype(str).drop_duplicates())
        return (
            f"bias found in {len(found)} of its {_cells(len(mine))} ({associations} "
            f"association{'s' if associations > 1 else ''}); the strongest is "
            f"{_association(labels, best)}: {best['method']} {_size(best, compared, copies)}; "
            f"{_shown_test(best, alpha)} (Holm {p_shown(best['p_holm'], 0.0, alpha)})"
            + _families(tested, best)
        )
    shown = mine["shown_p"].notna() & (mine["shown_floor"] < alpha)
    unshown = mine[mine["unshown"]]
    holm = mine[shown & (mine["shown_p"] < alpha) & (mine["p_holm"] >= alpha)]
    inside = mine[shown & (mine["p_holm"] < alpha) & mine["inside_null"]]
    if not compared:
        text = (
            f"nothing can be found: no comparison beside this card shows a test calibrated "
            f"(docs/models.md, audit without a default run); {len(unshown)} of its "
            f"{_cells(len(mine))} significant under their own tests"
        )
    else:
        reasons = []
        if len(unshown):
            reasons.append(
                f"{len(unshown)} significant only under tests not shown calibrated "
                f"({_by_verdict(unshown)})"
            )
        if len(holm):
            reasons.append(f"{len(holm)} significant only before Holm over the card's cells")
        if len(inside):
            reasons.append(f"{len(inside)} inside its own null copies' spread")
        text = f"no bias found in its {_cells(len(mine))}" + (
            ": " + ", ".join(reasons) if reasons else f", none significant at {alpha:g}"
        )
    candidates = pd.concat([unshown, holm, inside])
    if candidates.empty:
        return text
    best = _strongest(candidates)
    return (
        f"{text}; the strongest candidate, unconfirmed, is {_association(labels, best)}: "
        f"{best['method']} {_size(best, compared, copies)}; {_shown_test(best, alpha)}"
        + _families(tested, best)
    )


def verdict_lines(
    cells: pd.DataFrame,
    labels: Mapping[str, Mapping[str, str]],
    alpha: float,
    compared: bool,
    absent: Mapping[str, str] | None = None,
    copies: bool = True,
) -> list[str]:
    """The card's opening: per method family one sentence a reader can act on, under
    :func:`card_verdicts`' rule (``cells``: its output with the zoo's spread, ``zoo_*``
    columns from :func:`zoo_spread`): whether a bias is found and in how many tested cells,
    the strongest association with what its test compares, how many of the families that test
    that association find it, and its effect against the zoo and the model's own null copies;
    where nothing is found, why (the tests not shown calibrated, Holm, the null copies) and
    the strongest candidate. ``compared``: a comparison stands beside the card (else nothing
    can be found); ``absent``: family -> why it has no row here, for the families that do not
    apply; ``copies``: the model has null copies of its own."""
    absent = absent or {}
    tested = cells[cells["test_p"].notna()]
    lines = []
    for family in FAMILIES:
        part = cells[cells["family"] == family]
        if part.empty:
            if family in absent:
                lines.append(f"* **{family}**: {absent[family]}.")
            continue
        verdict = _family_verdict(part, tested, labels, alpha, compared, copies)
        lines.append(f"* **{family}**: {verdict}.")
    return lines


def _short(verdict) -> str:
    """A verdict without its parenthesised detail, "n/a" where there is none; bold where it
    lets the card find a cell."""
    text = "" if verdict is None or pd.isna(verdict) else str(verdict).split(" (")[0].strip()
    text = text or "n/a"
    return f"**{text}**" if text == "calibrated" else text


def validity_table(league: pd.DataFrame | None, cells: pd.DataFrame, alpha: float) -> list[str]:
    """The card's validity in a short table: per method of the card (registry order), the
    cells it found of those it tested, its rho with the bias injected into the ground-truth
    study's models, and each test design's null-model verdict (pooled over the null sources
    where a bad test could fail). Intervals, shares and clusters are under Comparison."""
    if league is None or league.empty:
        return [
            "No comparison beside this card: how far its methods can be trusted is not known "
            "here, so no test is shown calibrated and no cell can be found (Comparison, below)."
        ]
    rows = league.set_index("method")
    lines = [
        "| family | method | found / tested cells | ground truth: rho, verdict | "
        + " | ".join(f"null models: {d.test}" for d in TEST_DESIGNS)
        + " |",
        "|---|---|---|---|" + "---|" * len(TEST_DESIGNS),
    ]
    for method in REGISTRY:
        mine = cells[cells["method"] == method.name]
        if mine.empty:
            continue
        tested = mine[mine["test_p"].notna()]
        counts = f"{int(tested['found'].sum())} / {len(tested)}" if len(tested) else "no test"
        row = rows.loc[method.name] if method.name in rows.index else pd.Series(dtype=object)
        rho = _float(row.get("truth_spearman"))
        truth = "n/a" if math.isnan(rho) else f"{rho:.2f}, {_short(row.get('truth_verdict'))}"
        verdicts = " | ".join(
            _short(row.get(league_columns(d.name)["verdict"])) for d in TEST_DESIGNS
        )
        lines.append(f"| {method.family} | {method.name} | {counts} | {truth} | {verdicts} |")
    return lines


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


def rule_line(tested: int, alpha: float) -> str:
    """The card's rule for a found cell, in a sentence (:func:`card_verdicts`)."""
    return (
        f"A cell is **found** at p < {alpha:g} only under a test the comparison shows "
        f"calibrated at {alpha:g} on null models where a bad test could fail, after Holm over "
        f"the card's {tested} tested cells, and beyond the spread of the model's own null "
        "copies."
    )


def summary_lines(
    rows: pd.DataFrame,
    league: pd.DataFrame | None,
    labels: Mapping[str, Mapping[str, str]],
    alpha: float,
    top: int = 3,
    own_null: pd.DataFrame | None = None,
    cells: pd.DataFrame | None = None,
    rule: bool = True,
) -> list[str]:
    """The card's findings in detail, per family, under :func:`card_verdicts`' rule (``cells``:
    its output, computed here where not given): how many tested cells are found, the
    strongest with what they compare; how many are significant under a test not shown
    calibrated (per method, test and verdict), inside the model's own null copies' spread, or
    cannot reach alpha with their words or items; ``rule``: opened with the rule
    (:func:`rule_line`)."""
    if cells is None:
        cells = card_verdicts(rows, league, alpha, own_null)
    tested = cells[cells["test_p"].notna()]
    lines = [rule_line(len(tested), alpha), ""] if rule else []
    start = len(lines)
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
        cannot = part[part["cannot"]]
        if len(cannot):
            units = " or ".join(sorted({unit_of(r) for r in cannot.to_dict("records")}))
            sentence += f"; {len(cannot)} cannot reach {alpha:g} with these {units}"
        lines.append(sentence + ".")
        strongest = found.assign(size=found["effect_size"].astype(float).abs())
        for row in strongest.sort_values("size", ascending=False).head(top).to_dict("records"):
            compared = _labels_text(labels, row)
            lines.append(
                f"  * {row['method']} on {_cell(row)}: {_float(row['effect_size']):.3g}, "
                f"{p_is(p_shown(row['shown_p'], row['shown_floor'], alpha, unit_of(row)))} "
                f"({row['shown_name']}; Holm {p_shown(row['p_holm'], 0.0, alpha)})"
                + (f"; {compared}" if compared else "")
            )
    return lines if len(lines) > start else ["* No test with a p-value ran on this model."]


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
                        "primary_floor": first["test_floor"],
                        "other_floor": other["test_floor"],
                        "unit": unit_of(first),
                    }
                )
    columns = [*keys, "changed", "primary", "primary_effect", "primary_p", "other"]
    floors = ["primary_floor", "other_floor", "unit"]
    return pd.DataFrame(out, columns=[*columns, "other_effect", "other_p", *floors])


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
        f"{len(table)} verdict{' changes' if len(table) == 1 else 's change'} with a design "
        "choice (the default, which follows the "
        "paper's reference, first; p: each row's most conservative test):",
        "",
        "| method | cell | changes | default: effect, p | other choice: effect, p |",
        "|---|---|---|---|---|",
    ]
    for row in shown.to_dict("records"):
        first, other = (
            p_shown(row[f"{side}_p"], row[f"{side}_floor"], alpha, row["unit"]) or "no test"
            for side in ("primary", "other")
        )
        lines.append(
            f"| {row['method']} | {_cell(row)} | {row['changed']} | {row['primary']}: "
            f"{row['primary_effect']:.3g}, {first} | {row['other']}: "
            f"{row['other_effect']:.3g}, {other} |"
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
