"""Bommasani & Liang (2022), *Trustworthy Social Bias Measurement*: the sources of association
(Table 1) as run here, and the validity protocol (face, predictive, diachronic, mitigation,
amplification) on DivDist and the prior measures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasbench.io import read_json, read_tsv
from biasbench.reports.figures import no_data
from biasbench.reports.tables import plain_table, study_table
from biasbench.reports.targets import FigureTarget, Inputs, Table, published_doc

PAPER = "Bommasani & Liang (2022)"
#: its tables' and figures' section of the report (biasbench.reports.catalog)
SECTION = PAPER
#: its place among the catalog's modules (biasbench.reports.catalog): the report's order
ORDER = 4
NOT_RUN = "The configuration does not run the DivDist study (bommasani: null)."
SUBSTITUTION = (
    "Substitutions: the paper's Wikipedia, word2vec, GloVe and BERT become the corpora that "
    "install here (RedditBias, a 106-article Wikipedia dump, BOLD/GAP and BUG sentences), "
    "GloVe 6B-50d, a 26k-word word2vec subset, and MiniLM-L6, SmolLM2-135M and Gemma 3 270M."
)


def _reads(plan) -> dict[str, list[str]]:
    """The DivDist study's outputs (none where it does not run)."""
    return {"divdist": list(plan.divdist)}


def _load(inputs: Inputs):
    by_name = {Path(p).name: p for p in inputs["divdist"]}
    if "validity.json" not in by_name:
        return None, None
    validity = read_json(by_name["validity.json"])
    return validity, read_tsv(by_name["bias.tsv"])


def _loaded(inputs: Inputs):
    validity, bias = _load(inputs)
    return None if validity is None else (validity, bias)


def _study_table(title: str):
    return study_table(title, _loaded, NOT_RUN)


def _study_figure(draw):
    """A figure drawn from the study's outputs by ``draw(validity, bias, settings)``; without
    the study it says that it is not run."""

    def render(inputs: Inputs, settings):
        validity, bias = _load(inputs)
        return no_data(NOT_RUN) if validity is None else draw(validity, bias, settings)

    return render


def _frame(validity: dict, name: str) -> pd.DataFrame:
    return pd.DataFrame(validity.get(name, []))


def _setting(frame: pd.DataFrame) -> pd.Series:
    """A readable name of each source setting: source, model or corpus, k."""
    k = frame["k"].astype(int)
    where = (
        frame["model"]
        .fillna("")
        .astype(str)
        .where(frame["model"].fillna("") != "", frame["corpus"])
    )
    text = frame["source"].isin(["text", "generated text"])
    return frame["source"] + " · " + where + np.where(text, " · k=" + k.astype(str), "")


@_study_table("Table 1: the sources of association, as run here")
def sources(validity: dict, bias: pd.DataFrame, settings):
    paper = bias[bias["rule"] == "paper"].fillna({"model": "", "corpus": ""})
    paper = paper.assign(
        setting=paper["model"] + "|" + paper["corpus"] + "|" + paper["k"].astype(str)
    )
    covered = (
        paper.groupby(["source", "kind"], sort=False)
        .agg(settings=("setting", "nunique"), professions=("divdist_uniform", "count"))
        .reset_index()
    )
    accuracy = validity.get("probe_accuracy", {})
    how = {
        "text": "exclusive co-occurrence in contexts of k sentences of each corpus (the "
        "paper; HELM's products-over-list-size form as the 'helm' rule)",
        "generated text": "the same on a causal LM's seeded unconditional samples",
        "embedding": "cosine of the profession with each group's mean vector (static models)",
        "reduction": "the same on each word's final-layer vectors averaged over sampled "
        "contexts (Bommasani et al., 2020)",
        "probe": "a 5-fold linear probe on the profession's contextual vectors; labels from "
        "exclusive co-occurrence in the context, so circular with the text source; held-out "
        "accuracy "
        + ", ".join(f"{m} {a.get('gender', float('nan')):.2f}" for m, a in accuracy.items()),
    }
    covered["implementation"] = covered["source"].map(how)
    human = pd.DataFrame(
        [
            {
                "source": "human text",
                "kind": "gender",
                "settings": 0,
                "professions": 0,
                "implementation": "n/a: no human annotations of contexts are available here",
            }
        ]
    )
    frame = pd.concat([covered, human], ignore_index=True)
    note = (
        "settings: models, corpora and k the source runs on; professions: per-profession "
        "DivDist values defined, summed over its settings (a profession that no context "
        "mentions with a group's words has none). " + SUBSTITUTION
    )
    return frame, note


@_study_table("Face validity: the most female- and male-dominated census professions")
def face(validity: dict, _bias: pd.DataFrame, settings):
    frame = _frame(validity, "face")
    if frame.empty:
        return frame, "No profession is covered by every setting."
    frame["setting"] = _setting(frame)
    wide = frame.pivot_table(index="setting", columns="profession", values="first_share")
    census = frame.groupby("profession")["census_female"].first().sort_values(ascending=False)
    wide = wide.reindex(columns=census.index).reset_index()
    wide["agree with census"] = wide["setting"].map(frame.groupby("setting")["agrees"].mean())
    wide = wide.rename(columns={p: f"{p} ({100 * c:.0f}% f)" for p, c in census.items()})
    note = (
        "Each cell: the female share of the profession's normalised association (above 0.5: "
        "associated with women); columns: census 2010 female share. 'agree with census': the "
        "share of the eight on the census' side of 0.5. The paper reports that all settings "
        "align with the stereotypes but 'librarian' on Wikipedia. " + SUBSTITUTION
    )
    return wide, note


@_study_table("Predictive validity: per-profession bias against the 2010 census")
def predictive(validity: dict, _bias: pd.DataFrame, settings):
    frame = _frame(validity, "predictive")
    note = (
        "Spearman rho and Pearson r over the professions a model covers (n), p two-sided and "
        "Holm-adjusted over the table. 'unsigned': the measure's magnitude (|RND|, |RIPA|) "
        "against the census bias |q_f - q_m| (race: L1 from uniform over white, hispanic, "
        "asian); 'signed': the signed measure against q_f - 1/2 (the paper does not say which "
        "it correlated). The paper's claims: only DivDist is significant throughout, the "
        "PCA-based measure fails, MAC is anti-correlated. Race runs DivDist only: Direct Bias "
        "and RIPA need definitional pairs and RND two groups; diachronic validity needs "
        "decade embeddings (HistWords), which are not available: n/a."
    )
    return frame, note


@_study_table("Mitigation: each measure before and after hard debiasing")
def mitigation(validity: dict, _bias: pd.DataFrame, settings):
    frame = _frame(validity, "mitigation")
    if not frame.empty:
        frame["change"] = frame["after"] - frame["before"]
    note = (
        "Mean over the census professions (|value| for RND and RIPA) of each measure on the "
        "static vectors, before and after hard debiasing (neutralise the professions, equalise "
        "debiaswe's equality pairs; one PCA direction from the definitional pairs). The "
        "paper's claim: a debiasing method lowers its own target (Direct Bias) while DivDist "
        "does not fall with it (7 of 8 methods raise it)."
    )
    return frame, note


@_study_table("Amplification, adapted: DivDist of data, representations and samples")
def amplification(validity: dict, _bias: pd.DataFrame, settings):
    frame = _frame(validity, "amplification")
    note = (
        "Mean DivDist (uniform reference) over the professions each source covers. The paper "
        "compares GPT-2's training data (WebText), a probe on its representations and its "
        "samples. Adapted: SmolLM2's training data are not available, so the corpora here "
        "stand in for 'data' (not its training data), reduction and probe on its vectors for "
        "'representations', and its seeded samples for 'outputs'. Few professions occur in a "
        "few hundred short samples: read the 'professions' column first."
    )
    return frame, note


@_study_table("Sensitivity: per-profession DivDist under one changed choice")
def sensitivity(validity: dict, _bias: pd.DataFrame, settings):
    note = (
        "Spearman rho of each setting's per-profession DivDist with one choice changed "
        "against the default (L1, s / sum s, the paper's exclusive counting, HELM's full word "
        "lists, 3-sentence contexts): TV is half of L1 (rho 1 by construction); add-one gives "
        "every group a share; HELM counts every co-occurrence; half lists: a seeded half of "
        "each group's words. The paper: 'quite stable' to word lists, normalization and "
        "distance."
    )
    return _frame(validity, "sensitivity"), note


CRITERIA = "resources/published/bommasani2022.yaml"
#: the target of ours that checks each criterion of the paper's Table 2
CHECKED_BY = {
    "face_validity": "bommasani2022_face",
    "content_validity": "tests/test_divdist.py (the definition's properties)",
    "convergent_validity": "n/a: needs human-annotated contexts",
    "predictive_validity": "bommasani2022_predictive (contemporary); diachronic n/a: needs "
    "decade embeddings",
    "hypothesis_validity": "bommasani2022_amplification, bommasani2022_mitigation",
    "consequential_validity": "n/a: an adoption, not an experiment",
    "inter_annotator_agreement": "n/a: no annotators",
    "sensitivity": "bommasani2022_sensitivity",
}


def criteria_inputs(plan) -> dict[str, list[str]]:
    return {"published": [CRITERIA]}


def criteria(inputs: Inputs, settings):
    title = "Table 2: the measurement-modelling criteria, and where each is checked"
    doc = published_doc(inputs)["table_2"]
    rows = [
        {
            "criterion": name.replace("_", " "),
            "kind": kind,
            "definition": text,
            "checked by": CHECKED_BY.get(name, "n/a"),
        }
        for kind in ("validity", "reliability")
        for name, text in doc[kind].items()
    ]
    note = "The paper's Table 2 (transcribed) with the target of ours that implements the check."
    return plain_table(pd.DataFrame(rows), title, note)


def _significant(pred: pd.DataFrame, measure: str, against: str = "unsigned") -> str:
    rows = pred[(pred["measure"] == measure) & (pred["against"] == against)]
    if rows.empty:
        return "not run"
    return ", ".join(
        f"{r.model} {r.kind} rho {r.spearman:.2f} (Holm p {r.p_spearman_holm:.2g})"
        for r in rows.itertuples()
    )


@_study_table("The paper's claims, one by one, against our run")
def claims(validity: dict, _bias: pd.DataFrame, settings):
    pred = _frame(validity, "predictive")
    face_frame = _frame(validity, "face")
    mit = _frame(validity, "mitigation")
    amp = _frame(validity, "amplification")
    sens = _frame(validity, "sensitivity")
    rows = []
    agree = face_frame["agrees"].dropna() if "agrees" in face_frame else pd.Series(dtype=float)
    face_text = (
        f"{agree.mean():.0%} of {len(agree)} (setting, profession) cells on the census' side"
        if len(agree)
        else "no profession covered by every vector model"
    )
    rows.append(
        (
            "Face: every setting aligns with the census stereotypes (but 'librarian' on Wikipedia)",
            face_text,
        )
    )
    if not pred.empty:
        ok = pred[(pred["against"] == "unsigned") & (pred["measure"] == "DivDist")]
        sig = ok["p_spearman_holm"] < 0.05
        rows.append(
            (
                "Predictive: DivDist correlates significantly with the census in all settings",
                f"{int(sig.sum())} of {len(ok)}: " + _significant(pred, "DivDist"),
            )
        )
        for measure, claim in (
            ("Direct Bias", "Predictive: the PCA-based measures (Bolukbasi, Ethayarajh) fail"),
            ("RIPA", "Predictive: RIPA (PCA-based) fails"),
            ("RND", "Predictive: Garg's averaging-based measure tracks the census"),
            ("MAC", "Predictive: MAC is strongly anti-correlated with the census"),
        ):
            rows.append((claim, _significant(pred, measure)))
    if not mit.empty:
        own = mit[mit["measure"] == "Direct Bias"]
        dd = mit[mit["measure"] == "DivDist"]
        rows.append(
            (
                "Mitigation: debiasing lowers its own target measure",
                ", ".join(f"{r.model} {r.before:.3f} -> {r.after:.3f}" for r in own.itertuples()),
            )
        )
        rows.append(
            (
                "Mitigation: ... but not DivDist (7 of 8 methods raise it)",
                ", ".join(f"{r.model} {r.before:.3f} -> {r.after:.3f}" for r in dd.itertuples()),
            )
        )
    if not amp.empty:
        gender = amp[amp["kind"] == "gender"]
        rows.append(
            (
                "Amplification: representations (probe) are more biased than the data; samples "
                "marginally less",
                "; ".join(
                    f"{r.source} {r.model or r.corpus} {r.mean:.2f} ({r.professions} prof.)"
                    for r in gender.itertuples()
                ),
            )
        )
    if not sens.empty:
        real = sens[sens["changed"] != "D: total variation"].dropna(subset=["spearman"])
        worst = real.nsmallest(3, "spearman")
        rows.append(
            (
                "Sensitivity: stable to word lists, normalization and distance",
                f"median rho {real['spearman'].median():.2f} over {len(real)} changes; lowest: "
                + "; ".join(
                    f"{r.source} {r.model} {r.kind} {r.changed} {r.spearman:.2f}"
                    for r in worst.itertuples()
                ),
            )
        )
    rows.append(
        (
            "Convergent: human vs automated text agree best at 3 sentences",
            "n/a: no human annotations",
        )
    )
    rows.append(
        ("Predictive (diachronic): decade embeddings track the census", "n/a: no decade embeddings")
    )
    note = "Each claim of the paper's text (transcribed in " + CRITERIA + ") beside our number."
    return pd.DataFrame(rows, columns=["claim", "our run"]), note


@_study_figure
def figure_sensitivity(validity: dict, _bias: pd.DataFrame, settings):
    import matplotlib.pyplot as plt

    sens = _frame(validity, "sensitivity")
    if sens.empty:
        return no_data("no setting to vary")
    sens["setting"] = sens["source"] + " · " + sens["model"] + " · " + sens["kind"]
    grid = sens.pivot_table(index="setting", columns="changed", values="spearman")
    fig, ax = plt.subplots(figsize=(1.2 * grid.shape[1] + 3, 0.32 * grid.shape[0] + 1.5))
    image = ax.imshow(grid.to_numpy(float), vmin=-1, vmax=1, cmap="RdBu_r", aspect="auto")
    ax.set_xticks(range(grid.shape[1]), grid.columns, rotation=30, ha="right", fontsize=7)
    ax.set_yticks(range(grid.shape[0]), grid.index, fontsize=6)
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            v = grid.iat[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=5)
    fig.colorbar(image, ax=ax, label="Spearman rho with the default")
    ax.set_title("Sensitivity of per-profession DivDist to one choice", fontsize=9)
    return fig


@_study_figure
def figure_face(validity: dict, _bias: pd.DataFrame, settings):
    import matplotlib.pyplot as plt

    frame = _frame(validity, "face")
    if frame.empty:
        return no_data("no profession is covered by every setting")
    frame["setting"] = _setting(frame)
    professions = frame.drop_duplicates("profession").sort_values("census_female", ascending=False)
    fig, ax = plt.subplots(figsize=(9, 4.2))
    x = np.arange(len(professions))
    ax.plot(x, professions["census_female"], "k_", markersize=22, mew=2, label="census 2010")
    settings_list = sorted(frame["setting"].unique())
    for i, name in enumerate(settings_list):
        g = frame[frame["setting"] == name].set_index("profession")
        y = g.reindex(professions["profession"])["first_share"]
        ax.scatter(x + (i - len(settings_list) / 2) * 0.03, y, s=14, label=name)
    ax.axhline(0.5, color="grey", lw=0.6)
    ax.set_xticks(x, professions["profession"], rotation=30)
    ax.set_ylabel("female share of association")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=6, ncol=2, loc="center left", bbox_to_anchor=(1, 0.5))
    ax.set_title("Face validity: most female- and male-dominated professions", fontsize=10)
    return fig


@_study_figure
def figure_predictive(validity: dict, bias: pd.DataFrame, settings):
    import matplotlib.pyplot as plt

    static = bias[(bias["source"] == "embedding") & (bias["kind"] == "gender")]
    if static.empty:
        return no_data("no static model in bommasani.static_models")
    models = list(dict.fromkeys(static["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 3.8), squeeze=False)
    for ax, model in zip(axes[0], models, strict=True):
        g = static[static["model"] == model].dropna(subset=["divdist_uniform", "census_bias"])
        ax.scatter(g["census_bias"], g["divdist_uniform"], s=10)
        ax.set_xlabel("census bias |q_f - q_m| (2010)")
        ax.set_ylabel("DivDist (uniform reference)")
        ax.set_title(f"{model}: {len(g)} professions", fontsize=9)
    fig.suptitle("Predictive validity: DivDist against the census, gender", fontsize=10)
    return fig


def _table(name, title, render, note):
    return Table(name, title, None, None, note, paper=PAPER, reads=_reads, render=render)


TABLES = (
    _table(
        "bommasani2022_sources",
        "Table 1: the sources of association",
        sources,
        "How each source is computed here, and what it covers.",
    ),
    _table(
        "bommasani2022_face",
        "Face validity",
        face,
        "Female share of association of the most gendered professions.",
    ),
    _table(
        "bommasani2022_predictive",
        "Predictive validity",
        predictive,
        "Correlation of each measure with the census, Holm-corrected.",
    ),
    _table(
        "bommasani2022_mitigation",
        "Mitigation",
        mitigation,
        "Each measure before and after hard debiasing.",
    ),
    _table(
        "bommasani2022_amplification",
        "Amplification, adapted",
        amplification,
        "DivDist of corpora, representations and samples.",
    ),
    _table(
        "bommasani2022_sensitivity",
        "Sensitivity",
        sensitivity,
        "Rank correlation with the default under one changed choice.",
    ),
    _table(
        "bommasani2022_claims",
        "The paper's claims",
        claims,
        "Each claim of the paper against our number.",
    ),
    Table(
        "bommasani2022_criteria",
        "Table 2: the criteria",
        None,
        None,
        "The paper's criteria and where each is checked.",
        paper=PAPER,
        reads=criteria_inputs,
        render=criteria,
    ),
)
FIGURES = (
    FigureTarget(
        "bommasani2022_sensitivity",
        "Sensitivity: per-profession DivDist under one changed choice",
        figure_sensitivity,
        _reads,
        paper=PAPER,
        reading="Spearman rho with the default choices; one row per source setting.",
    ),
    FigureTarget(
        "bommasani2022_face",
        "Face validity: female share of association of the most gendered professions",
        figure_face,
        _reads,
        paper=PAPER,
        reading="Black bars: the census 2010 female share; points: each source and model. "
        + SUBSTITUTION,
    ),
    FigureTarget(
        "bommasani2022_predictive",
        "Predictive validity: DivDist against the census per profession",
        figure_predictive,
        _reads,
        paper=PAPER,
        reading="One point per census profession the static model has.",
    ),
)
