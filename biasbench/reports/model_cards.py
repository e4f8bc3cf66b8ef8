"""A model card: a verdict per method family first (what is found, how strongly against the
zoo and the model's own null copies, or why nothing is), its methods' validity as a short
table, then its scores by every method on every test it ran, the verdicts a design choice
changes, the method families that apply to it and, for each that does not, why, and the
caveats of its measurement.

Pure formatting: the rows are ``results/scores/all.tsv``'s (``biasbench.rows``), the facts
about the model (:class:`ModelFacts`) come from its configuration and weights.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from biasbench.errors import InputError
from biasbench.io import read_table_csv, sha256_of
from biasbench.methods.contract import FAMILIES
from biasbench.methods.registry import REGISTRY
from biasbench.paths import ALL_SCORES, TABLE
from biasbench.reports import card_findings as findings
from biasbench.reports.calibration import league_columns
from biasbench.rows import is_primary
from biasbench.studies import calibration as cal

#: the comparison's tables a card reads: the zoo's primary cells and each method's validity
COMPARISON = tuple(TABLE.format(table=t) for t in ("synthesis_scores", "synthesis_league"))

#: what each family reads, in a line (for the families a model runs no method of)
FAMILY_READS = {
    "embedding": "the vectors of the stimuli, alone, in templates or in natural contexts",
    "probability": "a language model's probabilities of sentences or fills (its output head)",
    "distribution": "associations of targets with groups across models and corpora (DivDist)",
    "extrinsic": "a language model's choice of referent in coreference items (WinoBias)",
}


@dataclass(frozen=True)
class ModelFacts:
    """What the card says about a model besides its rows."""

    name: str
    kind: str  # static | transformer | elmo
    source: str  # <scheme>:<location>
    paper_model: str | None = None
    lowercase: bool = False
    runs_tests: bool = True  # the plan has word-set jobs for it (models.<name>.tests)
    lpbs: bool = False  # listed in lpbs.models
    datasets: tuple[str, ...] = ()  # the data sets it runs (datasets.models.<name>)
    divdist: bool = False  # named by the DivDist study (bommasani)
    divdist_files: tuple[str, ...] = ()  # the study's score rows, one file over all its models
    #: whether its weights have a language-model head (None: not known, e.g. no config.json)
    lm_head: bool | None = None
    architectures: tuple[str, ...] = ()
    audit: bool = False  # the run measured only some models (only_models)
    alpha: float = 0.01  # the significance level of the tables (config alpha)
    scores_file: str = ALL_SCORES  # the run's collected scores (an audit's own)

    @property
    def scheme(self) -> str:
        return self.source.partition(":")[0]


def read_table(path) -> pd.DataFrame:
    """A comparison table's CSV, checked against its checksum (a card must not show an edited
    table): a blank cell is missing, "n/a" is text (what the table says)."""
    return read_table_csv(path, keep_default_na=False, na_values=[""])


@dataclass(frozen=True)
class Comparison:
    """What the comparison across the zoo says beside one model: every model's primary cells
    (``synthesis_scores``) and each method's validity (``synthesis_league``)."""

    cells: pd.DataFrame
    league: pd.DataFrame
    origin: str  # where the tables come from, said on the card


def run_or_found(
    inputs: Sequence[str], found: Mapping[str, str]
) -> tuple[list[pd.DataFrame], str] | None:
    """(tables, where they come from): this run's (``inputs``), or in an audit those
    ``found`` in the checkout when it was planned (path -> sha256, :func:`found_tables`);
    None where there are neither."""
    if inputs:
        return [read_table(path) for path in inputs], "this run's comparison"
    if found:
        return found_tables(found), found_origin(found)
    return None


def zoo_comparison(inputs: Sequence[str], found: Mapping[str, str]) -> Comparison | None:
    """The comparison across the zoo (its cells and league tables) a card sets beside a
    model: this run's, or a finished default run's an audit found (:func:`run_or_found`)."""
    got = run_or_found(inputs, found)
    if got is None:
        return None
    (cells, league), origin = got
    return Comparison(cells, league, origin)


def found_tables(found: Mapping[str, str]) -> list[pd.DataFrame]:
    """The tables of a finished default run an audit found when it was planned (path ->
    sha256), each checked to be the same bytes: a default run may be writing them."""
    for path, planned in found.items():
        if sha256_of(path) != planned:
            raise InputError(
                f"{path} changed after this audit was planned (sha256 {planned[:12]}): a "
                "default run is writing it; rerun the audit when it ends"
            )
    return [read_table(path) for path in found]


def found_origin(found: Mapping[str, str]) -> str:
    """Where found tables come from, as a card says it."""
    return (
        "the finished default run in this checkout ("
        + ", ".join(f"{path} sha256 {digest[:12]}" for path, digest in found.items())
        + ")"
    )


def _number(value: float) -> str:
    return (
        "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3g}"
    )


def p_text(p: float, floor: float) -> str:
    """A p-value as a card prints it: at its design's floor ``<= 1/N`` (no smaller p could
    come out, so the number alone overstates what was found: 1/N of N partitions, 1/(1 + n)
    of n sampled ones), a z-test's p below float's range ``< 2.2e-308``, never 0."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    floor = float(floor) if floor is not None and not pd.isna(floor) else 0.0
    if floor > 0 and p <= floor * (1 + 1e-9):
        return f"<= 1/{round(1 / floor)}"
    if p == 0:
        return f"< {sys.float_info.min:.2g}"
    return f"{p:.3g}"


def why_not(family: str, facts: ModelFacts) -> str:
    """Why a family has no score for the model: the configuration field or the model's nature."""
    name = facts.name
    no_head = (
        f"its weights have no language-model head ({', '.join(facts.architectures) or 'none'}): "
        + (
            "a masked LM saved without its head has no LPBS nor any other probability"
            if family == "probability"
            else "without its head a model predicts no referent"
        )
        + "; `source: mlm-head:<model>` trains one on its body (docs/models.md)"
    )
    if family == "embedding":
        if not facts.runs_tests:
            return f"it runs no word-set test (models.{name}.tests is empty)"
        return "no score rows were written for it (see results/logs/score/)"
    if family in ("probability", "extrinsic"):
        if facts.kind == "static":
            return (
                "static word vectors assign no probability to a sentence and resolve no "
                "reference: these methods score a language model's predictions"
            )
        if facts.kind == "elmo":
            return "ELMo runs here as an encoder (its layers' states), not as a language model"
        if facts.lm_head is False:
            return no_head
        if family == "extrinsic":
            return f"WinoBias runs as a data set: winobias is not in datasets.models.{name}"
        return (
            f"it is not in lpbs.models and runs no data set (datasets.models.{name}): "
            "list it there to run LPBS and the data-set measures"
        )
    if family == "distribution":
        audit = (
            "; an audit (only_models) runs it only where it names an audited model"
            if facts.audit
            else ""
        )
        return (
            "DivDist is a study across models and corpora, and it does not name this model "
            f"(bommasani.static_models, bommasani.contextual_models){audit}"
        )
    return "not run"


def caveats(facts: ModelFacts, rows: pd.DataFrame) -> list[str]:
    """What to keep in mind reading the scores: substitutions, built weights, missing cells."""
    out = []
    if facts.paper_model:
        out.append(
            f"It stands in for {facts.paper_model} in the paper tables: its scores are this "
            f"model's, not {facts.paper_model}'s."
        )
    base = facts.source.partition(":")[2]
    if facts.scheme == "mlm-head":
        out.append(
            f"Its masked-LM head is trained here on {base}'s body (mlm_head), not the original "
            "model's head; it is labelled as what it is, never as the paper's model."
        )
    if facts.scheme == "random":
        out.append(
            f"A null model: {base}'s architecture and tokenizer with seeded random weights, the "
            "control of every method; a bias found here measures something else than training."
        )
    if facts.scheme == "quantized":
        built, _, form = base.rpartition(":")
        out.append(
            f"A quantized copy of {built}: its weights rounded to GGUF {form.upper()} blocks "
            "and back to float32 (weight-only quantization's arithmetic, not its speed); "
            f"compare it with {built} item by item (compare:), not score by score."
        )
    if facts.scheme in ("gguf-pkg", "gguf-asm"):
        out.append("Its weights are GGUF, dequantised to float32: quantisation error included.")
    if facts.lowercase:
        out.append("Its vocabulary is lowercase: the stimuli are lowercased before lookup.")
    missing = rows[rows["effect_size"].isna()]
    if len(missing):
        notes = missing["note"].fillna("").map(lambda n: n.split(";")[0].strip())
        common = notes[notes != ""].value_counts().head(3)
        reasons = "; ".join(f"{n} ({c})" for n, c in common.items())
        out.append(
            f"{len(missing)} of its {len(rows)} primary scores are n/a"
            + (f", most often: {reasons}" if reasons else "")
            + "."
        )
    if facts.audit:
        out.append(
            "Measured alone (only_models): the paper tables are not built; the zoo and the "
            "methods' validity beside it come from the comparison named under Comparison."
        )
    return out


CELL_KEYS = findings.CELL_KEYS


def zoo_scale(mine: pd.DataFrame, cells: pd.DataFrame, model: str) -> pd.Series:
    """Per row of ``mine``: the effect sizes of the zoo's other real models (no null model) in
    the same cell, as "median [min, max] (n)"; blank where none scored it."""
    spread = findings.zoo_spread(mine, cells, model)
    return pd.Series(
        [
            f"{_number(r['median'])} [{_number(r['min'])}, {_number(r['max'])}] ({int(r['count'])})"
            if r["count"]
            else ""
            for r in spread.to_dict("records")
        ],
        index=mine.index,
        dtype=object,
    )


def _interval(value, low, high, spec: str = ".2f") -> str:
    """A value with its interval, "v [low, high]" in ``spec``; "n/a" without a value."""
    if value is None or not math.isfinite(float(value)):
        return "n/a"
    return f"{float(value):{spec}} [{float(low):{spec}}, {float(high):{spec}}]"


def _text(value) -> str:
    """A table's text cell, "n/a" where it is missing."""
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _share(value) -> str:
    return "n/a" if value is None or not math.isfinite(float(value)) else f"{float(value):.1%}"


def validity_lines(league: pd.DataFrame, methods: list[str], alpha: float) -> list[str]:
    """Each of the model's methods as the comparison rates it (synthesis_league): truth,
    census, and per test design its null share and verdict."""
    columns = {d: league_columns(d) for d in cal.DESIGNS}
    lines = [
        "| method | rho with its truth [Holm-adjusted CI] | census rho | "
        + " | ".join(f"null cells p < {alpha:g}: {d} test | verdict: {d}" for d in columns)
        + " |",
        "|---|---|---|" + "---|---|" * len(columns),
    ]
    for row in league[league["method"].isin(methods)].to_dict("records"):
        designs = " | ".join(
            f"{_share(row.get(c['null']))} | {_text(row.get(c['verdict']))}"
            for c in columns.values()
        )
        truth = _interval(row["truth_spearman"], row["truth_ci_low"], row["truth_ci_high"])
        census = _number(row["census_spearman"]) or "n/a"
        lines.append(f"| {row['method']} | {truth} | {census} | {designs} |")
    return lines


def own_null_lines(
    null_rows: pd.DataFrame, model: str, copies: list[str], alpha: float, kind: str = ""
) -> list[str]:
    """The model's own null copies (its architecture and tokenizer, random weights): per
    method and test design the false-positive share of their primary cells that can reach
    alpha, with its cluster-aware interval, clusters and verdict (at most alpha is what a
    calibrated test gives)."""
    cells = null_rows[is_primary(null_rows) & null_rows["effect_size"].notna()]
    table = cal.calibration(  # a static model's copies are random directions
        cells,
        copies,
        dict.fromkeys(copies, model),
        (alpha,),
        randomizes="directions" if kind == "static" else None,
    )
    lines = [
        f"| method | test | null cells (cannot reach {alpha:g}) | clusters | share p < "
        f"{alpha:g} [95% CI] | verdict |",
        "|---|---|---|---|---|---|",
    ]
    a = f"{alpha:g}"
    for row in table[table["cells_null"] > 0].to_dict("records"):
        share = _interval(row[f"null_{a}"], row[f"null_low_{a}"], row[f"null_high_{a}"], ".1%")
        lines.append(
            f"| {row['method']} | {row['design']} | {row['cells_null']} ({row[f'cannot_{a}']}) "
            f"| {row[f'clusters_{a}']} | {share} | {row[f'verdict_{a}']} |"
        )
    return lines


def comparison_lines(
    mine: pd.DataFrame,
    facts: ModelFacts,
    comparison: Comparison | None,
    null_rows: pd.DataFrame | None,
    copies: list[str],
) -> list[str]:
    """The card's section on how far its scores can be trusted: each method's validity from
    the comparison and the model's own null copies."""
    lines = ["", "## Comparison", ""]
    methods = sorted(set(mine["method"]))
    if comparison is None:
        lines.append(
            "No comparison beside this card: no finished default run in this checkout "
            f"({', '.join(COMPARISON)}). Run `snakemake --cores 2` once (about an hour) for "
            "the zoo and the methods' validity; the card is rebuilt when they change."
        )
    else:
        lines += [
            f"From {comparison.origin}. How far each of its methods can be trusted: Spearman "
            "rho with the bias injected into the ground-truth study's models, with the 2010 "
            "census (static models), and the share of null-model cells each test calls "
            f"significant at {facts.alpha:g} (calibrated: alpha inside its exact 95% interval; "
            "docs/comparison.md). The zoo's models are beside each score under Scores.",
            "",
            *validity_lines(comparison.league, methods, facts.alpha),
        ]
    lines += ["", "### Its own null copies", ""]
    if null_rows is None or not copies:
        lines.append(
            "No null copies of this model: null_calibration.models does not list it (an "
            "audit adds its model there, unless null_calibration.audit is null; a model built "
            "from another, mlm-head: or random:, has no weights of its own to copy)."
        )
    else:
        lines += [
            f"{len(copies)} seeded copies with its architecture and tokenizer and random "
            f"weights ({', '.join(copies)}): a test that calls many of their cells significant "
            "reads something else than learned associations (the tokenizer, the templates).",
            "",
            *own_null_lines(null_rows, facts.name, copies, facts.alpha, facts.kind),
        ]
    return lines


#: after a p-value the model's own null copies did not test (their method and test)
UNCHECKED = "†"


def null_checked(rows: pd.DataFrame, null_rows: pd.DataFrame | None) -> pd.Series:
    """Per row: its method and test have a p-value on the model's own null copies, so the
    card can say how often that test rejects on random weights of this architecture."""
    if null_rows is None or null_rows.empty:
        return pd.Series(False, index=rows.index)
    tested = null_rows[null_rows["p_value"].notna() | null_rows["p_word"].notna()]
    pairs = set(zip(tested["method"], tested["test"], strict=True))
    return pd.Series(
        [(m, t) in pairs for m, t in zip(rows["method"], rows["test"], strict=True)],
        index=rows.index,
    )


def _score_table(
    rows: pd.DataFrame, zoo: pd.Series, checked: pd.Series, notes: pd.Series, alpha: float
) -> list[str]:
    lines = [
        "| method | source | test | descriptor | effect | p | p (word) | zoo: median [min, max] "
        "(models) | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (_, row), scale, ok, note in zip(rows.iterrows(), zoo, checked, notes, strict=True):
        effect = _number(row.effect_size) or "n/a"
        note = note.replace("|", "/")
        mark = "" if ok else f" {UNCHECKED}"
        unit = findings.unit_of(row)
        p, p_word = (
            findings.p_shown(row.p_value, row.get("p_floor"), alpha, unit),
            findings.p_shown(row.p_word, row.get("p_word_floor"), alpha, unit),
        )
        lines.append(
            f"| {row.method} | {row.source} | {row.test} | {row.descriptor} | {effect} | "
            f"{p + mark if p else ''} | {p_word + mark if p_word else ''} | {scale} | {note} |"
        )
    return lines


def primary_rows(rows: pd.DataFrame, model: str) -> pd.DataFrame:
    """A model's rows of each method's primary encoding and variant, in a stable order."""
    mine = rows[rows["model"] == model]
    keys = ["family", "method", "source", "test", "descriptor"]
    return mine[is_primary(mine)].sort_values(keys, kind="stable").reset_index(drop=True)


def _first_note(rows: pd.DataFrame, model: str, method: str) -> str:
    """Why a method the model ran has no primary score: the note of its first row (e.g. a
    masked-LM measure on a causal LM); empty where it has no row."""
    notes = rows.loc[(rows["model"] == model) & (rows["method"] == method), "note"].dropna()
    notes = notes[notes.astype(str).str.strip() != ""]
    return str(notes.iloc[0]).split(";")[0].strip() if len(notes) else ""


def absent_families(rows: pd.DataFrame, mine: pd.DataFrame, facts: ModelFacts) -> dict[str, str]:
    """Family -> why the card has no primary score of it, in the words of its verdict: DivDist
    scores the model in its study's own file; a method that ran wrote n/a rows alone; or the
    family does not apply (:func:`why_not`)."""
    out = {}
    every = rows[rows["model"] == facts.name]
    for family in FAMILIES:
        if (mine["family"] == family).any():
            continue
        ran = sorted(set(every.loc[every["family"] == family, "method"]))
        if family == "distribution" and facts.divdist:
            out[family] = (
                "scored by DivDist in the study across models, whose rows are not this card's "
                "and carry no test (Method families, below)"
            )
        elif ran:
            notes = "; ".join(f"{m}: {_first_note(rows, facts.name, m) or 'n/a'}" for m in ran)
            out[family] = f"no score: n/a for this model ({notes})"
        else:
            out[family] = f"not measured: {why_not(family, facts)}"
    return out


def model_card(
    rows: pd.DataFrame,
    facts: ModelFacts,
    comparison: Comparison | None = None,
    null_rows: pd.DataFrame | None = None,
    copies: list[str] = (),
    labels: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """The card of one model (Markdown) from the score rows of a run (all models' or its own),
    beside the comparison across the zoo and its own null copies' rows where there are;
    ``labels``: "test/descriptor" -> role -> label, what each word-set test compares.

    It opens with a verdict per method family (:func:`card_findings.verdict_lines`), then its
    methods' validity as a short table, the findings in detail and the scores; then the
    verdicts that change with a design choice, what the tests compare, the scales, the
    families, the caveats and the comparison in full."""
    labels = labels or {}
    mine = primary_rows(rows, facts.name)
    every = rows[rows["model"] == facts.name]
    league = comparison.league if comparison is not None else None
    own_null = null_rows[null_rows["model"].isin(set(copies))] if null_rows is not None else None
    cells = findings.card_verdicts(mine, league, facts.alpha, own_null)
    zoo = findings.zoo_spread(cells, comparison.cells if comparison else None, facts.name)
    cells = cells.join(zoo.add_prefix("zoo_"))
    tested = int(cells["test_p"].notna().sum())
    head = f"{facts.kind} model, source `{facts.source}`"
    if facts.paper_model:
        head += f", standing in for {facts.paper_model}"
    lines = [f"# Model card: {facts.name}", ""]
    lines += findings.verdict_lines(
        cells,
        labels,
        facts.alpha,
        comparison is not None,
        absent_families(rows, mine, facts),
        copies=own_null is not None and not own_null.empty,
    )
    lines += ["", f"{head}. {findings.rule_line(tested, facts.alpha)}"]
    lines += ["", "## Validity", ""]
    lines += findings.validity_table(league, cells, facts.alpha)
    if comparison is not None:
        lines += [
            "",
            f"From {comparison.origin}: the cells found of those tested here, Spearman rho "
            "with the bias injected into the ground-truth study's models, and each test's "
            "verdict on null models (**calibrated**: the only tests a cell is found under; "
            "shares, intervals and the model's own null copies under Comparison).",
        ]
    lines += ["", "## Findings", ""]
    lines += findings.summary_lines(
        mine, league, labels, facts.alpha, own_null=own_null, cells=cells, rule=False
    )
    notes, repeated = findings.folded_notes(mine["note"])
    lines += [
        "",
        "## Scores",
        "",
        "Each method's primary encoding and variant (what the paper tables show): the effect "
        "size, the paper's p-value and the word-level p-value (the stimulus word as the "
        "exchangeable unit; blank where the method has none), and the zoo's other real models "
        "in the same cell (the comparison's; blank: none, or no comparison). A p-value prints "
        'no finer than its test resolves: "cannot reach '
        f"{facts.alpha:g} with these words\" (or items) where its design's smallest p is at "
        'or above alpha, whatever the model; "<= x" at its design\'s floor x (1/N of N '
        "partitions, 1/(1 + n) of n sampled ones: no smaller p could come out); "
        f'"< {findings.RESOLUTION_TEXT}" for an analytic tail (a z-test such as CEAT\'s, '
        "a t, binomial or Wilcoxon test) below it. "
        f"{UNCHECKED}: its test was not run on this model's own null copies, so how often it "
        "rejects on random weights of this architecture is not known here. Every other "
        f"encoding and variant is in the run's collected scores ({facts.scores_file}).",
    ]
    checked = null_checked(mine, null_rows)
    scale = (
        zoo_scale(mine, comparison.cells, facts.name)
        if comparison is not None
        else pd.Series("", index=mine.index)
    )
    for family in FAMILIES:
        part = mine["family"] == family
        if part.any():
            table = _score_table(mine[part], scale[part], checked[part], notes[part], facts.alpha)
            lines += ["", f"### {family}", "", *table]
    lines += ["", "## Sensitive to a design choice", ""]
    lines += findings.sensitivity_lines(every, facts.alpha)
    tests = findings.test_lines(mine, labels)
    if tests:
        lines += ["", "## What the tests compare", "", *tests]
    lines += ["", "## Scales", "", *findings.scale_lines(sorted(set(mine["method"])))]
    lines += ["", "## Method families", ""]
    for family in FAMILIES:
        methods = [m for m in REGISTRY if m.family == family]
        ran = [m for m in methods if m.name in set(mine["method"])]
        if not ran and family == "distribution" and facts.divdist:
            lines.append(
                f"* **{family}** applies: DivDist scores it in the study across models "
                f"({', '.join(f'`{f}`' for f in facts.divdist_files)}: its rows are that "
                "study's, one file over all its models)."
            )
        elif ran:
            line = f"* **{family}** applies (it reads {FAMILY_READS[family]}): "
            line += ", ".join(m.name for m in ran)
            other_kind = [m.name for m in methods if facts.kind not in m.model_kinds]
            unplanned = [m.name for m in methods if m not in ran and m.name not in other_kind]
            scored_na = {m: _first_note(rows, facts.name, m) for m in unplanned}
            scored_na = {m: note for m, note in scored_na.items() if note}
            unplanned = [m for m in unplanned if m not in scored_na]
            if other_kind:
                line += f"; not for a {facts.kind} model: {', '.join(other_kind)}"
            if scored_na:
                line += "; n/a for it: " + ", ".join(f"{m} ({n})" for m, n in scored_na.items())
            if unplanned:
                line += f"; not planned for it by the configuration: {', '.join(unplanned)}"
            lines.append(line + ".")
        else:
            lines.append(f"* **{family}** does not apply: {why_not(family, facts)}.")
    found = caveats(facts, mine)
    if repeated:
        found.append("Notes the score tables repeat, each printed once: " + "; ".join(repeated))
    lines += ["", "## Caveats", "", *([f"* {c}" for c in found] or ["* None recorded."])]
    lines += comparison_lines(mine, facts, comparison, null_rows, list(copies))
    return "\n".join(lines) + "\n"
