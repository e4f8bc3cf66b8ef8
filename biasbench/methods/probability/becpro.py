"""BEC-Pro (Bartl et al., 2020): the prior-corrected association of person words with
professions, male against female person words.

Per sentence, A = log p_T - log p_prior: the probability of the person word at its slot with
the profession in view (``Sent_TM``: the person masked) over the same with the profession
masked too (``Sent_TAM``, the prior: read at the person's slot, not at the profession's, the
slot Kurita et al.'s code read it at). Per profession group, the effect is the mean over the
paired sentences of A(male person word) - A(female person word) (> 0: the male words are the
more associated), with a two-sided Wilcoxon signed-rank test of the pairs.

``p_word``: the Wilcoxon test treats the sentence pairs as independent, but they cluster:
a group's professions each come in every template with every person-word pair ("he"/"she",
"my brother"/"my sister", ...), and a pair's male-female contrast carries the two person
words' own place in the model into every sentence it appears in. The null of no bias is
that the male and the female word of a person-word pair are interchangeable; swapping them
negates every sentence's difference of that word pair at once. So the word-level test keeps
Wilcoxon's statistic (the signed-rank sum of the differences, ranks of |difference| over the
untied pairs) and flips the signs of whole person-word pairs (all their sentences together;
:func:`biasbench.inference.word_sign_flip_tests`, exact over the 2^9 sign vectors of BEC-Pro's
nine word pairs). The profession is not the unit: a profession appears on both sides of
each pair, and no symmetry of the null swaps anything per profession; with only the nine
word pairs as units the smallest two-sided p is 2 / 512. Without word pairs in the inputs
(``Associations.words`` None) every sentence pair is its own unit and p_word = p_value.
"""

from __future__ import annotations

import numpy as np

from biasbench.inference import word_sign_flip_tests
from biasbench.methods.contract import ON_DATA_SET, Associations, Method, Settings, Truth
from biasbench.rows import Score
from biasbench.stats import wilcoxon_floor


def signed_ranks(diff: np.ndarray) -> np.ndarray:
    """Each difference's sign times the rank of its |difference| among the non-zero ones
    (average ranks for ties; a zero difference 0): Wilcoxon's signed-rank sum is their sum."""
    from scipy.stats import rankdata

    out = np.zeros(len(diff))
    nonzero = diff != 0
    out[nonzero] = np.sign(diff[nonzero]) * rankdata(np.abs(diff[nonzero]))
    return out


def _differences(inputs: Associations) -> np.ndarray:
    return np.asarray(inputs.male, float) - np.asarray(inputs.female, float)


def mean_difference(inputs: Associations) -> float:
    """The score alone: the mean male-minus-female association over the sentence pairs."""
    return float(_differences(inputs).mean())


def score(inputs: Associations, settings: Settings, seed: int) -> Score:
    from scipy.stats import wilcoxon  # lazily: planning the DAG imports the registry

    diff = _differences(inputs)
    p = wilcoxon(diff).pvalue if np.any(diff != 0) else 1.0
    floor = wilcoxon_floor(len(diff))
    p_word, word_floor = p, floor
    splits = {"exact_max": settings.exact_max, "n_samples": settings.n_samples}
    if inputs.words is not None:
        (word,) = word_sign_flip_tests(
            signed_ranks(diff), list(inputs.words), ("two-sided",), seed=seed, **splits
        )
        p_word, word_floor = word.p_value, word.floor
    return Score(
        mean_difference(inputs),
        float(p),
        p_word=float(p_word),
        p_floor=floor,
        p_word_floor=word_floor,
        sizes={"X": len(diff), "Y": len(diff)},
    )


BEC_PRO = Method(
    "BEC-Pro",
    "Bartl et al. (2020)",
    "probability",
    Associations,
    score,
    effect=mean_difference,  # the tests cost more than the mean: the bootstrap skips them
    encodings=("mlm", "causal", "mlm-pieces"),
    variants=("all", "male", "female", "balanced"),
    choices=(),  # the person words' and profession groups' parts of the data
    model_kinds=("transformer",),
    roles=("items",),
    unit="sentence pair",
    reads=("exact_max", "n_samples"),
    description="Mean difference of the prior-corrected association of male and female "
    "person words with professions, per profession group.",
    reference="marionbartl/gender-bias-BERT: code/corpus_creation.py, code/bias_utils/utils.py",
    truth=Truth(
        "direction",
        ON_DATA_SET,
        "male minus female association over every profession group: which gender all lean to",
    ),
)
