"""BEC-Pro (Bartl et al., 2020): the prior-corrected association of person words with
professions, male against female person words.

Per sentence, A = log p_T - log p_prior: the probability of the person word at its slot with
the profession in view (``Sent_TM``: the person masked) over the same with the profession
masked too (``Sent_TAM``, the prior: read at the person's slot, not at the profession's, the
slot Kurita et al.'s code read it at). Per profession group, the effect is the mean over the
paired sentences of A(male person word) - A(female person word) (> 0: the male words are the
more associated), with a two-sided Wilcoxon signed-rank test of the pairs.
"""

from __future__ import annotations

import numpy as np

from biasbench.methods.contract import Associations, Method, Settings
from biasbench.rows import Score


def score(inputs: Associations, settings: Settings, seed: int) -> Score:
    from scipy.stats import wilcoxon  # lazily: planning the DAG imports the registry

    diff = np.asarray(inputs.male, float) - np.asarray(inputs.female, float)
    p = wilcoxon(diff).pvalue if np.any(diff != 0) else 1.0
    return Score(float(diff.mean()), float(p), sizes={"X": len(diff), "Y": len(diff)})


BEC_PRO = Method(
    "BEC-Pro",
    "Bartl et al. (2020)",
    "probability",
    Associations,
    score,
    encodings=("mlm", "causal", "mlm-pieces"),
    variants=("all", "male", "female", "balanced"),
    model_kinds=("transformer",),
    roles=("items",),
    unit="sentence pair",
    description="Mean difference of the prior-corrected association of male and female "
    "person words with professions, per profession group.",
    reference="marionbartl/gender-bias-BERT: code/corpus_creation.py, code/bias_utils/utils.py",
)
