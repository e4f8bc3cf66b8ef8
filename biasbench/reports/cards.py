"""Method cards: one Markdown page per registered method, generated from its declaration,
its module's documentation and the results (agreement, validity, null models, cost)."""

from __future__ import annotations

import re
import sys

import numpy as np
import pandas as pd

from biasbench.reports.agreement import AGREEMENT_OVER_CELLS
from biasbench.reports.calibration import DESIGN_LABELS, league_columns
from biasbench.studies.calibration import DESIGNS
from biasbench.studies.reliability import NOT_REACHABLE, REACHABLE, TARGET

#: the peers' mistakes a method avoids here (from the papers and the reading aid); each has a
#: regression test named in docs/delobelle2022.md
PITFALLS = {
    "CrowS-Pairs": "sums log-probabilities of the unmodified tokens (the authors' code of "
    "Delobelle et al. sums probabilities)",
    "DisCo": "chi-squared on integer fill counts, not on normalised top-3 probabilities; names "
    "filled as names (not 'The liam'); 'took a course on' as printed",
    "BEC-Pro": "the prior is read at the person slot with the profession masked (Kurita's code "
    "reads it at the last mask, the attribute slot)",
    "LPBS": "sums of probabilities in log space (no 0/0 = NaN on rare words); the prior read "
    "at the target slot",
    "LPBS he/she": "the prior read at the pronoun slot, the profession masked word piece by "
    "word piece",
    "WEAT": "sample or population sd stated (ddof); p from all partitions where feasible",
    "SAME": "standard Gram-Schmidt (the printed eq. 39 is not)",
    "SAME skew": "not trustworthy (a biased set can score 0), unlike the paper's Table 4",
    "SAME stereotype": "not trustworthy (a biased set can score 0), unlike the paper's Table 4",
    "MAC": "a mean distance, not a difference: with opposite attributes every word scores 1",
    "DivDist": "exclusive co-occurrence (HELM's counting is the variant); negative cosines "
    "need a stated policy",
    "AUL": "masked LMs only: a causal LM's row is n/a, never a renamed other method",
}


NO_CODE = "the paper's equations (no authors' code consulted)"


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _definition(method) -> str:
    module = sys.modules.get(method.compute.__module__)
    doc = (module.__doc__ or "").strip() if module else ""
    return doc or method.description


def _calibration_line(league: pd.Series, design: str, alpha: float | None) -> str:
    """The calibration verdict of one of the method's test designs on the null models, with
    the false-positive share, its cluster-aware interval and the clusters behind it."""
    columns = league_columns(design)
    share, low, high, clusters, verdict = (
        columns[what] for what in ("null", "null_low", "null_high", "clusters", "verdict")
    )
    what = f"the {DESIGN_LABELS[design]}"
    level = f"p < {alpha:g}" if alpha is not None else "p < alpha"
    verdict = league.get(verdict)
    value = league.get(share)
    if verdict in (None, "n/a") or value is None or pd.isna(value):
        return f"- {what} on null models: n/a (no null-model cell that can reach alpha)"
    shown = f"{value:.3g} of the null cells at {level}"
    if not pd.isna(league.get(low)):
        shown += (
            f", 95% interval [{league[low]:.3g}, {league[high]:.3g}] over "
            f"{int(league[clusters])} clusters"
        )
    return f"- {what} on null models: {verdict} ({shown})"


def card(
    method, league: pd.Series | None, partners: pd.DataFrame, alpha: float | None = None
) -> str:
    lines = [
        f"# {method.name}",
        "",
        f"*{method.paper}* · family `{method.family}` · input `{method.consumes.__name__}`",
        "",
        "## Definition",
        "",
        _definition(method),
        "",
        "## Inputs and conventions",
        "",
        f"- roles: {', '.join(method.roles)}; encodings: {', '.join(method.encodings)} "
        f"(default first); variants: {', '.join(method.variants)}",
        f"- model kinds: {', '.join(method.model_kinds)}; the paper tables show it on "
        f"`{method.context}` contexts",
        f"- swapping the two target sets {method.swap} the effect size",
        f"- reference: {method.reference or NO_CODE}; every other encoding and variant above "
        "is a named departure from it",
        f"- known pitfalls avoided: {PITFALLS.get(method.name, 'none recorded')}",
        "",
        "## What it agrees with",
        "",
    ]
    if partners.empty:
        lines.append("No other method shares enough (model, test) cells with it.")
    else:
        lines += ["| method | shared cells | Spearman rho | 95% interval |", "|---|---:|---:|---|"]
        for r in partners.itertuples():
            shown = (
                f"[{r.ci_low:.2f}, {r.ci_high:.2f}]"
                if pd.notna(r.ci_low)
                else "none (too few models or tests to resample)"
            )
            lines.append(f"| {r.other} | {r.n} | {r.spearman:.2f} | {shown} |")
    lines += ["", "## Validity and cost", ""]
    if league is None:
        lines.append("Not in the league table.")
    else:
        rho = league.get("truth_spearman")
        if rho is None or pd.isna(rho):
            why = league.get("truth_note")
            why = why if isinstance(why, str) and why else "no ground-truth models"
            lines.append(f"- rho with the injected bias (ground-truth models): n/a ({why})")
        else:
            lines.append(
                f"- rho with its truth ({league['truth_quantity']}, ground-truth models): "
                f"{rho:.2f} [{league['truth_ci_low']:.2f}, {league['truth_ci_high']:.2f}] "
                f"(Holm-adjusted interval) over {int(league['models'])} models, "
                f"{int(league['distributions'])} independent draws: {league['truth_verdict']}"
            )
        for column, label in (
            ("reliability_words", "split-half reliability over the words (Spearman-Brown)"),
            ("reliability_templates", "the same over the templates"),
            ("reliability_items", "the same over a data set's items"),
            ("reliability_fit", "test-retest reliability across fine-tuning seeds (refits)"),
            ("reliability", "reliability over every facet at once (generalizability)"),
            (
                "length_for_target",
                f"multiple of its items' (or words') length for reliability {TARGET:g} over "
                "every facet (D-study)",
            ),
            ("length_low", "its 90% interval's low end"),
            ("length_high", "its high end (inf: no length may reach it)"),
            ("census_spearman", "rho with the 2010 census (static models)"),
            ("extrinsic_spearman", "rho with the WinoBias F1 gap across models"),
            ("significant_null", "share significant on null models (random weights)"),
            ("significant_real", "share significant on real models"),
            ("statistic_seconds", "seconds for the statistic on a typical test"),
            ("cells", "scored cells on real models"),
        ):
            value = league.get(column)
            shown = "n/a" if value is None or pd.isna(value) else f"{value:.3g}"
            lines.append(f"- {label}: {shown}")
        reached = league.get("reachable") in (REACHABLE, NOT_REACHABLE)
        lines += [_reach_line(league)] if reached else []
        lines += [_calibration_line(league, d, alpha) for d in DESIGNS]
    return "\n".join(lines) + "\n"


def _reach_line(league) -> str:
    """The D-study's units beside the data set's: whether any sample of it reaches 0.8."""
    needed = league["items_needed"]
    shown = "no number of them" if np.isinf(needed) else f"{needed:.0f}"
    return (
        f"- units of the injected category for reliability {TARGET:g}: {shown} "
        f"(scored {league['items_scored']:.0f}; the data set holds "
        f"{league['items_held']:.0f}): "
        + ("reachable" if league["reachable"] == REACHABLE else "not reachable with this data set")
    )


def cards(league: pd.DataFrame, agreement: pd.DataFrame, alpha: float) -> dict[str, str]:
    """slug -> Markdown, for every registered method, and ``index`` linking them; from the
    comparison's own tables (``synthesis_league`` and ``synthesis_agreement``, as
    :func:`biasbench.reports.model_cards.read_table` reads them), never recomputed."""
    from biasbench.methods.registry import REGISTRY

    league = league.set_index("method")
    over_cells = agreement["over"] == AGREEMENT_OVER_CELLS
    pairs = agreement[over_cells & agreement["spearman"].notna()]
    out = {}
    for method in REGISTRY:
        mine = pd.concat(
            [
                pairs[pairs["method_a"] == method.name].rename(columns={"method_b": "other"}),
                pairs[pairs["method_b"] == method.name].rename(columns={"method_a": "other"}),
            ]
        ).sort_values("spearman", ascending=False)
        row = league.loc[method.name] if method.name in league.index else None
        out[slug(method.name)] = card(method, row, mine, alpha)
    index = ["# Method cards", "", "| method | paper | family |", "|---|---|---|"]
    index += [f"| [{m.name}]({slug(m.name)}.md) | {m.paper} | {m.family} |" for m in REGISTRY]
    out["index"] = "\n".join(index) + "\n"
    return out
