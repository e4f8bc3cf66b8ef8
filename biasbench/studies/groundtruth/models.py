"""The ground-truth study's grid of models: each fine-tunes copies of the top layers and the
head's transform at the pronoun slot of its drawn training sentences, on the frozen states, and
is measured by every word- and set-level score on its word vectors (the word alone, and in the
test templates). Torch is imported where used."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from biasbench.methods.embedding import direct_bias, mac, same
from biasbench.methods.embedding.weat import association
from biasbench.models.device import adam_kernel, model_device
from biasbench.stats import derived_seed, effect_size
from biasbench.studies.groundtruth.data import (
    REFIT,
    GridPoint,
    StudyData,
    StudySettings,
    draw_labels,
    fill,
    male_probabilities,
    model_name,
    refit_points,
    span_positions,
    training_bias,
)
from biasbench.studies.groundtruth.states import (
    STATE_PARTS,
    FrozenStates,
    load_study_lm,
    study_states,
)
from biasbench.studies.groundtruth.statistics import r2
from biasbench.studies.groundtruth.surgery import PronounHead, forward
from biasbench.studies.groundtruth.truth import injected_bias


@dataclass
class Trained:
    layers: list  # the trainable top layers, lowest first
    head: PronounHead
    losses: list[float] = field(default_factory=list)


def fine_tune(model, head: PronounHead, frozen: FrozenStates, labels, train, settings, seed):
    """Train copies of the top layers and the head's transform on the slot of ``train``."""
    import torch

    torch.manual_seed(seed)
    layers = [copy.deepcopy(m).train() for m in model.bert.encoder.layer[-settings.trainable :]]
    mine = PronounHead(copy.deepcopy(head.transform).train(), head.weight, head.bias)
    params = [p for m in (*layers, mine.transform) for p in m.parameters()]
    optimiser = torch.optim.AdamW(
        params, lr=settings.learning_rate, weight_decay=0.0, **adam_kernel(frozen.states.device)
    )
    target = torch.as_tensor(labels, dtype=torch.long, device=frozen.states.device)
    generator = torch.Generator().manual_seed(seed)
    index = torch.as_tensor(train)
    losses = []
    for _ in range(settings.epochs):
        total = 0.0
        for batch in index[torch.randperm(len(index), generator=generator)].split(settings.batch):
            out = forward(
                layers, frozen.states[batch], frozen.attention[batch], frozen.slot[batch, None]
            )
            loss = torch.nn.functional.cross_entropy(mine.logits(out[:, 0]), target[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        losses.append(total / len(index))
    layers = [m.eval() for m in layers]
    return Trained(layers, PronounHead(mine.transform.eval(), head.weight, head.bias), losses)


def slot_male_share(trained: Trained, frozen: FrozenStates, kind: np.ndarray) -> np.ndarray:
    """P(male) / (P(male) + P(female)) at the slot of each input, with the kind's pronouns."""
    import torch

    with torch.inference_mode():
        out = forward(trained.layers, frozen.states, frozen.attention, frozen.slot[:, None])[:, 0]
        logits = trained.head.logits(out).double()
    pick = torch.as_tensor(kind, device=logits.device) * 2
    male = logits.gather(1, pick[:, None])[:, 0]
    female = logits.gather(1, pick[:, None] + 1)[:, 0]
    return torch.sigmoid(male - female).cpu().numpy()


def in_context_vectors(trained: Trained, frozen: FrozenStates, positions, real, occupation, n):
    """Each occupation's mean vector over its tokens in every test template, then over the
    templates (the in-context variant of the word vectors)."""
    import torch

    with torch.inference_mode():
        out = forward(trained.layers, frozen.states, frozen.attention, positions)
    per_sentence = (
        torch.einsum("nq,nqh->nh", real.to(out.dtype), out) / real.sum(1, keepdim=True)
    ).double()
    occupation = torch.as_tensor(occupation, device=out.device)
    sums = torch.zeros(n, out.shape[-1], dtype=torch.float64, device=out.device).index_add_(
        0, occupation, per_sentence
    )
    return (sums / torch.bincount(occupation, minlength=n)[:, None]).cpu().numpy()


def word_vectors(trained: Trained, frozen: FrozenStates) -> np.ndarray:
    """Each word alone through the fine-tuned top layer, mean over its word pieces."""
    import torch

    n, width = frozen.attention.shape
    with torch.inference_mode():
        out = forward(
            trained.layers,
            frozen.states,
            frozen.attention,
            torch.arange(width, device=frozen.states.device).expand(n, width),
        )
    pieces = frozen.attention.clone()
    pieces[:, 0] = 0  # [CLS]
    pieces[torch.arange(n, device=pieces.device), frozen.attention.sum(1) - 1] = 0  # [SEP]
    weights = pieces / pieces.sum(1, keepdim=True)
    return torch.einsum("nt,nth->nh", weights.double(), out.double()).cpu().numpy()


# --- the measures of one model ------------------------------------------------------------


def measure(
    occupations: np.ndarray,
    male: np.ndarray,
    female: np.ndarray,
    stereotype: np.ndarray,
    p_train: np.ndarray,
    unmask: np.ndarray,
    rng: np.random.Generator,
    subsets: int = 100,
) -> dict[str, Any]:
    """Every score of one model: word-level scores and their R² with training and unmasking
    bias, set-level scores, unmasking summaries, the angle between Direct Bias' PCA direction
    and SAME's mean direction, and the subset robustness of each set score."""
    words = {
        "WEAT": association(occupations, male, female),
        "SAME": same.word_bias(occupations, male, female),
        "MAC": mac.mac_word(occupations, [male, female]),
        "Direct Bias": direct_bias.word_bias(occupations, male, female),
    }
    x, y = stereotype > 0, stereotype < 0  # WEAT's X and Y: male and female stereotyped

    def set_scores(keep: np.ndarray) -> dict[str, float]:
        b = words["SAME"][keep]
        sx, sy = words["WEAT"][keep & x], words["WEAT"][keep & y]
        d = (
            effect_size(sx, sy, ddof=0)
            if len(sx) and len(sy) and np.ptp(words["WEAT"][keep]) > 0
            else np.nan
        )
        return {
            "WEAT": d,
            "MAC": float(words["MAC"][keep].mean()),
            "Direct Bias": float(words["Direct Bias"][keep].mean()),
            "SAME": float(same.magnitude(b)),
            "SAME stereotype": float(same.stereotype(b)),
            "SAME skew": float(same.skew(b)),
        }

    everything = np.ones(len(occupations), bool)
    full = set_scores(everything)
    half = len(occupations) // 2
    deviations = {k: [] for k in full}
    for _ in range(subsets):
        keep = np.zeros(len(occupations), bool)
        keep[rng.choice(len(occupations), half, replace=False)] = True
        for k, v in set_scores(keep).items():
            deviations[k].append(abs(v - full[k]))
    g = direct_bias.directions(male, female)[0]
    mean_dir = same.direction(male, female)
    cos = abs(g @ mean_dir) / np.linalg.norm(mean_dir)
    return {
        "word_scores": {k: v.tolist() for k, v in words.items()},
        "r2_training": {k: r2(v, p_train) for k, v in words.items()}
        | {"unmasking": r2(unmask, p_train)},
        "r2_unmasking": {k: r2(v, unmask) for k, v in words.items()},
        "sd": {k: float(np.std(v)) for k, v in words.items()}
        | {"unmasking": float(np.std(unmask))},
        "set_scores": full,
        "subset_deviation": {k: float(np.nanmean(v)) for k, v in deviations.items()},
        "unmasking_summary": {
            "mean": float(np.mean(unmask)),
            "sd": float(np.std(unmask)),
            "absolute": float(np.sum(np.abs(0.5 - unmask))),
        },
        "angle_degrees": float(np.degrees(np.arccos(np.clip(cos, 0, 1)))),
    }


# --- the grid -----------------------------------------------------------------------------


def run_grid(
    model_dir: str,
    data: StudyData,
    models: list[GridPoint],
    settings: StudySettings,
    states: dict[str, FrozenStates] | None = None,
    *,
    retest: int = 0,
    device: str = "cpu",
    dtype: str = "float32",
) -> tuple[list[dict], dict]:
    """Fine-tune and measure one model per (mu, sigma, alignment, repeat) on the frozen
    states (computed here unless given). Returns the records and the trained weights
    ({model name/parameter: tensor}: the top layers and the head's transform, what
    :func:`injected_model` puts back into the masked LM). ``retest`` of the points
    (:func:`refit_points`) are fine-tuned again on the same draw and split with another
    seed, their weights under the model's name + ``REFIT`` (its record's ``refit``): only
    the seed differs between the two, the test-retest facet of the league's reliability.
    ``device`` and ``dtype``: the masked LM's (:func:`load_study_lm`)."""
    import torch
    from tqdm.auto import tqdm

    model, tokenizer = load_study_lm(model_dir, device=device, dtype=dtype)
    n = len(data.occupations)
    train = fill(data.occupations, data.train, data.slot, data.mask, tokenizer.mask_token)
    test = fill(data.occupations, data.test, data.slot, data.mask, tokenizer.mask_token)
    if states is None:
        states = study_states(model, tokenizer, data, settings.trainable)
    dev = model_device(model)
    frozen_train, frozen_test, frozen_words = (states[part].to(dev) for part in STATE_PARTS)
    positions, real = (t.to(dev) for t in span_positions(tokenizer, test))
    head = PronounHead.of(model, tokenizer)
    records, weights = [], {}
    refits = set(refit_points(models, retest))

    def keep_weights(name: str, trained: Trained) -> None:
        for k, layer in enumerate(trained.layers):
            weights.update({f"{name}/layer{k}.{p}": t for p, t in layer.state_dict().items()})
        transform = trained.head.transform.state_dict()
        weights.update({f"{name}/transform.{p}": t for p, t in transform.items()})

    for mu, sigma, alignment, repeat in tqdm(models, desc="ground-truth models"):
        p = male_probabilities(data.stereotype, mu, sigma, alignment, repeat, settings.seed)
        male, fit, held = draw_labels(p, train, mu, sigma, alignment, repeat, settings)
        labels = train.kind * 2 + (~male).astype(int)  # he she his her
        key = (f"{mu:.4f}", f"{sigma:.4f}", f"{alignment:.4f}", str(repeat))
        seed = derived_seed(settings.seed, "fit", *key)
        trained = fine_tune(model, head, frozen_train, labels, fit, settings, seed)
        with torch.inference_mode():
            out = forward(
                trained.layers,
                frozen_train.states[held],
                frozen_train.attention[held],
                frozen_train.slot[held, None],
            )[:, 0]
            predicted = trained.head.logits(out).argmax(-1).cpu().numpy()
        shares = slot_male_share(trained, frozen_test, test.kind)
        unmask = np.bincount(test.occupation, weights=shares, minlength=n) / np.bincount(
            test.occupation, minlength=n
        )
        p_train = training_bias(male, fit, train, n)
        vectors = word_vectors(trained, frozen_words)
        in_context = in_context_vectors(trained, frozen_test, positions, real, test.occupation, n)
        male_vectors, female_vectors = (
            vectors[n : n + len(data.male)],
            vectors[n + len(data.male) :],
        )
        representations = {
            name: measure(
                occupation_vectors,
                male_vectors,
                female_vectors,
                data.stereotype,
                p_train,
                unmask,
                np.random.default_rng(seed),
            )
            for name, occupation_vectors in (("alone", vectors[:n]), ("in templates", in_context))
        }
        fit_r2 = r2(unmask, p_train)
        name = model_name(mu, sigma, alignment, repeat)
        keep_weights(name, trained)
        refit = None
        if (mu, sigma, alignment, repeat) in refits:
            refit = name + REFIT
            again = derived_seed(settings.seed, "refit", *key)
            keep_weights(refit, fine_tune(model, head, frozen_train, labels, fit, settings, again))
        records.append(
            {
                "name": name,
                "mu": mu,
                "sigma": sigma,
                "alignment": alignment,
                "repeat": repeat,
                "train_loss": trained.losses,
                "heldout_accuracy": float((predicted == labels[held]).mean()),
                "r2_unmasking_training": fit_r2,
                "kept": bool(fit_r2 > settings.r2_threshold),
                "refit": refit,
                "p": p.tolist(),
                "training_bias": p_train.tolist(),
                "injected": injected_bias(p_train, data.stereotype),
                "unmasking_bias": unmask.tolist(),
                "representations": representations,
            }
        )
    return records, weights
