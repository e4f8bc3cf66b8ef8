"""Bommasani & Liang (2022), *Trustworthy Social Bias Measurement*: DivDist per census
profession from four sources of association, and the validity protocol (face, predictive,
mitigation, amplification) against the 2010 census and the prior measures.

Every strength of association lands in one long table (``STRENGTH_COLUMNS``): source, model,
corpus, k (sentences per text context), kind (gender or race), rule (``paper``, or ``helm`` for
HELM's text variant), profession, group, strength. Everything downstream (DivDist per
profession, the tables) is computed from that table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from biasbench.data.groups import (
    Census,
    document_sentences,
    helm_groups,
    read_census,
    sentence_windows,
    words,
)
from biasbench.data.sampling import sample_contexts
from biasbench.methods.distribution import association as soa
from biasbench.methods.distribution.divdist import distance, divdist, normalize
from biasbench.methods.embedding import debias
from biasbench.methods.embedding.direct_bias import word_bias
from biasbench.methods.embedding.mac import mac_word
from biasbench.methods.embedding.ripa import word_association
from biasbench.methods.embedding.rnd import word_distance
from biasbench.stats import holm_bonferroni

KINDS = ("gender", "race")
#: census columns per kind, in HELM's group order (female, male; asian, hispanic, white)
CENSUS_COLUMNS = {"gender": ("Female", "Male"), "race": ("asian", "hispanic", "white")}
STRENGTH_COLUMNS = [
    "source",
    "model",
    "corpus",
    "k",
    "kind",
    "rule",
    "profession",
    "group",
    "strength",
]
PRIOR = ("Direct Bias", "RND", "RIPA", "MAC")  # Bolukbasi, Garg, Ethayarajh, Manzini


@dataclass(frozen=True)
class StudyData:
    professions: tuple[str, ...]  # the census occupations of the year
    groups: Mapping[str, Mapping[str, list[str]]]  # kind -> group -> words
    census: Mapping[str, Census]  # kind -> shares

    def stimuli(self) -> list[str]:
        return list(
            dict.fromkeys(
                [
                    *self.professions,
                    *(w for g in self.groups.values() for ws in g.values() for w in ws),
                ]
            )
        )


def load_data(helm: str, gender_csv: str, race_csv: str, year: int) -> StudyData:
    census = {
        "gender": read_census(gender_csv, year, CENSUS_COLUMNS["gender"]),
        "race": read_census(race_csv, year, CENSUS_COLUMNS["race"]),
    }
    groups = {kind: helm_groups(helm, kind) for kind in KINDS}
    return StudyData(tuple(census["gender"].shares), groups, census)


HALF = "half lists"  # the rule of the word-list sensitivity runs


def half_lists(groups: Mapping[str, list[str]], seed: int = 0) -> dict[str, list[str]]:
    """A seeded half (rounded up) of each group's word list: the word-list sensitivity run."""
    rng = np.random.default_rng(seed)
    return {
        g: sorted(rng.choice(ws, size=(len(ws) + 1) // 2, replace=False).tolist())
        for g, ws in groups.items()
    }


def _rules(kind: str, data: StudyData):
    """(rule, exclusive, group lists): the paper's, HELM's counting, the half lists."""
    groups = data.groups[kind]
    return (("paper", True, groups), ("helm", False, groups), (HALF, True, half_lists(groups)))


def _long(source, model, corpus, k, kind, rule, professions, groups, matrix) -> list[tuple]:
    return [
        (source, model, corpus, k, kind, rule, p, g, float(matrix[i, j]))
        for i, p in enumerate(professions)
        for j, g in enumerate(groups)
    ]


# --- automated text -------------------------------------------------------------------------


def text_strengths(
    documents: Iterable[str], data: StudyData, ks: Sequence[int], corpus: str, source="text"
) -> pd.DataFrame:
    """Exclusive co-occurrence counts in contexts of k sentences, for every k (and HELM's
    counting, and the half word lists), from one read of the documents."""
    docs = document_sentences(documents)
    rows = []
    for k in ks:
        contexts = list(sentence_windows(docs, k))
        for kind in KINDS:
            for rule, exclusive, groups in _rules(kind, data):
                counts = soa.text_counts(contexts, data.professions, groups, exclusive)
                rows += _long(source, "", corpus, k, kind, rule, data.professions, groups, counts)
    return pd.DataFrame(rows, columns=STRENGTH_COLUMNS)


# --- contexts of the professions and group words (reduction, probe) ----------------------------


def sample_study_contexts(
    documents: Iterable[str], data: StudyData, per_stimulus: int, seed: int, window_words: int
) -> pd.DataFrame:
    """Up to ``per_stimulus`` sentences per profession and group word, cut to a window of
    ``window_words`` words either side of the word (columns: stimulus, sentence, start, end)."""
    samples = sample_contexts(
        documents, data.stimuli(), per_stimulus=per_stimulus, seed=seed, window_words=window_words
    )
    rows = [
        (
            r.stimulus,
            r.sentence[r.window_start : r.window_end],
            r.start - r.window_start,
            r.end - r.window_start,
        )
        for r in samples.itertuples(index=False)
    ]
    return pd.DataFrame(rows, columns=["stimulus", "sentence", "start", "end"])


def context_labels(contexts: pd.DataFrame, groups: Mapping[str, list[str]]) -> np.ndarray:
    """Per context, the index of the one group whose words it mentions (besides its own
    stimulus), or len(groups) for none or several: the automated labels of the probe."""
    group_of = {w: j for j, ws in enumerate(groups.values()) for w in ws}
    out = np.full(len(contexts), len(groups))
    for i, (sentence, stimulus) in enumerate(
        zip(contexts["sentence"], contexts["stimulus"], strict=True)
    ):
        found = {group_of[w] for w in words(sentence) if w in group_of and w != stimulus}
        if len(found) == 1:
            out[i] = found.pop()
    return out


def reduction_strengths(
    contexts: pd.DataFrame, vectors: np.ndarray, data: StudyData, model: str
) -> pd.DataFrame:
    """Word-embedding association of each word's mean contextual vector (Bommasani et al.,
    2020)."""
    groups = contexts.groupby("stimulus", sort=False).indices
    reduced = soa.reduce_contexts([vectors[idx] for idx in groups.values()])
    return embedding_strengths(
        dict(zip(groups, reduced, strict=True)), data, "reduction", model, "natural"
    )


def embedding_strengths(
    lookup: Mapping[str, np.ndarray], data: StudyData, source: str, model: str, corpus: str = ""
) -> pd.DataFrame:
    """cos(profession vector, mean vector of a group's words), professions and group words the
    model has (a group without any word: no row for that kind), with the paper's lists and the
    half lists."""
    rows = []
    professions = [p for p in data.professions if p in lookup]
    for kind in KINDS:
        for rule, _, lists in _rules(kind, data):
            if rule == "helm":
                continue
            groups = {g: [lookup[w] for w in ws if w in lookup] for g, ws in lists.items()}
            if not professions or not all(groups.values()):
                continue
            s = soa.embedding_association(
                np.stack([lookup[p] for p in professions]), [np.stack(v) for v in groups.values()]
            )
            rows += _long(source, model, corpus, 0, kind, rule, professions, list(groups), s)
    return pd.DataFrame(rows, columns=STRENGTH_COLUMNS)


def probe_strengths(
    contexts: pd.DataFrame, vectors: np.ndarray, data: StudyData, model: str, seed: int
) -> tuple[pd.DataFrame, dict[str, float]]:
    """Counts of held-out profession contexts a linear probe assigns to each group; its labels
    are the automated co-occurrence labels (so the probe can only reproduce the text measure's
    signal: circular by construction, as docs/bommasani2022.md says). Returns the held-out
    accuracy."""
    is_prof = contexts["stimulus"].isin(data.professions).to_numpy()
    frame = contexts[is_prof].reset_index(drop=True)
    x = vectors[is_prof]
    index = {p: i for i, p in enumerate(data.professions)}
    target_of = frame["stimulus"].map(index).to_numpy()
    rows, accuracy = [], {}
    for kind in KINDS:
        groups = data.groups[kind]
        labels = context_labels(frame, groups)
        if len(np.unique(labels)) < 2:
            continue
        counts, accuracy[kind] = soa.probe_counts(
            x, labels, target_of, len(data.professions), len(groups), seed=seed
        )
        rows += _long("probe", model, "natural", 0, kind, "paper", data.professions, groups, counts)
    return pd.DataFrame(rows, columns=STRENGTH_COLUMNS), accuracy


# --- DivDist per profession -------------------------------------------------------------------

SETTING = ["source", "model", "corpus", "k", "kind", "rule"]


def profession_bias(
    strengths: pd.DataFrame, data: StudyData, negative: str = "clip"
) -> pd.DataFrame:
    """Per setting and profession: the normalised association p (its first group's share:
    female, or asian), DivDist against the uniform and the census reference (L1), and the
    census bias D(q, uniform) and signed share q_1 - 1/k beside it."""
    rows = []
    for key, frame in strengths.groupby(SETTING, sort=False):
        kind = key[4]
        order = list(data.groups[kind])
        for profession, g in frame.groupby("profession", sort=False):
            s = g.set_index("group")["strength"].reindex(order).to_numpy()
            q = np.array(data.census[kind].shares.get(profession, [np.nan] * len(order)))
            known = np.isfinite(q).all()
            p = normalize(s, negative) if np.isfinite(s).all() else None
            rows.append(
                (
                    *key,
                    profession,
                    np.nan if p is None else p[0],
                    np.nan if p is None else distance(p, np.full(len(p), 1 / len(p))),
                    np.nan if p is None or not known else distance(p, q),
                    distance(q, np.full(len(q), 1 / len(q))) if known else np.nan,
                    q[0] - 1 / len(q) if known else np.nan,
                )
            )
    return pd.DataFrame(
        rows,
        columns=[
            *SETTING,
            "profession",
            "first_share",
            "divdist_uniform",
            "divdist_census",
            "census_bias",
            "census_signed",
        ],
    )


# --- the prior measures on static vectors (gender) ---------------------------------------------


def prior_measures(
    lookup: Mapping[str, np.ndarray],
    data: StudyData,
    definitional: list[tuple[str, str]],
) -> pd.DataFrame:
    """Per profession the prior word-level measures of gender bias: Bolukbasi's |cos(w, g)|
    (Direct Bias, c = 1), Garg's relative norm distance, RIPA, and MAC with the two HELM word
    lists; ``definitional`` pairs are (female, male). Signed measures (RND, RIPA) are oriented
    female-positive."""
    professions = [p for p in data.professions if p in lookup]
    female = np.stack([lookup[w] for w in data.groups["gender"]["female"] if w in lookup])
    male = np.stack([lookup[w] for w in data.groups["gender"]["male"] if w in lookup])
    pairs = [(f, m) for f, m in definitional if f in lookup and m in lookup]
    pf = np.stack([lookup[f] for f, _ in pairs])
    pm = np.stack([lookup[m] for _, m in pairs])
    w = np.stack([lookup[p] for p in professions])
    values = {
        "Direct Bias": word_bias(w, pf, pm),
        "RND": word_distance(w, female, male),
        "RIPA": word_association(w, pf, pm),
        "MAC": mac_word(w, [female, male]),
    }
    return pd.DataFrame({"profession": professions, **values})


def correlations(x: pd.Series, y: pd.Series) -> tuple[int, float, float, float, float]:
    """(n, Spearman rho, its p, Pearson r, its p) over the professions both define."""
    from scipy import stats as sps  # lazily: planning the DAG imports the report modules

    both = pd.concat([x, y], axis=1).dropna()
    n = len(both)
    if n < 3 or both.iloc[:, 0].nunique() < 2 or both.iloc[:, 1].nunique() < 2:
        return n, np.nan, np.nan, np.nan, np.nan
    rho, p_rho = sps.spearmanr(both.iloc[:, 0], both.iloc[:, 1])
    r, p_r = sps.pearsonr(both.iloc[:, 0], both.iloc[:, 1])
    return n, float(rho), float(p_rho), float(r), float(p_r)


def predictive_validity(
    bias: pd.DataFrame, priors: Mapping[str, pd.DataFrame], data: StudyData
) -> pd.DataFrame:
    """Per static model and kind: each measure's per-profession values against the census
    bias D(q, uniform) (unsigned: DivDist, |RND|, |RIPA|, Direct Bias, MAC) and, as a diagnostic,
    the signed measures against the signed share q_female - 1/2; Holm over the table's p."""
    rows = []
    census = {
        kind: pd.Series(
            {p: float(np.abs(np.array(q) - 1 / len(q)).sum()) for p, q in c.shares.items()}
        )
        for kind, c in data.census.items()
    }
    signed = pd.Series({p: q[0] - 0.5 for p, q in data.census["gender"].shares.items()})
    static = bias[(bias["source"] == "embedding") & (bias["rule"] == "paper")]
    for (model, kind), frame in static.groupby(["model", "kind"], sort=False):
        dd = frame.set_index("profession")["divdist_uniform"]
        rows.append((model, kind, "DivDist", "unsigned", *correlations(dd, census[kind])))
        if kind != "gender" or model not in priors:
            continue
        prior = priors[model].set_index("profession")
        for measure in PRIOR:
            value = prior[measure]
            unsigned = value.abs() if measure in ("RND", "RIPA") else value
            rows.append((model, kind, measure, "unsigned", *correlations(unsigned, census[kind])))
            if measure in ("RND", "RIPA"):
                rows.append((model, kind, measure, "signed", *correlations(value, signed)))
        share = frame.set_index("profession")["first_share"] - 0.5
        rows.append((model, kind, "DivDist", "signed", *correlations(share, signed)))
    out = pd.DataFrame(
        rows,
        columns=[
            "model",
            "kind",
            "measure",
            "against",
            "n",
            "spearman",
            "p_spearman",
            "pearson",
            "p_pearson",
        ],
    )
    for col in ("p_spearman", "p_pearson"):
        out[f"{col}_holm"] = holm_bonferroni(out[col].to_numpy(float))
    return out


def face_validity(bias: pd.DataFrame, data: StudyData, per_side: int = 4) -> pd.DataFrame:
    """The ``per_side`` most female- and most male-dominated census professions that every
    vector model has (static and reduced: the paper's "in every vocabulary"), with every
    setting's female share of association and its DivDist (text settings: NaN where no context
    mentions the profession with a group)."""
    gender = bias[(bias["kind"] == "gender") & (bias["rule"] == "paper")]
    vocab = gender[gender["source"].isin(["embedding", "reduction"])]
    covered = set(data.professions)
    for _, frame in vocab.groupby(["source", "model"], sort=False):
        covered &= set(frame.loc[frame["divdist_uniform"].notna(), "profession"])
    ranked = sorted(covered, key=lambda p: (data.census["gender"].shares[p][0], p))
    chosen = ranked[-per_side:][::-1] + ranked[:per_side]
    out = gender[gender["profession"].isin(chosen) & (gender["source"] != "generated text")]
    out = out.copy()
    out["census_female"] = out["profession"].map(lambda p: data.census["gender"].shares[p][0])
    out["agrees"] = np.where(
        out["first_share"].notna(),
        (out["first_share"] > 0.5) == (out["census_female"] > 0.5),
        np.nan,
    )
    return out


def mitigation(
    lookup: Mapping[str, np.ndarray],
    data: StudyData,
    definitional: list[tuple[str, str]],
    equality: list[tuple[str, str]],
    model: str,
    negative: str,
) -> pd.DataFrame:
    """Each prior measure and DivDist (mean over the professions) before and after hard
    debiasing (neutralise the professions, equalise the equality pairs)."""
    words_needed = (
        set(data.professions)
        | {w for ws in data.groups["gender"].values() for w in ws}
        | {w for pair in definitional + equality for w in pair}
    )
    vectors = {w: np.asarray(lookup[w], np.float64) for w in words_needed if w in lookup}
    after, _ = debias.hard_debias(vectors, definitional, list(data.professions), equality)
    rows = []
    for state, vecs in (("before", vectors), ("after", after)):
        prior = prior_measures(vecs, data, definitional)
        strengths = embedding_strengths(vecs, data, "embedding", model)
        paper = strengths[(strengths["kind"] == "gender") & (strengths["rule"] == "paper")]
        bias = profession_bias(paper, data, negative)
        values = {m: float(prior[m].abs().mean()) for m in ("Direct Bias", "RND", "RIPA")}
        values["MAC"] = float(prior["MAC"].mean())
        values["DivDist"] = float(bias["divdist_uniform"].mean())
        rows += [(model, m, state, v) for m, v in values.items()]
    frame = pd.DataFrame(rows, columns=["model", "measure", "state", "value"])
    return frame.pivot_table(
        index=["model", "measure"], columns="state", values="value"
    ).reset_index()


def strength_matrix(frame: pd.DataFrame, data: StudyData) -> pd.DataFrame:
    """One setting's strengths as professions x groups, the groups in the study's order."""
    order = list(data.groups[frame["kind"].iat[0]])
    table = frame.pivot_table(index="profession", columns="group", values="strength")
    return table.reindex(columns=order)


def _per_profession(frame: pd.DataFrame, data: StudyData, how) -> pd.Series:
    """``how(s)`` (a number, NaN when undefined) per profession of one setting."""
    matrix = strength_matrix(frame, data)
    values = [how(s) for s in matrix.to_numpy(np.float64)]
    return pd.Series(values, index=matrix.index, dtype=float).dropna()


def sensitivity(strengths: pd.DataFrame, data: StudyData, negative: str, k: int):
    """Per source setting (paper rule, k sentences for text): the Spearman correlation of the
    per-profession DivDist under one changed choice with the default (L1, s / sum s, the
    paper's lists and counting, k), one choice at a time."""

    def measure(kind="l1", smooth=False):
        def how(s):
            if smooth:
                s = np.clip(s, 0, None) + 1  # add-one: every group gets a share
            return divdist(s, None, kind, negative)

        return how

    rows = []
    paper = strengths[(strengths["rule"] == "paper") & strengths["k"].isin([0, k])]
    for (source, model, corpus, _k, kind), frame in paper.groupby(SETTING[:5], sort=False):
        base = _per_profession(frame, data, measure())
        same = (
            (strengths["source"] == source)
            & (strengths["model"] == model)
            & (strengths["corpus"] == corpus)
            & (strengths["kind"] == kind)
        )
        variants = {
            "D: total variation": (frame, measure("tv")),
            "D: KL": (frame, measure("kl")),
            "normalize: add-one": (frame, measure(smooth=True)),
        }
        for rule, name in (("helm", "HELM's counting"), (HALF, "half word lists")):
            other = strengths[same & (strengths["rule"] == rule) & strengths["k"].isin([0, k])]
            if len(other):
                variants[name] = (other, measure())
        for other_k in sorted(set(strengths.loc[same, "k"]) - {0, k}):
            other = strengths[same & (strengths["rule"] == "paper") & (strengths["k"] == other_k)]
            variants[f"k = {other_k} sentences"] = (other, measure())
        for name, (other_frame, how) in variants.items():
            n, rho, p_rho, _, _ = correlations(base, _per_profession(other_frame, data, how))
            rows.append((source, model or corpus, kind, name, n, rho, p_rho))
    return pd.DataFrame(
        rows, columns=["source", "model", "kind", "changed", "n", "spearman", "p_spearman"]
    )


def static_lookup(load: Callable[[str], np.ndarray | None], vocabulary: Iterable[str]):
    """word -> vector for the words a static model has."""
    out = {}
    for w in vocabulary:
        v = load(w)
        if v is not None:
            out[w] = np.asarray(v, np.float64)
    return out


@dataclass(frozen=True)
class Inputs:
    """What the study reads, loaded: per corpus its text strengths; the sampled contexts and
    per contextual model their vectors (NaN rows: the word was truncated away); per causal
    model its generated texts; per static model a word lookup."""

    data: StudyData
    text: Mapping[str, pd.DataFrame]
    contexts: pd.DataFrame
    vectors: Mapping[str, np.ndarray]
    generated: Mapping[str, list[str]]
    static: Mapping[str, Mapping[str, np.ndarray]]
    definitional: list[tuple[str, str]]
    equality: list[tuple[str, str]]


def run(inputs: Inputs, ks: Sequence[int], negative: str, seed: int):
    """(strengths, per-profession bias, validity tables by name, probe accuracies)."""
    data = inputs.data
    parts = [*inputs.text.values()]
    for model, texts in inputs.generated.items():
        generated = text_strengths(texts, data, ks, "generated", source="generated text")
        parts.append(generated.assign(model=model))
    for model, lookup in inputs.static.items():
        parts.append(embedding_strengths(lookup, data, "embedding", model))
    accuracy = {}
    for model, vectors in inputs.vectors.items():
        ok = np.isfinite(vectors).all(axis=1)
        contexts, kept = inputs.contexts[ok].reset_index(drop=True), vectors[ok]
        parts.append(reduction_strengths(contexts, kept, data, model))
        probe, accuracy[model] = probe_strengths(contexts, kept, data, model, seed)
        parts.append(probe)
    strengths = pd.concat([p for p in parts if len(p)], ignore_index=True)
    # as read back from TSV: no model is "" (text of a corpus), strengths are floats
    strengths["model"] = strengths["model"].fillna("").astype(str)
    strengths = strengths.astype({"k": int, "strength": float})
    bias = profession_bias(strengths, data, negative)
    priors = {m: prior_measures(lk, data, inputs.definitional) for m, lk in inputs.static.items()}
    validity = {
        "face": face_validity(bias, data),
        "predictive": predictive_validity(bias, priors, data),
        "mitigation": pd.concat(
            [
                mitigation(lk, data, inputs.definitional, inputs.equality, m, negative)
                for m, lk in inputs.static.items()
            ],
            ignore_index=True,
        ),
        "amplification": amplification(bias, default_k(ks)),
        "sensitivity": sensitivity(strengths, data, negative, default_k(ks)),
    }
    return strengths, bias, validity, accuracy


def default_k(ks: Sequence[int]) -> int:
    """The text contexts the comparisons use: the paper's 3 sentences where configured, else
    the middle of the configured sizes."""
    return 3 if 3 in ks else sorted(ks)[len(ks) // 2]


def amplification(bias: pd.DataFrame, k: int) -> pd.DataFrame:
    """Mean DivDist (uniform reference, gender and race, the paper's rule, k-sentence text
    contexts) of each source that can stand for a model's data, representations or outputs:
    the corpus text, the probe and reduction on each model's representations, and a causal
    model's generated samples, with the professions each covers."""
    rows = bias[(bias["rule"] == "paper") & bias["k"].isin([0, k])]
    out = (
        rows.groupby(["kind", "source", "model", "corpus"], sort=False)["divdist_uniform"]
        .agg(mean="mean", professions="count")
        .reset_index()
    )
    return out[out["source"] != "embedding"]


ENCODING_OF = {
    "text": "cooccurrence",
    "generated text": "cooccurrence",
    "embedding": "word/mean",
    "reduction": "word/mean",
    "probe": "probe",
}


def score_rows(
    strengths: pd.DataFrame, data: StudyData, negative: str, seed: int, signature: str
) -> pd.DataFrame:
    """DivDist (uniform reference) in the one row schema: one row per setting and distance.
    model: the model, or the corpus for text; source: the source of association (text with its
    k); test: the census professions of the kind; descriptor: the rule (paper or HELM)."""
    from biasbench.methods.contract import GroupAssociations, Settings
    from biasbench.methods.registry import get
    from biasbench.rows import RowKey, make_row

    method, settings = get("DivDist"), Settings()
    out = []
    for key, frame in strengths[strengths["rule"] != HALF].groupby(SETTING, sort=False):
        source, model, corpus, k, kind, rule = key
        matrix = strength_matrix(frame, data).to_numpy(np.float64)
        where = f"{source} k={k}" if source in ("text", "generated text") else source
        for variant in method.variants:
            row_key = RowKey(
                model or corpus,
                where,
                f"census professions ({kind})",
                rule,
                ENCODING_OF[source],
                variant,
            )
            score = method(GroupAssociations(matrix, None, variant, negative), settings, seed)
            out.append(
                make_row(
                    method,
                    row_key,
                    score,
                    primary=variant == method.variants[0] and rule == "paper",
                    unit="profession",
                    seed=seed,
                    signature=signature,
                    settings={"negative": negative, **method.settings_of(settings)},
                )
            )
    return pd.DataFrame(out)
