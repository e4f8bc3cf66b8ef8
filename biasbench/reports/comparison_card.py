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

from biasbench import paths
from biasbench.reports.model_cards import p_text
from biasbench.reports.tables import left_out

#: the league's columns a comparison card quotes beside each measure, and their words
LEAGUE_FACTS = {
    "truth_verdict": "validity",
    "reliability": "reliability",
    "calibration_paper": "null models",
}


#: what each family's measures read, and so which change can move them (the card's opening)
READS = {
    "data set": "the model's probabilities of whole sentences (CrowS-Pairs, StereoSet): a "
    "change to the output head or to every layer moves them; a change to the word vectors "
    "only through the layers above",
    "embedding": "the model's vectors of a test's words in their templates (WEAT to RND): a "
    "projection or any edit of those vectors moves them first",
    "probability": "the model's probability of a target word beside an attribute word, in "
    "templates (LPBS) or corpus contexts (p-CEAT): an edit of the word vectors or of the "
    "output head moves them",
}
#: each family's heading, the unit of its differences, and how to put it in a comparison
FAMILIES = {
    "data set": (
        "Data sets",
        "points",
        "list a data set with per-item outcomes under datasets.models for both models",
    ),
    "embedding": (
        "Embedding measures",
        "effect-size units",
        "give both models a test under models.<model>.tests",
    ),
    "probability": (
        "Probability measures",
        "effect-size units",
        "list both models under lpbs.models (and lpbs.corpus_models for p-CEAT)",
    ),
}


def _points(value: float, family: str = "data set") -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:+.1f}" if family == "data set" else f"{value:+.3g}"


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
    return _points(row["detectable"], row.get("family", "data set")).lstrip("+")


def verdict(row: dict, alpha: float, measures: int) -> str:
    """One measure's sentence: moved (which way, how far, how sure) or not, with its power
    (at alpha over the ``measures``, as the detectable difference)."""
    family = row.get("family", "data set")
    unit = FAMILIES[family][1]
    moved = "fell" if row["difference"] < 0 else "rose"
    interval = f"[{_points(row['low'], family)}, {_points(row['high'], family)}]"
    tested = (
        f"p {p_text(row['p_value'], row['p_floor'])} over {row['units']} units, "
        f"Holm {p_text(row['p_holm'], row['p_floor'])}"
    )
    if row["significant"]:
        distance = _points(abs(row["difference"]), family).lstrip("+")
        return f"{moved} {distance} {unit} {interval} ({tested}): found at {alpha}"
    head = (
        f"{_points(row['difference'], family)} {unit} {interval} ({tested}): no difference "
        f"found at {alpha}"
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
    detectable = _points(row["detectable"], family).lstrip("+")
    return f"{head}; one under {detectable} {unit} would go unseen (80% power)"


def flips(row: dict) -> str:
    """A data-set measure's items that flip between the two models, in words: those only the
    other model prefers the stereotyped sentence on (to it) and those only the base does
    (away from it); "" for an embedding measure, whose outcome is no preference."""
    if row.get("family", "data set") != "data set":
        return ""
    to, away = row["against_only"], row["base_only"]
    if to is None or away is None or math.isnan(to) or math.isnan(away):
        return ""
    return (
        f"Items that flip: {int(to)} to the stereotyped sentence, {int(away)} away from it "
        f"(of {_count(int(row['items']), 'item')})."
    )


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


def scope(table: pd.DataFrame, left_out: list[dict]) -> list[str]:
    """The card's opening list: each family compared (its data sets or tests, its measures),
    each measure present but not compared and why, and what each family reads."""
    lines = []
    for family, (heading, _unit, how) in FAMILIES.items():
        mine = table[table["family"] == family]
        if not len(mine) and not any(item["family"] == family for item in left_out):
            lines.append(f"- Not run for both models: {heading.lower()} ({how}).")
        if len(mine):
            where = ", ".join(dict.fromkeys(mine["dataset"]))
            methods = ", ".join(dict.fromkeys(mine["method"]))
            lines.append(
                f"- {heading} compared: {_count(len(mine), 'measure')} on {where} "
                f"({methods}). They read {READS[family]}."
            )
    reasons: dict[str, dict[str, list[str]]] = {}  # why -> method -> the tests it left out
    for item in left_out:
        reasons.setdefault(item["why"], {}).setdefault(item["method"], []).append(item["dataset"])
    for why, methods in reasons.items():
        where = ", ".join(dict.fromkeys(d for ds in methods.values() for d in ds))
        lines.append(f"- Not compared: {', '.join(methods)} on {where}: {why}.")
    return lines


def _table(records: list[dict], family: str, names: tuple[str, str], alpha: float, n: int):
    """One family's table: the data sets carry McNemar's test beside the swap test."""
    base, against = names
    data_set = family == "data set"
    lines = [
        f"| {'data set' if data_set else 'test'} | measure | encoding | {base} | {against} | "
        "difference [95%] | p | Holm |" + (" McNemar |" if data_set else "") + " detectable |",
        "|---|---|---|---:|---:|---|---:|---:|" + ("---:|" if data_set else "") + "---:|",
    ]
    for row in records:
        score = "{:.1f}" if data_set else "{:.3g}"
        lines.append(
            f"| {row['dataset']} | {row['method']} | {row['encoding']} | "
            f"{score.format(row['base_score'])} | {score.format(row['against_score'])} | "
            f"{_points(row['difference'], family)} [{_points(row['low'], family)}, "
            f"{_points(row['high'], family)}] | "
            f"{p_text(row['p_value'], row['p_floor'])} | "
            f"{p_text(row['p_holm'], row['p_floor'])} | "
            + (f"{row['p_mcnemar']:.3g} | " if data_set else "")
            + f"{detectable_text(row, alpha, n)} |"
        )
    return lines


def comparison_card(
    table: pd.DataFrame,
    league: pd.DataFrame | None,
    check: pd.DataFrame | None,
    alpha: float,
    origin: str,
    left_out: list[dict] = (),
) -> str:
    """The card's Markdown from the comparison's table (one row per measure), the league and
    the study's paired check (None: no default run's comparison; ``origin`` says where it
    came from), and the measures ``left_out`` (family, method, data set or test, why)."""
    base, against = table["base"].iloc[0], table["against"].iloc[0]
    if "family" not in table:
        table = table.assign(family="data set")
    lines = [
        f"# {against} against {base}: a paired comparison",
        "",
        f"Both models were scored on the same units. Each measure's difference ({against} "
        f"minus {base}) has a 95% interval that resamples the independent units (a "
        "CrowS-Pairs pair's swapped words, a StereoSet item's target term, a test's target "
        "word or definitional pair, an attribute word with its templates or contexts), and "
        "its p comes from exchanging the two models' outcomes, vectors or log-probabilities "
        "on every item of one unit together; Holm's correction runs over the "
        f"{len(table)} measures, decided at {alpha}. The figure "
        f"`{paths.COMPARISON_FIGURE_PNG.format(base=base, against=against)}` draws every "
        "difference with its interval.",
        "",
        "## What it compared, and what it could not",
        "",
        *scope(table, list(left_out)),
    ]
    records = table.to_dict("records")
    names = (base, against)
    for family, (heading, unit, _how) in FAMILIES.items():
        mine = [r for r in records if r["family"] == family]
        if not mine:
            continue
        lines += ["", f"## {heading} (differences in {unit})", ""]
        if family == "data set":
            lines += [
                "McNemar's test, which takes every item as independent, is beside the swap "
                "test for reference.",
                "",
            ]
        lines += _table(mine, family, names, alpha, len(table))
    lines += ["", "## What each difference is worth", ""]
    for row in records:
        known = "; ".join(
            k for k in (what_is_known(row["method"], league), study_check(row, check)) if k
        )
        flipped = flips(row)
        lines.append(
            f"- **{row['method']}** ({row['dataset']}, {row['encoding']}, {row['variant']}): "
            f"{verdict(row, alpha, len(table))}. {flipped + ' ' if flipped else ''}"
            f"What the comparison knows of it: {known}."
        )
    lines += ["", f"The comparison across the zoo: {origin}.", ""]
    return "\n".join(lines)
