"""Delobelle et al., *Measuring Fairness with Biased Rulers*: the template-sensitivity study
(section 4.2, Figures 2a, 2b and 3) and the template KL divergences (Table 2).

Sensitivity: 20 random subsets of 10 female and 10 male professions (B.1) are each scored
against the 8 + 8 gendered words (B.2) with the WEAT effect size

    s(p) = mean_f cos(p, f) - mean_m cos(p, m)
    d    = (mean of s over the female professions - the same over the male ones) / sd(s)

(sample sd; positive: stereotypical), once per template T1-T11 and representation; the
figures are Pearson correlations of d over the 20 subsets, between templates and between
representations. A word's vector in a template uses the word's own subword tokens only (the
authors' pooled vectors ran to the sentence's end and took the template's trailing words in).

Representations (encoder / causal LM; ``words alone`` means the word with no template):

==================  =================================  ====================================
``cls``             first token of the template         last token of the template
``cls alone``       first token of the word alone       last token of the word alone
``pooled alone``    mean of the word's subtokens, word alone
``pooled``          mean of the word's subtokens in the template
``first``           the word's first subtoken in the template
``vulic``           mean over layers 1-4 (not the embeddings) of the subtoken mean, word alone
==================  =================================  ====================================
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasbench.methods.embedding.weat import association
from biasbench.stats import effect_size

REPRESENTATIONS = ("cls", "cls alone", "pooled alone", "pooled", "first", "vulic")
#: representations read from the word inside a template (the others have one value per word)
IN_TEMPLATE = ("cls", "pooled", "first")
#: the sentence-level vector of a template: an encoder's first token, a causal LM's last
SENTENCE_ENCODING = {False: "sent/cls", True: "sent/last"}
SLOT = "{target}"
ALONE = "alone"  # the template column of representations of the word without a template


def profession_subsets(
    female: list[str], male: list[str], n_subsets: int = 20, size: int = 10
) -> list[tuple[list[str], list[str]]]:
    """Subset i (1..n) of each list: its rows shuffled by a RandomState seeded with i, the
    first ``size`` (the authors' ``DataFrame.sample(frac=1, random_state=i)[:size]``)."""
    out = []
    for i in range(1, n_subsets + 1):
        pick = [
            [words[k] for k in np.random.RandomState(i).permutation(len(words))[:size]]
            for words in (female, male)
        ]
        out.append((pick[0], pick[1]))
    return out


def fill(template: str, word: str) -> tuple[str, int, int]:
    """(sentence, start, end) of ``word`` in the template's slot."""
    start = template.index(SLOT)
    return template.replace(SLOT, word, 1), start, start + len(word)


def contexts(templates: dict[str, str], words: list[str]) -> pd.DataFrame:
    """One row per (template, word), and per word alone (template ``ALONE``), with the word's
    character span: what the encoder is run on."""
    rows = [(name, w, *fill(t, w)) for name, t in templates.items() for w in words]
    rows += [(ALONE, w, w, 0, len(w)) for w in words]
    return pd.DataFrame(rows, columns=["template", "word", "sentence", "start", "end"])


def representation_vectors(
    frame: pd.DataFrame, encoded: dict[str, np.ndarray], layers: np.ndarray, causal: bool
) -> dict[tuple[str, str], dict[str, np.ndarray]]:
    """(representation, template) -> {word: vector}; representations of the word alone carry
    the template ``ALONE``. ``encoded`` holds the encodings of ``frame``'s rows (``sent/*``,
    ``word/*``) and ``layers`` the word/mean of its rows of words alone, in their order, for
    layers 1-4 (4, rows alone, dim)."""
    alone = (frame["template"] == ALONE).to_numpy()
    sentence = SENTENCE_ENCODING[causal]
    picks = {
        "cls": (sentence, ~alone),
        "pooled": ("word/mean", ~alone),
        "first": ("word/first", ~alone),
        "cls alone": (sentence, alone),
        "pooled alone": ("word/mean", alone),
    }
    out: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    for name, (encoding, keep) in picks.items():
        for r in np.flatnonzero(keep):
            key = (name, frame["template"].iat[r])
            out.setdefault(key, {})[frame["word"].iat[r]] = encoded[encoding][r]
    vulic = layers.mean(axis=0)
    out[("vulic", ALONE)] = dict(zip(frame["word"][alone], vulic, strict=True))
    return out


def subset_effect_sizes(
    vectors: dict[str, np.ndarray],
    subsets: list[tuple[list[str], list[str]]],
    female_words: list[str],
    male_words: list[str],
) -> np.ndarray:
    """d of each profession subset (female professions X, male Y; female words A, male B)."""
    a = np.stack([vectors[w] for w in female_words])
    b = np.stack([vectors[w] for w in male_words])
    out = []
    for female, male in subsets:
        s = association(np.stack([vectors[w] for w in female + male]), a, b)
        out.append(effect_size(s[: len(female)], s[len(female) :], ddof=1))
    return np.array(out)


def correlation_matrix(columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """Pearson r between every two columns (templates or representations) over subsets."""
    frame = pd.DataFrame(columns)
    return frame.corr(method="pearson")


def kl_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """KL(P || Q) in nats of two distributions over the same outcomes (0 log 0 = 0)."""
    p, q = np.asarray(p, np.float64), np.asarray(q, np.float64)
    if p.shape != q.shape or np.any(p < 0) or np.any(q < 0):
        raise ValueError("KL needs two non-negative vectors over the same outcomes")
    p, q = p / p.sum(), q / q.sum()
    support = p > 0
    if np.any(q[support] == 0):
        return float("inf")
    return float(np.sum(p[support] * (np.log(p[support]) - np.log(q[support]))))


def log_kl_divergence(log_p: np.ndarray, log_q: np.ndarray) -> float:
    """KL(P || Q) from unnormalised log-probabilities over the same outcomes (renormalised
    first: a subset of the vocabulary, e.g. the gendered words, becomes a distribution)."""
    log_p = np.asarray(log_p, np.float64) - np.logaddexp.reduce(log_p)
    log_q = np.asarray(log_q, np.float64) - np.logaddexp.reduce(log_q)
    return float(np.sum(np.exp(log_p) * (log_p - log_q)))


def vulic_layers(n_layers: int) -> list[int]:
    """Hidden-state indices of Vulić et al.'s average: layers 1-4 (index 0 is the embedding
    output, left out); a model with fewer layers uses all it has."""
    return list(range(1, min(4, n_layers) + 1))


def encode(model, tokenizer, frame: pd.DataFrame, **extraction) -> tuple[dict, np.ndarray]:
    """The last layer's encodings of every row, and the word/mean of each Vulić layer of the
    rows of words alone: Vulić's representation reads no other row, and the templates are
    eleven times as many sentences, each longer."""
    from biasbench.models.extract import encode_transformer

    encoded = encode_transformer(model, tokenizer, frame, progress=False, **extraction)
    alone = frame[frame["template"] == ALONE]
    layers = np.stack(
        [
            encode_transformer(model, tokenizer, alone, layer=k, progress=False, **extraction)[
                "word/mean"
            ]
            for k in vulic_layers(model.config.num_hidden_layers)
        ]
    )
    return encoded, layers


def sensitivity(
    vectors: dict[tuple[str, str], dict[str, np.ndarray]],
    subsets: list[tuple[list[str], list[str]]],
    female_words: list[str],
    male_words: list[str],
) -> pd.DataFrame:
    """Long table: representation, template (``ALONE`` for the word alone), subset, d."""
    rows = []
    for (representation, template), by_word in vectors.items():
        d = subset_effect_sizes(by_word, subsets, female_words, male_words)
        rows += [(representation, template, i + 1, float(v)) for i, v in enumerate(d)]
    return pd.DataFrame(rows, columns=["representation", "template", "subset", "d"])


def sensitivity_table(
    model,
    tokenizer,
    is_decoder: bool,
    templates: dict[str, str],
    lists: dict,
    *,
    n_subsets: int,
    size: int,
    extraction: dict,
) -> pd.DataFrame:
    """The study on one model: every template and representation, every subset's d."""
    from biasbench.errors import InputError

    female_p, male_p = lists["professions"]["female"], lists["professions"]["male"]
    female_w, male_w = lists["gendered"]["female"], lists["gendered"]["male"]
    words = list(dict.fromkeys(female_p + male_p + female_w + male_w))
    frame = contexts(templates, words)
    encoded, layers = encode(model, tokenizer, frame, **extraction)
    if not encoded["valid"].all():
        lost = sorted(set(frame["word"][~encoded["valid"]]))
        raise InputError(f"template study: the model cannot encode {lost}")
    vectors = representation_vectors(frame, encoded, layers, causal=is_decoder)
    subsets = profession_subsets(female_p, male_p, n_subsets, size)
    return sensitivity(vectors, subsets, female_w, male_w)


def _slot_parts(template: str) -> tuple[str, str]:
    """(prefix, suffix) of a template around its slot, spaces kept with the suffix."""
    before, after = template.split(SLOT)
    return before.rstrip(), after


def template_kl(engine, templates: dict[str, str], gendered: list[str], candidates: int):
    """KL(P_T || P_T1) of each template's slot distribution, over the vocabulary and over the
    gendered words (renormalised). A masked LM: the distribution at the slot, masked (T9's
    literal [MASK] stays; the slot is the first). A causal LM: P(x | T) ∝ P(prefix x suffix)
    over the gendered words, exact, and for the "vocabulary" over the ``candidates``
    likeliest word starts after T1's prefix (a causal LM has no distribution over a slot
    followed by more text)."""
    names = list(templates)
    if engine.masked:
        mask = engine.tokenizer.mask_token
        texts = [t.replace(SLOT, mask, 1) for t in templates.values()]
        full = engine.slot_log_probs(texts)
        pieces = [
            (t.split(SLOT)[0], w, t.split(SLOT)[1]) for t in templates.values() for w in gendered
        ]
        subset = engine.masked_slot(pieces).reshape(len(names), len(gendered))
        vocabulary = "every token of the vocabulary"
    else:
        parts = [_slot_parts(t) for t in templates.values()]
        first = engine.next_token_log_probs([parts[0][0]])[0]
        top = np.argsort(-np.where(engine.word_starts(), first, -np.inf), kind="stable")[
            :candidates
        ]
        words = [engine.tokenizer.decode([i]).strip() for i in top.tolist()]
        full = np.stack(
            [engine.continuation_matrix([p], [f" {w}{s}" for w in words])[0] for p, s in parts]
        )
        subset = np.stack(
            [engine.continuation_matrix([p], [f" {w}{s}" for w in gendered])[0] for p, s in parts]
        )
        vocabulary = f"the {candidates} likeliest word starts after T1's prefix"
    rows = []
    for k, name in enumerate(names):
        rows.append(
            {
                "template": name,
                "text": templates[name],
                "kl_vocabulary": log_kl_divergence(full[k], full[0]),
                "kl_gendered": log_kl_divergence(subset[k], subset[0]),
                "vocabulary": vocabulary,
            }
        )
    return pd.DataFrame(rows)
