"""The ground-truth study's data: the occupations filled into the training and test templates
(the pronoun slot masked), the definitional words and debiaswe's stereotype scores; per model
of the grid, the male probabilities, the drawn pronouns and split, and the training bias."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biasbench.stats import derived_seed

PRONOUNS = {"subject": ("he", "she"), "possessive": ("his", "her")}  # (male, female)


@dataclass(frozen=True)
class StudySettings:
    trainable: int = 1  # top layers fine-tuned (the rest of the encoder stays as it is)
    epochs: int = 5
    batch: int = 32
    learning_rate: float = 1e-4
    test_share: float = 0.3
    r2_threshold: float = 0.7
    seed: int = 0


@dataclass(frozen=True)
class Sentences:
    """Template sentences with the occupation filled in and the pronoun slot masked."""

    texts: list[str]
    occupation: np.ndarray  # index into the occupations, per sentence
    kind: np.ndarray  # 0 subject (he/she), 1 possessive (his/her), per sentence
    spans: list[tuple[int, int]]  # the occupation's characters in each text


def fill(
    occupations: list[str], templates: dict[str, list[str]], slot: str, mask: str, mask_token: str
) -> Sentences:
    texts, occ, kind, spans = [], [], [], []
    for k, name in enumerate(("subject", "possessive")):
        for template in templates[name]:
            before, after = (part.replace(mask, mask_token) for part in template.split(slot))
            for i, occupation in enumerate(occupations):
                texts.append(before + occupation + after)
                spans.append((len(before), len(before) + len(occupation)))
                occ.append(i)
                kind.append(k)
    return Sentences(texts, np.array(occ), np.array(kind), spans)


def span_positions(tokenizer, sentences: Sentences):
    """(positions of each text's occupation tokens, padded with 0, and which are real)."""
    import torch

    offsets = tokenizer(sentences.texts, return_offsets_mapping=True)["offset_mapping"]
    found = [
        [j for j, (a, b) in enumerate(row) if b > a and a < end and b > start]
        for row, (start, end) in zip(offsets, sentences.spans, strict=True)
    ]
    width = max(map(len, found))
    positions = torch.tensor([f + [0] * (width - len(f)) for f in found])
    real = torch.tensor([[1.0] * len(f) + [0.0] * (width - len(f)) for f in found])
    return positions, real


@dataclass(frozen=True)
class StudyData:
    occupations: list[str]
    train: dict[str, list[str]]  # kind -> templates
    test: dict[str, list[str]]
    slot: str  # the occupation placeholder
    mask: str  # the pronoun placeholder
    male: list[str]  # definitional words (A)
    female: list[str]  # (B)
    stereotype: np.ndarray  # per occupation (debiaswe; 0 where it has none)


def load_data(
    occupations: list[str], train: dict, test: dict, pairs: list, professions: list
) -> StudyData:
    """From the transcribed occupations and templates, debiaswe's definitional pairs
    ([female, male] each) and its professions ([word, definitional, stereotypical])."""
    scores = {w.replace("_", " "): s for w, _d, s in professions}
    return StudyData(
        occupations,
        train["templates"],
        test["templates"],
        train["occupation_slot"],
        train["pronoun_slot"],
        [m for _f, m in pairs],
        [f for f, _m in pairs],
        np.array([scores.get(o, 0.0) for o in occupations]),
    )


def read_data(occupations: str, train: str, test: str, pairs: str, professions: str) -> StudyData:
    """:func:`load_data` from its files (the YAML resources and debiaswe's JSON files)."""
    import json
    from pathlib import Path

    from biasbench.config import read_yaml

    def read_json(path: str):
        return json.loads(Path(path).read_text(encoding="utf-8"))

    return load_data(
        read_yaml(occupations)["words"],
        read_yaml(train),
        read_yaml(test),
        read_json(pairs),
        read_json(professions),
    )


def male_probabilities(
    stereotype: np.ndarray, mu: float, sigma: float, alignment: float, repeat: int, seed: int
) -> np.ndarray:
    """p_occ = mu + alignment * (s_occ - mean s) + sigma * z_occ, clipped to [0, 1] (the paper
    does not say how it bounds them), s the occupation's stereotype score and z standard
    normal. Schröder et al. draw p ~ N(mu, sigma) (alignment 0): the difference between the
    male- and the female-stereotyped occupations is then a small by-product of the noise, the
    same in expectation for every model; the stereotype-aligned part makes it vary across
    models, so a test of X against Y has a truth to follow. Every model draws its own z (the
    repeat is in the seed): models are independent draws, not copies of one."""
    key = (f"{mu:.4f}", f"{sigma:.4f}", f"{alignment:.4f}", str(repeat))
    rng = np.random.default_rng(derived_seed(seed, "p", *key))
    centred = np.asarray(stereotype, float) - np.mean(stereotype)
    noise = rng.normal(0.0, 1.0, size=len(centred))
    return np.clip(mu + alignment * centred + sigma * noise, 0.0, 1.0)


def draw_labels(
    p: np.ndarray, sentences: Sentences, mu, sigma, alignment, repeat, settings: StudySettings
):
    """(is_male per training sentence, the training indices, the held-out indices)."""
    key = (f"{mu:.4f}", f"{sigma:.4f}", f"{alignment:.4f}", str(repeat))
    rng = np.random.default_rng(derived_seed(settings.seed, "draw", *key))
    male = rng.random(len(sentences.texts)) < p[sentences.occupation]
    order = rng.permutation(len(sentences.texts))
    n_test = int(round(settings.test_share * len(order)))
    return male, np.sort(order[n_test:]), np.sort(order[:n_test])


def training_bias(male: np.ndarray, train: np.ndarray, sentences: Sentences, n: int) -> np.ndarray:
    """Share of male pronouns among each occupation's training sentences (NaN without any)."""
    counts = np.bincount(sentences.occupation[train], minlength=n).astype(float)
    males = np.bincount(sentences.occupation[train], weights=male[train], minlength=n)
    with np.errstate(invalid="ignore"):
        return males / counts


#: one model of the grid: (mu, sigma, alignment, repeat)
GridPoint = tuple[float, float, float, int]


def grid(
    mus: list[float], sigmas: list[float], repeats: int, alignments: list[float] = (0.0,)
) -> list[GridPoint]:
    return [(m, s, a, r) for m in mus for s in sigmas for a in alignments for r in range(repeats)]


#: how the study's models are placed: Schröder et al.'s grid of levels, or a Latin hypercube
DESIGNS = ("grid", "latin-hypercube")


def design_names() -> list[str]:
    """The designs ``groundtruth.design`` may name (the schema's ``x-enum``)."""
    return list(DESIGNS)


def mean_strata(mus: list[float]) -> list[tuple[float, float]]:
    """The interval of the mean each planned mean stands for in a Latin hypercube: cut at the
    midpoints between neighbours, the ends as far out as half the gap beside them (0.3, 0.4,
    ..., 0.7 -> [0.25, 0.35), ..., [0.65, 0.75], the paper's range); one mean, no interval."""
    ordered = sorted(dict.fromkeys(mus))
    if len(ordered) == 1:
        return [(ordered[0], ordered[0])]
    cuts = [(a + b) / 2 for a, b in zip(ordered, ordered[1:], strict=False)]
    low = ordered[0] - (cuts[0] - ordered[0])
    high = ordered[-1] + (ordered[-1] - cuts[-1])
    edges = [max(low, 0.0), *cuts, min(high, 1.0)]
    return list(zip(edges, edges[1:], strict=False))


def latin_hypercube(
    mus: list[float], sigmas: list[float], repeats: int, alignments: list[float], seed: int
) -> dict[float, list[GridPoint]]:
    """The study's models as a seeded Latin hypercube, as many as the grid has
    (len(sigmas) x len(alignments) x repeats per planned mean), each with its own mean,
    spread and alignment, per planned mean the models of its job. The mean is drawn within
    the planned mean's stratum (:func:`mean_strata`), one model per equal sub-stratum of it;
    the spread and the alignment each from [min, max] of their planned levels, one model per
    equal stratum of all of them, the strata in a seeded random order. No value repeats, so
    no truth is set by a few levels (on a grid most of it is:
    :func:`~biasbench.studies.groundtruth.truth.discrete_level_share`). A model's ``repeat``
    is its sub-stratum of the mean: the models of adjacent means with the same one are the
    paired check's pairs."""
    per_job = len(sigmas) * len(alignments) * repeats
    strata = mean_strata(mus)
    n = per_job * len(strata)
    rng = np.random.default_rng(derived_seed(seed, "groundtruth-design"))

    def spread(levels: list[float]) -> np.ndarray:
        low, high = min(levels), max(levels)
        return low + (rng.permutation(n) + rng.random(n)) / n * (high - low)

    sigma, alignment = spread(sigmas), spread(alignments)
    within = (np.arange(per_job) + rng.random((len(strata), per_job))) / per_job
    out: dict[float, list[GridPoint]] = {}
    for j, (mu, (low, high)) in enumerate(zip(sorted(dict.fromkeys(mus)), strata, strict=True)):
        rows = range(j * per_job, (j + 1) * per_job)
        out[mu] = [
            (float(low + within[j, k] * (high - low)), float(sigma[i]), float(alignment[i]), k)
            for k, i in enumerate(rows)
        ]
    return out


def design_points(study: dict, mu: float, seed: int) -> list[GridPoint]:
    """The models of the job of planned mean ``mu`` under the study's design (``groundtruth``:
    its ``design``, levels and repeats)."""
    sigmas, alignments, repeats = study["sigma"], study["alignment"], study["repeats"]
    if study["design"] == "grid":
        return grid([mu], sigmas, repeats, alignments)
    jobs = latin_hypercube(study["mu"], sigmas, repeats, alignments, seed)
    return next(points for m, points in jobs.items() if f"{m:.2f}" == f"{mu:.2f}")


def _decimals(value: float) -> str:
    """Two decimals for a grid's level, three for a drawn value."""
    return f"{value:.2f}" if abs(value - round(value, 2)) < 1e-9 else f"{value:.3f}"


def model_name(mu: float, sigma: float, alignment: float, repeat: int) -> str:
    """The name an injected-bias model goes by in score rows."""
    return f"gt-mu{_decimals(mu)}-sd{_decimals(sigma)}-a{_decimals(alignment)}-r{repeat}"


#: the suffix of a model fine-tuned again from another's draw with another seed
REFIT = "-refit"


def refit_points(models: list[GridPoint], retest: int) -> list[GridPoint]:
    """The ``retest`` points of a job's grid fine-tuned a second time (the test-retest
    reliability across fine-tuning seeds): evenly spread over the job's points, so that
    they span its sigmas and alignments."""
    if retest <= 0 or not models:
        return []
    k = min(retest, len(models))
    return [models[int((j + 0.5) * len(models) / k)] for j in range(k)]
