"""Delobelle et al. (2022), *Measuring Fairness with Biased Rulers*: the survey (Table 1), the
data-set measures on every model, the template study (Figures 2a, 2b, 3; Table 2), intrinsic
against extrinsic measures (Figure 4) and the paper's findings checked on our numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from biasbench.io import read_json, read_tsv
from biasbench.paths import EXTERNAL
from biasbench.reports.figures import no_data
from biasbench.reports.tables import plain_table
from biasbench.reports.targets import FigureTarget, Inputs, Table, published_doc
from biasbench.studies import delobelle2022 as study

PAPER = "Delobelle et al. (2022)"
#: its tables' and figures' section of the report (biasbench.reports.catalog)
SECTION = PAPER
#: its place among the catalog's modules (biasbench.reports.catalog): the report's order
ORDER = 3
SURVEY = "resources/published/delobelle2022_table1.yaml"
AUTHORS = "BERT-base-uncased (the authors' values)"
#: the authors' per-subset effect sizes (their notebooks' JSON files), by figure
AUTHORS_FILES = {
    "fig2a": EXTERNAL.format(file_id="delobelle_fig2a_cls"),
    "fig2b": EXTERNAL.format(file_id="delobelle_fig2b_first"),
    **{
        f"fig3:{rep}": EXTERNAL.format(file_id=f"delobelle_fig3_{rep.replace(' ', '_')}")
        for rep in study.REPRESENTATIONS
    },
}
BLEACHED = [f"T{i}" for i in range(1, 9)]
EXTRINSIC = ("WinoBias F1 gap", "WinoBias skew", "WinoBias stereotype")
SUBSTITUTION = (
    "Models: MiniLM-L6 (sentence-transformers; stands in for BERT-base-uncased) and its "
    "offline masked-LM head trained here, SmolLM2-135M and Gemma 3 270M; the paper's BERT "
    "models are not available offline."
)


def _model_of(path: str) -> str:
    return Path(path).parent.name


# --- Table 1: the survey ------------------------------------------------------------------


#: the registered method that runs each surveyed measure (None: not run here)
RUNS_AS = {
    "DisCo": "DisCo",
    "LPBS": "LPBS",
    "SEAT": "s-SEAT",
    "CEAT": "CEAT",
    "CAT_StereoSet": "StereoSet ICAT",
    "CrowS-Pairs": "CrowS-Pairs",
    "AUL": "AUL",
    "PCA-based": "Direct Bias",
    "BiasInBios": None,
    "WinoBias": "WinoBias F1 gap",
    "WinoBias_skew": "WinoBias skew",
}


def survey(inputs: Inputs, settings):
    from biasbench.methods.registry import get

    doc = published_doc(inputs)["from_prose"]
    rows = []
    for kind in ("intrinsic", "extrinsic"):
        for name, entry in doc[kind].items():
            method = get(RUNS_AS[name]) if RUNS_AS.get(name) else None
            rows.append(
                {
                    "measure": name.replace("_", " "),
                    "kind": kind,
                    "reference": entry.get("reference", ""),
                    "templates or data": entry.get("templates", entry.get("data", "")),
                    "representation / scoring": entry.get(
                        "representation", entry.get("scoring", "")
                    ),
                    "here": (
                        f"{method.name} ({', '.join(method.encodings)})"
                        if method
                        else "not run (no data offline)"
                    ),
                }
            )
    note = (
        "The paper's Table 1 is not in the text copy; this is its content as the prose of "
        "sections 3.1-3.2 states it (resources/published/delobelle2022_table1.yaml), with the "
        "registered method that runs it here and its encodings."
    )
    return plain_table(pd.DataFrame(rows), "Table 1: the surveyed measures and their choices", note)


def survey_inputs(plan) -> dict[str, list[str]]:
    return {"published": [SURVEY]}


# --- the data-set measures ----------------------------------------------------------------


def _dataset_reads(plan) -> dict[str, list[str]]:
    """Every model's data-set scores and what each job read of its data set."""
    return {"dataset_scores": plan.dataset_score_files(), "coverage": plan.dataset_coverage_files()}


def measures(inputs: Inputs, settings):
    scores = [read_tsv(p) for p in inputs["dataset_scores"]]
    title = "The probability-based measures on their data sets, every model"
    if not scores:
        return plain_table(pd.DataFrame(), title, "No data set is configured (datasets: null).")
    frame = pd.concat(scores, ignore_index=True)
    frame = frame[frame["descriptor"] == "all"]
    frame["cell"] = [
        "n/a" if np.isnan(v) else f"{v:.2f}" + ("*" if p < settings.alpha else "")
        for v, p in zip(frame["effect_size"], frame["p_value"], strict=True)
    ]
    grid = frame.pivot_table(
        index=["test", "method", "variant", "encoding"],
        columns="model",
        values="cell",
        aggfunc="first",
    ).reset_index()
    coverage = [read_json(p) for p in inputs["coverage"]]
    sampled = sorted(
        {f"{c['dataset']} {c['scored']} of {c['items']}" for c in coverage if c["limit"]}
    )
    note = (
        "Effect sizes as each measure defines them (CrowS-Pairs, AUL, StereoSet SS: % "
        "preferring the stereotype, 50 ideal; LMS, ICAT: 0-100; BEC-Pro, LPBS: log-probability "
        "differences; DisCo: gendered fills per template; WinoBias: F1 points); * p < "
        f"{settings.alpha}. n/a: the measure needs what the model lacks (see the note column "
        "of results/scores/all.tsv). Encodings: mlm-pll/mlm-aul/mlm-aula(-weighted) masked LM, "
        "causal-sentence-mean (CrowS-Pairs' default, bias-bench's per-token mean), "
        "causal-sentence (summed), causal-shared and causal a causal LM. "
        + (f"Sampled: {', '.join(sampled)}. " if sampled else "Every item of every data set. ")
        + SUBSTITUTION
    )
    return plain_table(grid.fillna(""), title, note)


# --- the template study -------------------------------------------------------------------


def _authors_file(inputs: Inputs, key: str) -> str:
    """The authors' file of ``key`` among the target's (matched by file name)."""
    name = Path(AUTHORS_FILES[key]).name
    return next(p for p in inputs["authors"] if Path(p).name == name)


def _authors(path: str) -> dict[str, np.ndarray]:
    """The authors' per-subset effect sizes: {"T1": (20,), ...}."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    return {
        f"T{name.removeprefix('temp')}": np.array([v[str(i)] for i in range(len(v))])
        for name, v in doc.items()
    }


def _ours(path: str) -> pd.DataFrame:
    return read_tsv(path)


def template_columns(frame: pd.DataFrame, representation: str) -> dict[str, np.ndarray]:
    """{template: d per subset} of one representation of a model's sensitivity table."""
    part = frame[frame["representation"] == representation]
    return {
        t: g.sort_values("subset")["d"].to_numpy(float)
        for t, g in part.groupby("template", sort=False)
    }


def representation_columns(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """{representation: d per subset}, template-based ones averaged over T1-T8 (bleached)."""
    out = {}
    for rep in study.REPRESENTATIONS:
        cols = template_columns(frame, rep)
        if rep in study.IN_TEMPLATE:
            out[rep] = np.mean([cols[t] for t in BLEACHED], axis=0)
        else:
            out[rep] = cols[study.ALONE]
    return out


def _authors_representations(inputs: Inputs) -> dict[str, np.ndarray]:
    out = {}
    for rep in study.REPRESENTATIONS:
        cols = _authors(_authors_file(inputs, f"fig3:{rep}"))
        out[rep] = (
            np.mean([cols[t] for t in BLEACHED], axis=0) if rep in study.IN_TEMPLATE else cols["T1"]
        )
    return out


def _heatmaps(panels: dict[str, pd.DataFrame], title: str):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.6), squeeze=False)
    for ax, (name, corr) in zip(axes[0], panels.items(), strict=True):
        image = ax.imshow(corr.to_numpy(float), vmin=-1, vmax=1, cmap="RdBu_r")
        labels = list(corr.columns)
        ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(name, fontsize=9)
        for i in range(len(labels)):
            for j in range(len(labels)):
                ax.text(j, i, f"{corr.iat[i, j]:.1f}", ha="center", va="center", fontsize=5)
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.7, label="Pearson r over the subsets")
    fig.suptitle(title, fontsize=10)
    return fig


def _template_figure(key: str, representation: str, what: str):
    def draw(inputs: Inputs, settings):
        ours = inputs["sensitivity"]
        panels = {AUTHORS: study.correlation_matrix(_authors(_authors_file(inputs, key)))}
        for path in ours:
            panels[_model_of(path)] = study.correlation_matrix(
                template_columns(_ours(path), representation)
            )
        if not ours:
            return no_data("no model runs the template study (delobelle.sensitivity_models)")
        return _heatmaps(panels, f"Correlation of SEAT effect sizes between templates ({what})")

    return draw


def figure3(inputs: Inputs, settings):
    ours = inputs["sensitivity"]
    if not ours:
        return no_data("no model runs the template study (delobelle.sensitivity_models)")
    panels = {AUTHORS: study.correlation_matrix(_authors_representations(inputs))}
    for path in ours:
        panels[_model_of(path)] = study.correlation_matrix(representation_columns(_ours(path)))
    return _heatmaps(panels, "Correlation of SEAT effect sizes between representations")


def _authors_of(key: str) -> list[str]:
    """The authors' files of a figure (``fig2a``, ``fig2b``, ``fig3``)."""
    return [AUTHORS_FILES[k] for k in AUTHORS_FILES if k.startswith(key)]


def _sensitivity_reads(key: str):
    def reads(plan) -> dict[str, list[str]]:
        sensitivity = plan.template_study_tables("sensitivity")
        return {"authors": _authors_of(key), "sensitivity": sensitivity}

    return reads


def table2(inputs: Inputs, settings):
    title = "Table 2: KL divergence of each template's slot distribution from T1's"
    if not inputs["kl"]:
        return plain_table(pd.DataFrame(), title, "No model runs it (delobelle.kl_models).")
    frames = []
    for path in inputs["kl"]:
        frame = read_tsv(path)
        frame.insert(0, "model", _model_of(path))
        frames.append(frame)
    long = pd.concat(frames, ignore_index=True)
    wide = long.pivot_table(
        index=["template", "text"], columns="model", values=["kl_vocabulary", "kl_gendered"]
    )
    wide.columns = [
        f"{model}: {'vocabulary' if v == 'kl_vocabulary' else 'gendered words'}"
        for v, model in wide.columns
    ]
    wide = wide.reset_index()
    wide["order"] = wide["template"].str[1:].astype(int)
    wide = wide.sort_values("order").drop(columns="order")
    vocab = "; ".join(f"{m}: {v}" for m, v in long.groupby("model")["vocabulary"].first().items())
    note = (
        "KL(P_T || P_T1) in nats of the distribution of the template's slot, over the vocabulary "
        "and over the 16 gendered words of B.2 (renormalised). The paper prints no values (its "
        "Table 2 is not in the text copy); its finding is that the bleached templates T1-T8 "
        "diverge less than the others. The vocabulary: " + vocab + ". " + SUBSTITUTION
    )
    return plain_table(wide, title, note)


def kl_inputs(plan) -> dict[str, list[str]]:
    return {"kl": plan.template_study_tables("kl")}


# --- intrinsic against extrinsic ----------------------------------------------------------


def _fig4_reads(plan) -> dict[str, list[str]]:
    """The data-set scores of the zoo and of the ground-truth study's models."""
    return {
        "dataset_scores": plan.dataset_score_files(),
        "study_datasets": plan.study_files()["study_datasets"],
    }


def _measure_files(inputs: Inputs) -> list[str]:
    return [*inputs["dataset_scores"], *inputs["study_datasets"]]


def measure_table(inputs: list[str]) -> pd.DataFrame:
    """model x measure: every primary-variant score of the data sets, one column per
    (method, variant), models of the zoo and the injected-bias models alike."""
    frames = [read_tsv(p) for p in inputs]
    if not frames:
        return pd.DataFrame()
    frame = pd.concat(frames, ignore_index=True)
    frame = frame[(frame["descriptor"] == "all") & frame["effect_size"].notna()]
    frame["measure"] = frame["method"] + " (" + frame["variant"] + ")"
    return frame.pivot_table(
        index="model", columns="measure", values="effect_size", aggfunc="first"
    )


def figure4(inputs: Inputs, settings):
    import matplotlib.pyplot as plt

    wide = measure_table(_measure_files(inputs))
    extrinsic = [c for c in wide.columns if c.startswith(EXTRINSIC)]
    intrinsic = [c for c in wide.columns if c not in extrinsic]
    if wide.empty or not extrinsic:
        return no_data("no model runs WinoBias and an intrinsic measure")
    r = np.full((len(intrinsic), len(extrinsic)), np.nan)
    n = np.zeros_like(r, dtype=int)
    for i, a in enumerate(intrinsic):
        for j, b in enumerate(extrinsic):
            both = wide[[a, b]].dropna()
            n[i, j] = len(both)
            if len(both) >= 3 and both[a].std() > 0 and both[b].std() > 0:
                r[i, j] = np.corrcoef(both[a], both[b])[0, 1]
    fig, ax = plt.subplots(figsize=(2.2 + 1.6 * len(extrinsic), 1.5 + 0.32 * len(intrinsic)))
    image = ax.imshow(r, vmin=-1, vmax=1, cmap="RdBu_r", aspect="auto")
    for i in range(len(intrinsic)):
        for j in range(len(extrinsic)):
            text = "n/a" if np.isnan(r[i, j]) else f"{r[i, j]:.2f}"
            ax.text(j, i, f"{text}\n(n={n[i, j]})", ha="center", va="center", fontsize=6)
    ax.set_xticks(range(len(extrinsic)), extrinsic, rotation=30, ha="right", fontsize=7)
    ax.set_yticks(range(len(intrinsic)), intrinsic, fontsize=7)
    fig.colorbar(image, ax=ax, label="Pearson r across models")
    ax.set_title(
        "Intrinsic vs extrinsic across models. Substitution: WinoBias zero-shot resolution\n"
        "(not OntoNotes-trained coreference, not BiasInBios); models: the zoo and the\n"
        "injected-bias masked LMs of the ground-truth study (not the paper's five BERTs)",
        fontsize=8,
    )
    return fig


# --- the paper's findings, checked on our numbers -----------------------------------------


def _mean_offdiag(corr: pd.DataFrame) -> float:
    values = corr.to_numpy(float)
    return float(values[~np.eye(len(values), dtype=bool)].mean())


def _findings_reads(plan) -> dict[str, list[str]]:
    return {
        "authors": _authors_of("fig3"),
        "sensitivity": plan.template_study_tables("sensitivity"),
        "kl": plan.template_study_tables("kl"),
        **_fig4_reads(plan),
    }


def findings(inputs: Inputs, settings):
    title = "The paper's findings, checked on our models"
    sensitivity, kl = inputs["sensitivity"], inputs["kl"]
    sources = {AUTHORS: None} | {_model_of(p): _ours(p) for p in sensitivity}
    rows = []
    for name, frame in sources.items():
        if frame is None:
            reps = _authors_representations(inputs)
            cls = _authors(_authors_file(inputs, "fig3:cls"))
            first = _authors(_authors_file(inputs, "fig3:first"))
        else:
            reps = representation_columns(frame)
            cls, first = template_columns(frame, "cls"), template_columns(frame, "first")
        bleached = {t: cls[t] for t in BLEACHED}
        r_cls = _mean_offdiag(study.correlation_matrix(bleached))
        r_first = _mean_offdiag(study.correlation_matrix({t: first[t] for t in BLEACHED}))
        corr = study.correlation_matrix(reps)
        others = [r for r in study.REPRESENTATIONS if r != "cls"]
        cls_vs = float(corr.loc["cls", others].mean())
        among = _mean_offdiag(corr.loc[others, others])
        rows += [
            (
                name,
                "4.2: bleached templates correlate weakly ([CLS], mean r among T1-T8)",
                f"{r_cls:.2f}",
                "yes" if r_cls < 0.5 else "no",
            ),
            (
                name,
                "4.2: the target token is steadier across templates than [CLS] (mean r "
                "among T1-T8, first subword vs [CLS])",
                f"{r_first:.2f} vs {r_cls:.2f}",
                "yes" if r_first > r_cls else "no",
            ),
            (
                name,
                "4.3: [CLS] is the outlier among representations (mean r with the others "
                "vs among the others)",
                f"{cls_vs:.2f} vs {among:.2f}",
                "yes" if cls_vs < among else "no",
            ),
        ]
    for path in kl:
        frame = read_tsv(path).set_index("template")
        low = frame.loc[[t for t in BLEACHED if t != "T1"], "kl_vocabulary"].mean()
        high = frame.loc[["T10", "T11"], "kl_vocabulary"].mean()
        rows.append(
            (
                _model_of(path),
                "Table 2: bleached templates diverge less from T1 (mean KL T2-T8 vs T10-T11)",
                f"{low:.3f} vs {high:.3f}",
                "yes" if low < high else "no",
            )
        )
    wide = measure_table(_measure_files(inputs))
    gap = [c for c in wide.columns if c.startswith("WinoBias F1 gap")]
    if gap and len(wide) >= 3:
        target = wide[gap[0]]
        r = {
            c: wide[c].corr(target)
            for c in wide.columns
            if not c.startswith(EXTRINSIC) and wide[[c]].join(target).dropna().shape[0] >= 3
        }
        crows = [abs(v) for c, v in r.items() if c.startswith("CrowS-Pairs")]
        rest = [abs(v) for c, v in r.items() if not c.startswith("CrowS-Pairs") and np.isfinite(v)]
        if crows and rest:
            rows.append(
                (
                    "all models",
                    "4.4: CrowS-Pairs agrees less with the extrinsic measure than "
                    "the other intrinsic measures (|r| with the WinoBias gap, median of the rest)",
                    f"{np.nanmax(crows):.2f} vs {np.median(rest):.2f}",
                    "yes" if np.nanmax(crows) < np.median(rest) else "no",
                )
            )
    frame = pd.DataFrame(rows, columns=["source", "finding", "measured", "holds"])
    note = (
        "Each of the paper's statements reduced to a number, on the authors' own per-subset "
        "values (BERT-base-uncased, where the statement is about them) and on ours. " + SUBSTITUTION
    )
    return plain_table(frame, title, note)


TABLES = (
    Table(
        "delobelle2022_findings",
        "The paper's findings, checked",
        None,
        None,
        "Which findings of sections 4.2-4.4 hold on the authors' values and on our models.",
        paper=PAPER,
        reads=_findings_reads,
        render=findings,
    ),
    Table(
        "delobelle2022_table1",
        "Table 1: the surveyed measures",
        None,
        None,
        "The measures the paper surveys and how each is run here.",
        paper=PAPER,
        reads=survey_inputs,
        render=survey,
    ),
    Table(
        "delobelle2022_measures",
        "The data-set measures on every model",
        None,
        None,
        "CrowS-Pairs, AUL/AULA, StereoSet, BEC-Pro, DisCo, LPBS and WinoBias per model.",
        paper=PAPER,
        reads=_dataset_reads,
        render=measures,
    ),
    Table(
        "delobelle2022_table2",
        "Table 2: template KL divergence",
        None,
        None,
        "KL of each template's slot distribution from T1's.",
        paper=PAPER,
        reads=kl_inputs,
        render=table2,
    ),
)
FIGURES = (
    FigureTarget(
        "delobelle2022_fig2a",
        "Figure 2a: correlation between templates, [CLS] representation",
        _template_figure("fig2a", "cls", "[CLS] of the template; a causal LM's last token"),
        _sensitivity_reads("fig2a"),
        paper=PAPER,
        reading="Left: the authors' per-subset values (BERT-base-uncased); then ours per model. "
        + SUBSTITUTION,
    ),
    FigureTarget(
        "delobelle2022_fig2b",
        "Figure 2b: correlation between templates, first subword of the target",
        _template_figure("fig2b", "first", "the target's first subword in the template"),
        _sensitivity_reads("fig2b"),
        paper=PAPER,
        reading="Left: the authors' values; then ours per model. " + SUBSTITUTION,
    ),
    FigureTarget(
        "delobelle2022_fig3",
        "Figure 3: correlation between word representations",
        figure3,
        _sensitivity_reads("fig3"),
        paper=PAPER,
        reading="Template-based representations averaged over the bleached T1-T8. Left: the "
        "authors' values; then ours per model. " + SUBSTITUTION,
    ),
    FigureTarget(
        "delobelle2022_fig4",
        "Figure 4: intrinsic against extrinsic measures across models",
        figure4,
        _fig4_reads,
        paper=PAPER,
        reading="Pearson r across models (n: models with both scores). Substitution: WinoBias "
        "zero-shot resolution for the paper's fine-tuned coreference and BiasInBios; the zoo and "
        "the injected-bias models of the ground-truth study for the paper's five BERTs.",
    ),
)
