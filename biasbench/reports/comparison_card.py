"""The card of a paired comparison (``compare:`` in config.yaml): which measures moved between a
base model and a version of it, and which of them are worth reading for that question.

Each measure's line says the difference (against minus base, in points), its interval over
the independent units, the decision (Holm over the measures, at ``alpha``), the smallest
difference it could have found, and what the comparison across the zoo knows of the measure:
its validity against the injected truth, its reliability and its null-model verdict (from the
league table of a default run in the same checkout; said where there is none).
"""

from __future__ import annotations

import math

import pandas as pd

from biasbench.reports.model_cards import p_text
from biasbench.reports.tables import left_out

#: the league's columns a comparison card quotes beside each measure, and their words
LEAGUE_FACTS = {
    "truth_verdict": "validity",
    "reliability": "reliability",
    "calibration_paper": "null models",
}


def _points(value: float) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:+.1f}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def floor_note(row: dict, alpha: float, measures: int) -> str:
    """The p-value floor of a measure whose swap test cannot reach the level its detectable
    difference is judged at (alpha over the ``measures``: Bonferroni's level, Holm's first
    step): no difference of any size is detectable there, which a number would hide; "" where
    the test can reach it."""
    level, floor = alpha / measures, row["p_floor"]
    if not floor >= level:  # NaN: no floor known
        return ""
    return (
        f"p-value floor: the swap test cannot reach alpha {level:.3g} ({alpha:g} over "
        f"{_count(measures, 'measure')}) with {_count(row['units'], 'unit')}: p cannot go "
        f"below {floor:.3g}"
    )


def no_spread(row: dict) -> bool:
    """Every unit's difference alike (two models that agree on every item): the spread the
    detectable difference scales is 0, so it says nothing of what the comparison could see."""
    return row["stderr"] == 0


def unmoved(row: dict) -> bool:
    """No unit's difference is other than 0: the two models agree on every item."""
    return no_spread(row) and row["difference"] == 0


def detectable_text(row: dict, alpha: float, measures: int) -> str:
    """The card's detectable cell: none under the p-value floor; without a spread, "no unit
    differs" or "no spread"."""
    if floor_note(row, alpha, measures):
        return "none"
    if unmoved(row):
        return "no unit differs"
    if no_spread(row):
        return "no spread"
    return "n/a" if math.isnan(row["detectable"]) else f"{row['detectable']:.1f}"


def verdict(row: dict, alpha: float, measures: int) -> str:
    """One measure's sentence: moved (which way, how far, how sure) or not, with its power
    (at alpha over the ``measures``, as the detectable difference)."""
    moved = "fell" if row["difference"] < 0 else "rose"
    interval = f"[{_points(row['low'])}, {_points(row['high'])}]"
    tested = (
        f"p {p_text(row['p_value'], row['p_floor'])} over {row['units']} units, "
        f"Holm {p_text(row['p_holm'], row['p_floor'])}"
    )
    if row["significant"]:
        distance = f"{abs(row['difference']):.1f} points"
        return f"{moved} {distance} {interval} ({tested}): found at {alpha}"
    head = (
        f"{_points(row['difference'])} points {interval} ({tested}): no difference found at {alpha}"
    )
    floor = floor_note(row, alpha, measures)
    if floor:
        return f"{head}; {floor}: no difference is detectable"
    if unmoved(row):
        return (
            f"{head}; no difference on any unit: the two models agree item by item, so there "
            "is no spread to judge what the comparison could have seen"
        )
    if no_spread(row):
        return (
            f"{head}; every unit's difference is the same, so there is no spread to judge a "
            "detectable difference by"
        )
    return f"{head}; one under {row['detectable']:.1f} points would go unseen (80% power)"


def study_check(row: dict, check: pd.DataFrame | None) -> str:
    """What synthesis_paired_check says of the measure: on the study's models of known
    difference, how many differences it found, with and against the truth (its own encoding
    and variant where the study ran them, else the method's other rows, named). A check
    left out (the study switched off, ``groundtruth: null``) is said, never looked into."""
    if left_out(check):
        return "the ground-truth study is not part of this configuration (no study check)"
    if check is None or check.empty:
        return ""
    mine = check[check["method"] == row["method"]]
    same = mine[(mine["encoding"] == row["encoding"]) & (mine["variant"] == row["variant"])]
    picked = same if len(same) else mine
    if picked.empty:
        return ""
    parts = [
        f"found {int(r['found'])} of {int(r['pairs'])} known differences "
        f"({int(r['found_with_truth'])} with the truth, {int(r['found_against_truth'])} against)"
        + ("" if len(same) else f" as {r['encoding']}/{r['variant']}")
        for r in picked.to_dict("records")
    ]
    return "on the study's models: " + "; ".join(parts)


def what_is_known(method: str, league: pd.DataFrame | None) -> str:
    """The league's validity, reliability and null-model verdict of ``method``."""
    if league is None:
        return "no comparison across the zoo in this checkout (run the default DAG first)"
    found = league[league["method"] == method]
    if found.empty:
        return "not in the comparison's league"
    row = found.iloc[0]
    parts = []
    for column, word in LEAGUE_FACTS.items():
        value = row.get(column)
        if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
            continue
        parts.append(f"{word} {value:.2f}" if isinstance(value, float) else f"{word}: {value}")
    return "; ".join(parts) or "nothing known yet"


def comparison_card(
    table: pd.DataFrame,
    league: pd.DataFrame | None,
    check: pd.DataFrame | None,
    alpha: float,
    origin: str,
) -> str:
    """The card's Markdown from the comparison's table (one row per measure), the league and
    the study's paired check (None: no default run's comparison; ``origin`` says where it
    came from)."""
    base, against = table["base"].iloc[0], table["against"].iloc[0]
    lines = [
        f"# {against} against {base}: a paired comparison",
        "",
        f"Both models scored the same {int(table['items'].max())} items; each measure's "
        f"difference ({against} minus {base}, in points) has a 95% interval that resamples "
        "the independent units (a CrowS-Pairs pair's swapped words, a StereoSet item's "
        "target term), and its p comes from exchanging the two models' outcomes on every item "
        "of one unit together; Holm's correction runs "
        f"over the {len(table)} measures, decided at {alpha}. McNemar's test, which takes "
        "every item as independent, is beside it for reference.",
        "",
        "| data set | measure | encoding | "
        f"{base} | {against} | difference [95%] | p | Holm | McNemar | detectable |",
        "|---|---|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    records = table.to_dict("records")
    for row in records:
        lines.append(
            f"| {row['dataset']} | {row['method']} | {row['encoding']} | "
            f"{row['base_score']:.1f} | {row['against_score']:.1f} | "
            f"{_points(row['difference'])} [{_points(row['low'])}, {_points(row['high'])}] | "
            f"{p_text(row['p_value'], row['p_floor'])} | "
            f"{p_text(row['p_holm'], row['p_floor'])} | {row['p_mcnemar']:.3g} | "
            f"{detectable_text(row, alpha, len(table))} |"
        )
    lines += ["", "## What each difference is worth", ""]
    for row in records:
        known = "; ".join(
            k for k in (what_is_known(row["method"], league), study_check(row, check)) if k
        )
        lines.append(
            f"- **{row['method']}** ({row['dataset']}, {row['encoding']}, {row['variant']}): "
            f"{verdict(row, alpha, len(table))}. What the comparison knows of it: {known}."
        )
    lines += ["", f"The comparison across the zoo: {origin}.", ""]
    return "\n".join(lines)
