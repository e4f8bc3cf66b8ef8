"""Schröder et al., *Evaluating Metrics for Bias in Word Embeddings*: the experiments that are
not single scores (the example of section 3.1, the property matrix, the ground-truth study)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from biasbench.config import read_yaml
from biasbench.io import read_tsv
from biasbench.methods.embedding.weat import association
from biasbench.models.extract import read_embeddings
from biasbench.stats import effect_size

S31 = "Schroeder31"
S31_SETS = {"XY": "X, Y", "XYp": "X, Y'", "XpYp": "X', Y'"}
WORD_SCORE = "word score s(w, A, B)"


def _vectors(h5: str, contexts: pd.DataFrame, descriptor: str):
    """Per role, the words and their ``word/mean`` vectors (word alone, mean over subtokens);
    words a model cannot encode are left out."""
    arrays, _, _ = read_embeddings(h5, descriptor)
    ok = arrays["valid"]
    return {
        r: (
            contexts["stimulus"][(contexts["role"] == r) & ok].tolist(),
            arrays["word/mean"][((contexts["role"] == r) & ok).to_numpy()],
        )
        for r in "XYAB"
    }


def s31_cells(published: str, contexts: Sequence[str], embeddings: Sequence[str]) -> list[dict]:
    """§3.1: the word scores of the six occupations and d for the three choices of X and Y,
    with the population sd (the convention of the paper's proofs) and the sample sd, on every
    model (``embeddings``, one file each; ``contexts``: one file per :data:`S31_SETS` entry,
    in its order), beside the paper's BERT values (``published``)."""
    published = read_yaml(published)["section_3_1"]
    if not embeddings:  # no model runs the example
        return []
    contexts = {d: read_tsv(p) for d, p in zip(S31_SETS, contexts, strict=True)}
    cells = []
    for h5 in embeddings:
        model = h5.split("/")[-3]
        scored = set()
        for descriptor, label in S31_SETS.items():
            v = _vectors(h5, contexts[descriptor], descriptor)
            words = v["X"][0] + v["Y"][0]
            s = association(np.concatenate([v["X"][1], v["Y"][1]]), v["A"][1], v["B"][1])
            for word, value in zip(words, s, strict=True):
                if word not in scored:
                    scored.add(word)
                    cells.append(_cell(WORD_SCORE, word, model, value))
            n_x = len(v["X"][0])
            for ddof, name in ((0, "population sd"), (1, "sample sd")):
                value, note = np.nan, ""
                if n_x and len(v["Y"][0]):
                    value = effect_size(s[:n_x], s[n_x:], ddof=ddof)
                else:
                    note = f"{model} has no vector for a whole target set"
                cells.append(_cell(f"WEAT d, {name}", label, model, value, note))
    for row in published["effect_sizes"]:
        label = f"{row['X'].replace('_prime', chr(39))}, {row['Y'].replace('_prime', chr(39))}"
        for name in ("population sd", "sample sd"):
            cells.append(
                _cell(f"WEAT d, {name}", label, "BERT (paper)", row["d"], origin="paper:BERT")
            )
    return cells


def _cell(method, test, column, value, note="", origin="ours") -> dict:
    return {
        "method": method,
        "test": test,
        "column": column,
        "origin": origin,
        "source": "words",
        "effect_size": float(value),
        "p_value": np.nan,
        "note": note,
    }
