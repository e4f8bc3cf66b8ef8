"""The ground-truth study of Schröder et al. (section 5): masked LMs fine-tuned on text whose
gender bias per occupation is set by us, then measured by every word- and set-level score.

For a distribution (mu, sigma), each occupation gets a male probability p ~ N(mu, sigma) clipped
to [0, 1] (fixed per distribution). A repeat draws the pronoun of every (occupation, training
template) sentence from it and a random 70/30 split; the model learns the pronoun slot only.
Training bias = the share of male pronouns among an occupation's training sentences; unmasking
bias = the mean over the test templates of P(male) / (P(male) + P(female)) at the slot. A model
counts when R² (squared Pearson r) between the two exceeds 0.7.

Making one model cheap (the paper fine-tunes all of BERT, ~45 min per model on this machine):
every model sees the same masked inputs, so everything below the top layer is computed once
(``FrozenStates``); a model trains the top layer and the head's transform, and the top layer
runs its queries only at the slot (its keys and values at every position), with the head's
output restricted to the four pronouns. Word vectors are the word alone ("[CLS] w [SEP]"),
the mean over its word pieces of the fine-tuned top layer.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from biasbench.methods.embedding import direct_bias, mac, same
from biasbench.methods.embedding.weat import association
from biasbench.stats import derived_seed, effect_size

PRONOUNS = {"subject": ("he", "she"), "possessive": ("his", "her")}  # (male, female)


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
class StudySettings:
    trainable: int = 1  # top layers fine-tuned (the rest of the encoder stays as it is)
    epochs: int = 5
    batch: int = 32
    learning_rate: float = 1e-4
    test_share: float = 0.3
    r2_threshold: float = 0.7
    seed: int = 0


def male_probabilities(n: int, mu: float, sigma: float, seed: int) -> np.ndarray:
    """p_occ ~ N(mu, sigma), clipped to [0, 1] (the paper does not say how it bounds them)."""
    rng = np.random.default_rng(derived_seed(seed, "p", f"{mu:.4f}", f"{sigma:.4f}"))
    return np.clip(rng.normal(mu, sigma, size=n), 0.0, 1.0)


def draw_labels(p: np.ndarray, sentences: Sentences, mu, sigma, repeat, settings: StudySettings):
    """(is_male per training sentence, the training indices, the held-out indices)."""
    rng = np.random.default_rng(
        derived_seed(settings.seed, "draw", f"{mu:.4f}", f"{sigma:.4f}", str(repeat))
    )
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


def r2(x: np.ndarray, y: np.ndarray) -> float:
    """Squared Pearson r over the entries both have (NaN below three or without spread)."""
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3 or np.std(x[ok]) == 0 or np.std(y[ok]) == 0:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1] ** 2)


# --- the model part: torch, imported where used -------------------------------------------


@dataclass
class FrozenStates:
    """Hidden states entering the top layer for every input, computed once per study job."""

    states: Any  # (n, width, hidden)
    attention: Any  # (n, width)
    slot: Any  # position of the [MASK] per input (-1 for words alone)


def frozen_states(
    model, tokenizer, texts: list[str], trainable: int, batch: int = 256
) -> FrozenStates:
    """Run the embeddings and every layer below the ``trainable`` top ones, once."""
    import torch

    enc = tokenizer(texts, return_tensors="pt", padding=True)
    ids, attention = enc["input_ids"], enc["attention_mask"]
    slot = torch.where(ids == tokenizer.mask_token_id, torch.arange(ids.shape[1]), -1).max(1).values
    bert = model.bert
    outs = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch):
            rows = slice(start, start + batch)
            hidden = bert(
                input_ids=ids[rows], attention_mask=attention[rows], output_hidden_states=True
            ).hidden_states[-1 - trainable]  # the input of the first trainable layer
            outs.append(hidden.clone())
    return FrozenStates(torch.cat(outs), attention, slot)


def forward(layers, states, attention, queries):
    """The trainable layers on frozen states: every position through the lower ones (the top
    one reads their keys and values), the top one only at ``queries``."""
    import torch

    n, width = attention.shape
    for layer in layers[:-1]:
        states = top_layer(layer, states, attention, torch.arange(width).expand(n, width))
    return top_layer(layers[-1], states, attention, queries)


def top_layer(layer, states, attention, queries):
    """A BERT layer's output at ``queries`` (n, q) positions only: keys and values from every
    position of ``states`` (n, width, hidden), queries and the feed-forward part only where
    asked (equal to the full layer there; tested)."""
    import torch

    attn = layer.attention.self
    n, width, hidden = states.shape
    heads, size = attn.num_attention_heads, attn.attention_head_size
    rows = torch.arange(n)[:, None]
    here = states[rows, queries]  # (n, q, hidden)
    q = attn.query(here).view(n, -1, heads, size)
    k = attn.key(states).view(n, width, heads, size)
    v = attn.value(states).view(n, width, heads, size)
    scores = torch.einsum("nqhd,nthd->nhqt", q, k) / math.sqrt(size)
    scores = scores.masked_fill(attention[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
    context = torch.einsum("nhqt,nthd->nqhd", scores.softmax(-1), v).reshape(n, -1, hidden)
    out = layer.attention.output
    mid = out.LayerNorm(out.dense(context) + here)
    final = layer.output
    return final.LayerNorm(final.dense(layer.intermediate(mid)) + mid)


@dataclass
class PronounHead:
    """The masked-LM head restricted to he, she, his, her (male, female per kind)."""

    transform: Any
    weight: Any  # (4, hidden): the decoder rows of he, she, his, her
    bias: Any  # (4,)

    @classmethod
    def of(cls, model, tokenizer) -> PronounHead:
        head = model.cls.predictions
        ids = tokenizer.convert_tokens_to_ids([w for pair in PRONOUNS.values() for w in pair])
        return cls(
            copy.deepcopy(head.transform),
            head.decoder.weight[ids].detach().clone(),
            head.bias[ids].detach().clone(),
        )

    def logits(self, hidden):
        return self.transform(hidden) @ self.weight.T + self.bias


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
    optimiser = torch.optim.AdamW(params, lr=settings.learning_rate, weight_decay=0.0)
    target = torch.as_tensor(labels, dtype=torch.long)
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
    pick = torch.as_tensor(kind) * 2
    male = logits.gather(1, pick[:, None])[:, 0]
    female = logits.gather(1, pick[:, None] + 1)[:, 0]
    return torch.sigmoid(male - female).numpy()


def in_context_vectors(trained: Trained, frozen: FrozenStates, positions, real, occupation, n):
    """Each occupation's mean vector over its tokens in every test template, then over the
    templates (the in-context variant of the word vectors)."""
    import torch

    with torch.inference_mode():
        out = forward(trained.layers, frozen.states, frozen.attention, positions)
    per_sentence = (torch.einsum("nq,nqh->nh", real, out) / real.sum(1, keepdim=True)).double()
    sums = torch.zeros(n, out.shape[-1], dtype=torch.float64).index_add_(
        0, torch.as_tensor(occupation), per_sentence
    )
    return (sums / torch.bincount(torch.as_tensor(occupation), minlength=n)[:, None]).numpy()


def word_vectors(trained: Trained, frozen: FrozenStates) -> np.ndarray:
    """Each word alone through the fine-tuned top layer, mean over its word pieces."""
    import torch

    n, width = frozen.attention.shape
    with torch.inference_mode():
        out = forward(
            trained.layers, frozen.states, frozen.attention, torch.arange(width).expand(n, width)
        )
    pieces = frozen.attention.clone()
    pieces[:, 0] = 0  # [CLS]
    pieces[torch.arange(n), frozen.attention.sum(1) - 1] = 0  # [SEP]
    weights = pieces / pieces.sum(1, keepdim=True)
    return torch.einsum("nt,nth->nh", weights.double(), out.double()).numpy()


# --- the measures -------------------------------------------------------------------------


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


# --- the study: data, the grid of models, and what the paper reports ----------------------


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

    from biasbench.data.wordsets import read_yaml

    def read_json(path: str):
        return json.loads(Path(path).read_text(encoding="utf-8"))

    return load_data(
        read_yaml(occupations)["words"],
        read_yaml(train),
        read_yaml(test),
        read_json(pairs),
        read_json(professions),
    )


def grid(mus: list[float], sigmas: list[float], repeats: int) -> list[tuple[float, float, int]]:
    return [(m, s, r) for m in mus for s in sigmas for r in range(repeats)]


def model_name(mu: float, sigma: float, repeat: int) -> str:
    """The name an injected-bias model goes by in score rows."""
    return f"gt-mu{mu:.2f}-sd{sigma:.2f}-r{repeat}"


STATE_PARTS = ("train", "test", "words")


def load_study_lm(model_dir: str):
    """(masked LM, tokenizer) of the study, in evaluation mode; a prepared model's files are
    checked against its provenance first."""
    from pathlib import Path

    from transformers import AutoTokenizer, BertForMaskedLM

    from biasbench.models.prepare import PROVENANCE
    from biasbench.models.weights import check_weights

    check_weights(Path(model_dir) / PROVENANCE, model_dir)

    model = BertForMaskedLM.from_pretrained(model_dir, dtype="float32").eval()
    return model, AutoTokenizer.from_pretrained(model_dir)


def study_states(model, tokenizer, data: StudyData, trainable: int) -> dict[str, FrozenStates]:
    """The frozen states of the study's inputs (training and test sentences, the words alone):
    the same for every model of the grid, so the workflow computes them once for all jobs."""
    mask = tokenizer.mask_token
    texts = {
        "train": fill(data.occupations, data.train, data.slot, data.mask, mask).texts,
        "test": fill(data.occupations, data.test, data.slot, data.mask, mask).texts,
        "words": data.occupations + data.male + data.female,
    }
    return {part: frozen_states(model, tokenizer, texts[part], trainable) for part in STATE_PARTS}


def save_states(path, states: dict[str, FrozenStates]) -> None:
    """Frozen states to safetensors, sealed (checked on reading)."""
    from biasbench.io import save_tensors

    save_tensors(
        path,
        {
            f"{part}.{name}": getattr(frozen, name)
            for part, frozen in states.items()
            for name in ("states", "attention", "slot")
        },
    )


def load_states(path) -> dict[str, FrozenStates]:
    """What :func:`save_states` wrote; a file that no longer matches its seal (or an
    unreadable one) is an error naming the file, never a study on corrupted states."""
    from biasbench.io import load_tensors

    tensors = load_tensors(path)
    return {
        part: FrozenStates(*(tensors[f"{part}.{n}"] for n in ("states", "attention", "slot")))
        for part in STATE_PARTS
    }


def run_grid(
    model_dir: str,
    data: StudyData,
    models: list[tuple[float, float, int]],
    settings: StudySettings,
    states: dict[str, FrozenStates] | None = None,
) -> tuple[list[dict], dict]:
    """Fine-tune and measure one model per (mu, sigma, repeat) on the frozen states (computed
    here unless given). Returns the records and the trained weights ({model name/parameter:
    tensor}: the top layers and the head's transform, what :func:`injected_model` puts back
    into the masked LM)."""
    import torch
    from tqdm.auto import tqdm

    model, tokenizer = load_study_lm(model_dir)
    n = len(data.occupations)
    train = fill(data.occupations, data.train, data.slot, data.mask, tokenizer.mask_token)
    test = fill(data.occupations, data.test, data.slot, data.mask, tokenizer.mask_token)
    if states is None:
        states = study_states(model, tokenizer, data, settings.trainable)
    frozen_train, frozen_test, frozen_words = (states[part] for part in STATE_PARTS)
    positions, real = span_positions(tokenizer, test)
    head = PronounHead.of(model, tokenizer)
    records, weights = [], {}
    for mu, sigma, repeat in tqdm(models, desc="ground-truth models"):
        p = male_probabilities(n, mu, sigma, settings.seed)
        male, fit, held = draw_labels(p, train, mu, sigma, repeat, settings)
        labels = train.kind * 2 + (~male).astype(int)  # he she his her
        seed = derived_seed(settings.seed, "fit", f"{mu:.4f}", f"{sigma:.4f}", str(repeat))
        trained = fine_tune(model, head, frozen_train, labels, fit, settings, seed)
        with torch.inference_mode():
            out = forward(
                trained.layers,
                frozen_train.states[held],
                frozen_train.attention[held],
                frozen_train.slot[held, None],
            )[:, 0]
            predicted = trained.head.logits(out).argmax(-1).numpy()
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
        name = model_name(mu, sigma, repeat)
        for k, layer in enumerate(trained.layers):
            weights |= {f"{name}/layer{k}.{p}": t for p, t in layer.state_dict().items()}
        weights |= {
            f"{name}/transform.{p}": t for p, t in trained.head.transform.state_dict().items()
        }
        records.append(
            {
                "name": name,
                "mu": mu,
                "sigma": sigma,
                "repeat": repeat,
                "train_loss": trained.losses,
                "heldout_accuracy": float((predicted == labels[held]).mean()),
                "r2_unmasking_training": fit_r2,
                "kept": bool(fit_r2 > settings.r2_threshold),
                "p": p.tolist(),
                "training_bias": p_train.tolist(),
                "unmasking_bias": unmask.tolist(),
                "representations": representations,
            }
        )
    return records, weights


def injected_model(base, weights: dict, name: str):
    """A copy of the masked LM with one study model's trained top layers and head transform:
    the whole model, for measures that read more than the pronoun slot. The frozen parameters
    (embeddings, lower layers, the decoder) are the base model's own, not copies."""
    layers = sorted(
        {k.split("/")[1].split(".")[0] for k in weights if k.startswith(f"{name}/layer")}
    )
    if not layers:
        raise KeyError(f"no weights of {name}")
    trained = [*base.bert.encoder.layer[-len(layers) :], base.cls.predictions.transform]
    copied = {id(t) for module in trained for t in module.parameters()}
    model = copy.deepcopy(base, memo={id(t): t for t in base.parameters() if id(t) not in copied})
    top = model.bert.encoder.layer[-len(layers) :]
    for k, layer in enumerate(top):
        prefix = f"{name}/layer{k}."
        layer.load_state_dict(
            {p[len(prefix) :]: t for p, t in weights.items() if p.startswith(prefix)}
        )
    prefix = f"{name}/transform."
    model.cls.predictions.transform.load_state_dict(
        {p[len(prefix) :]: t for p, t in weights.items() if p.startswith(prefix)}
    )
    return model.eval()


class SharedBodyMLM:
    """A study model for the log-probability engine: the frozen lower layers run once per batch
    of inputs and are kept (``cache``, shared by every model of a job), then this model's
    trained top layers, the last of them only at the positions read, and its head there. Equal
    to :func:`injected_model` (tested) at a fraction of the encoder's cost per model. Gives
    logits, not attention weights."""

    def __init__(self, base, top: int, model: Any, cache: dict):
        self.base, self.top, self.cache, self.config = base, top, cache, base.config
        self.layers = list(model.bert.encoder.layer[-top:])
        self.cls = model.cls

    def logits_at(self, inputs: dict, rows, cols, attention: bool = False):
        """The logits at (rows, cols) only, as ``biasbench.models.logprobs`` asks a masked LM."""
        import torch

        if attention:
            raise NotImplementedError("a study model gives no attention weights")
        ids, mask = inputs["input_ids"], inputs["attention_mask"]
        key = (tuple(ids.shape), ids.numpy().tobytes(), mask.numpy().tobytes())
        if key not in self.cache:
            with torch.inference_mode():
                self.cache[key] = self.base.bert(
                    input_ids=ids, attention_mask=mask, output_hidden_states=True
                ).hidden_states[-1 - self.top]
        slot, count = [], [0] * len(ids)  # each position's place among its row's queries
        for r in rows.tolist():
            slot.append(count[r])
            count[r] += 1
        slot = torch.tensor(slot, dtype=torch.long)
        queries = torch.zeros(len(ids), max(count), dtype=torch.long)
        queries[rows, slot] = cols
        return self.cls(forward(self.layers, self.cache[key], mask, queries)[rows, slot])

    def set_attn_implementation(self, _name):
        raise NotImplementedError("a study model gives no attention weights")


def study_models(base, weights: dict, names: list[str]):
    """(name, model) of each study model, all on one shared cache of the frozen layers."""
    cache: dict = {}
    for name in names:
        model = injected_model(base, weights, name)
        top = len({k.split("/")[1].split(".")[0] for k in weights if k.startswith(f"{name}/layer")})
        yield name, SharedBodyMLM(base, top, model, cache)


# --- what the paper reports, from the records of every model ------------------------------

#: the interval each set score lies in (Table 3 divides by its width)
WIDTHS = {
    "WEAT": 4.0,
    "MAC": 2.0,
    "Direct Bias": 1.0,
    "SAME": 1.0,
    "SAME stereotype": 1.0,
    "SAME skew": 2.0,
}
WORD_SCORES = ("WEAT", "SAME", "MAC", "Direct Bias")


def kept(records: list[dict]) -> list[dict]:
    """The models that learned the bias (R² of unmasking vs training bias above the bar)."""
    return [r for r in records if r["kept"]]


def word_r2(records: list[dict], representation: str) -> list[dict]:
    """Figure 6: mean and sd over the kept models of each word score's R² with the training
    and with the unmasking bias."""
    out = []
    models = kept(records)
    for against in ("training", "unmasking"):
        for score in WORD_SCORES:
            values = np.array(
                [m["representations"][representation][f"r2_{against}"][score] for m in models]
            )
            values = values[np.isfinite(values)]
            out.append(
                {
                    "score": score,
                    "against": f"{against} bias",
                    "mean": float(values.mean()) if len(values) else np.nan,
                    "sd": float(values.std()) if len(values) else np.nan,
                    "models": len(values),
                }
            )
    return out


def angles(records: list[dict], representation: str, selection: float = 0.6) -> list[dict]:
    """Section 5.2.1: the mean angle between Direct Bias' PCA direction and SAME's mean
    direction, over the kept models whose SAME R² (with the training bias) is at least
    ``selection``, for similar (< 0.25) and much worse (> 0.4) Direct Bias R²."""
    rows = []
    for name, test in (
        ("similar (< 0.25)", lambda d: d < 0.25),
        ("worse (> 0.4)", lambda d: d > 0.4),
    ):
        chosen = []
        for m in kept(records):
            rep = m["representations"][representation]
            r2_same, r2_db = rep["r2_training"]["SAME"], rep["r2_training"]["Direct Bias"]
            if r2_same >= selection and test(r2_same - r2_db):
                chosen.append(rep["angle_degrees"])
        rows.append(
            {
                "group": name,
                "mean angle": float(np.mean(chosen)) if chosen else np.nan,
                "models": len(chosen),
            }
        )
    return rows


def robustness(records: list[dict], representation: str) -> dict[str, float]:
    """Table 2: per model the sd of each word score; within each distribution the mean over
    pairs of repeats of |a - b| / ((a + b) / 2); the mean over the distributions."""
    groups: dict[tuple, list[dict]] = {}
    for m in records:
        groups.setdefault((m["mu"], m["sigma"]), []).append(
            m["representations"][representation]["sd"]
        )
    out = {}
    for score in (*WORD_SCORES, "unmasking"):
        per_group = []
        for sds in groups.values():
            values = [s[score] for s in sds]
            pairs = [
                abs(a - b) / ((a + b) / 2)
                for i, a in enumerate(values)
                for b in values[i + 1 :]
                if a + b > 0
            ]
            if pairs:
                per_group.append(np.mean(pairs))
        out[score] = float(np.mean(per_group)) if per_group else np.nan
    return out


def set_level_r2(records: list[dict], representation: str) -> list[dict]:
    """Figure 9: R² (and its p-value) of each set score with the mean, sd and absolute sum
    of the unmasking bias, across the kept models."""
    from scipy.stats import pearsonr

    models = kept(records)
    rows = []
    for score in WIDTHS:
        x = np.array([m["representations"][representation]["set_scores"][score] for m in models])
        for summary in ("mean", "sd", "absolute"):
            y = np.array(
                [m["representations"][representation]["unmasking_summary"][summary] for m in models]
            )
            ok = np.isfinite(x) & np.isfinite(y)
            r, p = (np.nan, np.nan)
            if ok.sum() >= 3 and np.std(x[ok]) > 0 and np.std(y[ok]) > 0:
                r, p = pearsonr(x[ok], y[ok])
            rows.append(
                {
                    "score": score,
                    "summary": summary,
                    "r2": float(r**2),
                    "p": float(p),
                    "models": int(ok.sum()),
                }
            )
    return rows


def subset_robustness(records: list[dict], representation: str) -> dict[str, float]:
    """Table 3: mean over the kept models of (1/100) sum |b(W_i) - b(W)| over random
    half-size subsets W_i of the occupations, divided by the width of the score's interval."""
    models = kept(records)
    return {
        score: float(
            np.mean(
                [m["representations"][representation]["subset_deviation"][score] for m in models]
            )
            / width
        )
        if models
        else np.nan
        for score, width in WIDTHS.items()
    }
