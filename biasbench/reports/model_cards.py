"""A model card: one model's scores by every method on every test it ran, the method families
that apply to it and, for each that does not, why, and the caveats of its measurement.

Pure formatting: the rows are ``results/scores/all.tsv``'s (``biasbench.rows``), the facts
about the model (:class:`ModelFacts`) come from its configuration and weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from biasbench.methods.contract import FAMILIES
from biasbench.methods.registry import REGISTRY

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

    @property
    def scheme(self) -> str:
        return self.source.partition(":")[0]


#: the classes of a transformer's weights that carry a language-model head
LM_HEAD_SUFFIXES = ("ForMaskedLM", "ForCausalLM", "LMHeadModel", "ForPreTraining")


def has_lm_head(architectures: tuple[str, ...]) -> bool:
    """Whether a config.json's ``architectures`` name a model with a language-model head."""
    return any(a.endswith(LM_HEAD_SUFFIXES) for a in architectures)


def _number(value: float) -> str:
    return (
        "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3g}"
    )


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
            "Measured alone (only_models): no null model or other model beside it for scale, "
            "and no method validity from the comparison; the paper tables are not built."
        )
    return out


def _score_table(rows: pd.DataFrame) -> list[str]:
    lines = [
        "| method | source | test | descriptor | effect | p | p (word) | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows.itertuples(index=False):
        effect = _number(row.effect_size) or "n/a"
        note = str(row.note if isinstance(row.note, str) else "").replace("|", "/")
        lines.append(
            f"| {row.method} | {row.source} | {row.test} | {row.descriptor} | {effect} | "
            f"{_number(row.p_value)} | {_number(row.p_word)} | {note} |"
        )
    return lines


def primary_rows(rows: pd.DataFrame, model: str) -> pd.DataFrame:
    """A model's rows of each method's primary encoding and variant, in a stable order."""
    mine = rows[rows["model"] == model]
    primary = mine["primary"].astype(str).str.lower().isin(("true", "1", "1.0"))
    keys = ["family", "method", "source", "test", "descriptor"]
    return mine[primary].sort_values(keys, kind="stable").reset_index(drop=True)


def model_card(rows: pd.DataFrame, facts: ModelFacts) -> str:
    """The card of one model (Markdown) from the score rows of a run (all models' or its own)."""
    mine = primary_rows(rows, facts.name)
    head = f"# Model card: {facts.name}\n\n{facts.kind} model, source `{facts.source}`"
    if facts.paper_model:
        head += f", standing in for {facts.paper_model}"
    lines = [head + ".", "", "## Method families", ""]
    for family in FAMILIES:
        methods = [m for m in REGISTRY if m.family == family]
        ran = [m for m in methods if m.name in set(mine["method"])]
        if not ran and family == "distribution" and facts.divdist:
            lines.append(
                f"* **{family}** applies: DivDist scores it in the study across models "
                f"({', '.join(f'`{f}`' for f in facts.divdist_files)}; not copied here, so "
                "that this card reruns only when this model's own scores change)."
            )
        elif ran:
            line = f"* **{family}** applies (it reads {FAMILY_READS[family]}): "
            line += ", ".join(m.name for m in ran)
            other_kind = [m.name for m in methods if facts.kind not in m.model_kinds]
            unplanned = [m.name for m in methods if m not in ran and m.name not in other_kind]
            if other_kind:
                line += f"; not for a {facts.kind} model: {', '.join(other_kind)}"
            if unplanned:
                line += f"; not planned for it by the configuration: {', '.join(unplanned)}"
            lines.append(line + ".")
        else:
            lines.append(f"* **{family}** does not apply: {why_not(family, facts)}.")
    found = caveats(facts, mine)
    lines += ["", "## Caveats", "", *([f"* {c}" for c in found] or ["* None recorded."])]
    lines += [
        "",
        "## Scores",
        "",
        "Each method's primary encoding and variant (what the paper tables show): the effect "
        "size, the paper's p-value and the word-level p-value (the stimulus word as the "
        "exchangeable unit; blank where the method has none). Every other encoding and "
        "variant is in results/scores/all.tsv.",
    ]
    for family in FAMILIES:
        part = mine[mine["family"] == family]
        if len(part):
            lines += ["", f"### {family}", "", *_score_table(part)]
    return "\n".join(lines) + "\n"
