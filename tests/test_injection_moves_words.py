"""The ground-truth study's bias injection moves the words' representations: on a small
seeded random masked LM, after the study's own fine-tuning (``fine_tune`` on the frozen states),
each occupation's WEAT association s(w, A, B) of its word vector, read by the study's own
``word_vectors``, ``in_context_vectors`` and ``measure``, tracks the share of "he" it was trained
with (word-level R², the study's ``word_r2``, high); the same pipeline with no training step
(the model before injection) gives a low R². That control is what lets the test fail: without
it a high R² could come from the words' vectors themselves (their token ids, the template
positions) lining up with the shares by chance rather than from the injection.

What a random model needs that a pretrained one has: it knows no gender, so the definitional
words (A: man, boy, ...; B: woman, girl, ...) learn theirs in the same injection, filled into
the same templates with a male share of 1 or 0, as "man" goes with "he" in pretraining text.
The occupations' shares are spread evenly over [0.1, 0.9] and handed out in several random
assignments (one model each, R² averaged over them as ``word_r2`` does over a grid's models):
a high R² for every assignment shows that the association follows the injected share, not
the word, and averaging keeps the control's chance R² (12 words) from its tail.

Sizes that make it learn (found over seeds; one fixed seed here): 256 wide (a 16-wide model's
word vectors are mostly their random residual, R² near 0), weights drawn with sd 0.05 rather
than BERT's 0.02 (which often leaves the top layer on the plateau where only subject against
possessive is learned), the top layer trained 12 epochs at 1e-3 in batches of 8 (many more
memorise single sentences). With the 8 assignments used here, over seeds 0-11 the injected
R² was 0.61-0.81 (the word alone) and 0.55-0.83 (in templates), the control's at most 0.16
(seed 0: 0.64 and 0.75 against 0.09 and 0.08); with 4 assignments, over seeds 0-13, the
injected R² in templates fell to 0.32 for one seed and the control's rose to 0.26."""

import numpy as np
import torch
from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

from biasbench.stats import derived_seed
from biasbench.studies.groundtruth.data import (
    StudyData,
    StudySettings,
    draw_labels,
    fill,
    span_positions,
    training_bias,
)
from biasbench.studies.groundtruth.models import (
    fine_tune,
    in_context_vectors,
    measure,
    slot_male_share,
    word_vectors,
)
from biasbench.studies.groundtruth.states import STATE_PARTS, study_states
from biasbench.studies.groundtruth.statistics import word_r2
from biasbench.studies.groundtruth.surgery import PronounHead

from .tiny_models import tiny_bert

OCCUPATIONS = [
    "nurse",
    "plumber",
    "teacher",
    "pilot",
    "clerk",
    "judge",
    "baker",
    "farmer",
    "dancer",
    "lawyer",
    "cook",
    "guard",
]
MALE = ["man", "boy", "father", "king"]
FEMALE = ["woman", "girl", "mother", "queen"]
TRAIN = {
    "subject": [
        "[MASK] is a OCCUPATION",
        "[MASK] was a OCCUPATION",
        "[MASK] works as a OCCUPATION",
        "[MASK] became a OCCUPATION",
        "[MASK] is the OCCUPATION",
        "[MASK] was the OCCUPATION",
    ],
    "possessive": [
        "the OCCUPATION loves [MASK] job",
        "the OCCUPATION lost [MASK] job",
        "the OCCUPATION took [MASK] car",
        "the OCCUPATION sold [MASK] house",
        "the OCCUPATION saw [MASK] car",
        "the OCCUPATION left [MASK] house",
    ],
}
TEST = {
    "subject": ["[MASK] is now a OCCUPATION"],
    "possessive": ["the OCCUPATION found [MASK] car"],
}
VOCABULARY = OCCUPATIONS + MALE + FEMALE + ["he", "she", "his", "her", "now", "found"]
VOCABULARY += [
    "works",
    "as",
    "became",
    "loves",
    "lost",
    "took",
    "sold",
    "saw",
    "left",
    "job",
    "car",
    "house",
    "was",
]
SHARES = np.linspace(0.1, 0.9, len(OCCUPATIONS))  # the injected male shares
SEED = 0


def masked_lm(path, seed: int):
    """A seeded random 2-layer BERT, 256 wide (weights drawn with sd 0.05), with the tiny
    WordPiece vocabulary."""
    tiny_bert(path, tuple(VOCABULARY), mlm_head=True)  # the tokenizer (its model is not used)
    tokenizer = AutoTokenizer.from_pretrained(path)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=256,
        num_hidden_layers=2,
        num_attention_heads=16,
        intermediate_size=512,
        max_position_embeddings=64,
        initializer_range=0.05,
    )
    return BertForMaskedLM(config).eval(), tokenizer


def injection_r2(path, seed: int, epochs: int, assignments: int = 8) -> dict[str, float]:
    """Mean word-level R² (WEAT's s(w, A, B) against the training share of "he") over
    ``assignments`` random assignments of SHARES to the occupations, per representation,
    after fine-tuning ``epochs`` epochs (0: the model before injection)."""
    model, tokenizer = masked_lm(path, seed)
    words = OCCUPATIONS + MALE + FEMALE  # the definitional words are filled in too
    data = StudyData(words, TRAIN, TEST, "OCCUPATION", "[MASK]", MALE, FEMALE, np.zeros(len(words)))
    settings = StudySettings(epochs=epochs, batch=8, learning_rate=1e-3, seed=seed)
    train = fill(words, TRAIN, data.slot, data.mask, tokenizer.mask_token)
    test = fill(words, TEST, data.slot, data.mask, tokenizer.mask_token)
    frozen_train, frozen_test, frozen_words = (
        study_states(model, tokenizer, data, settings.trainable)[part] for part in STATE_PARTS
    )
    positions, real = span_positions(tokenizer, test)
    head = PronounHead.of(model, tokenizer)
    n, k = len(words), len(OCCUPATIONS)
    rng = np.random.default_rng(seed)
    stereotype = SHARES - 0.5  # WEAT's X and Y for the set scores (not asserted on)
    records = []
    for repeat in range(assignments):
        p = np.r_[rng.permutation(SHARES), np.ones(len(MALE)), np.zeros(len(FEMALE))]
        male, fit, _held = draw_labels(p, train, 0.5, 0.0, 0.0, repeat, settings)
        labels = train.kind * 2 + (~male).astype(int)  # he she his her
        trained = fine_tune(
            model, head, frozen_train, labels, fit, settings, derived_seed(seed, str(repeat))
        )
        p_train = training_bias(male, fit, train, n)[:k]
        shares = slot_male_share(trained, frozen_test, test.kind)
        unmask = (np.bincount(test.occupation, weights=shares) / np.bincount(test.occupation))[:k]
        vectors = word_vectors(trained, frozen_words)
        a, b = vectors[n : n + len(MALE)], vectors[n + len(MALE) :]
        in_context = in_context_vectors(trained, frozen_test, positions, real, test.occupation, n)[
            :k
        ]
        representations = {
            name: measure(occ, a, b, stereotype, p_train, unmask, np.random.default_rng(0), 2)
            for name, occ in (("alone", vectors[:k]), ("in templates", in_context))
        }
        records.append({"kept": True, "representations": representations})
    return {
        name: next(
            row["mean"]
            for row in word_r2(records, name)
            if row["score"] == "WEAT" and row["against"] == "training bias"
        )
        for name in ("alone", "in templates")
    }


def test_the_injection_moves_the_words_representations(tmp_path):
    injected = injection_r2(tmp_path / "injected", SEED, epochs=12)
    before = injection_r2(tmp_path / "before", SEED, epochs=0)
    for name in ("alone", "in templates"):
        assert injected[name] > 0.5, (name, injected, before)
        assert before[name] < 0.2, (name, injected, before)
