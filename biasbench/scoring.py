"""From one embeddings file to tidy score rows: WEAT (static), s-SEAT and w-SEAT.

Items of the sets are the contexts (``unit: context``, as in the SEAT code of May et al.,
where every template sentence is a set member) or the per-stimulus mean over its contexts
(``unit: stimulus``). Stimuli without a usable encoding (out of vocabulary, span lost) are
dropped and counted in the row; a set losing more than ``max_drop_share`` of its stimuli
stops the job with a message naming the test and the stimuli.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from biasbench.errors import InputError
from biasbench.extract import WORD_ENCODINGS
from biasbench.weat import weat
from biasbench.wordsets import ROLES


@dataclass(frozen=True)
class ScoreSettings:
    exact_max: int = 200_000
    n_samples: int = 100_000
    seed: int = 0
    ddof: int = 1
    unit: str = "context"
    max_drop_share: float = 0.2


def derived_seed(seed: int, *parts: str) -> int:
    """A per-job seed that depends only on the global seed and the job's identity; the
    encodings of one job share it, so they are tested on the same partitions."""
    digest = hashlib.sha256("|".join([str(seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:4], "little")


def method_encodings(kind: str, is_decoder: bool) -> list[tuple[str, str]]:
    """(method, encoding) pairs scored for a model kind, the paper's default first.

    s-SEAT's sentence encoding is [CLS] for encoders and the last token for decoders (the
    only position that has read the whole sentence); a decoder's first position sees one
    token and says nothing about the sentence, so ``sent/cls`` is not scored for decoders.
    """
    if kind == "static":
        return [("WEAT", "word/mean")]
    sent = ["sent/last", "sent/mean"] if is_decoder else ["sent/cls", "sent/last", "sent/mean"]
    return [("s-SEAT", e) for e in sent] + [("w-SEAT", e) for e in WORD_ENCODINGS]


def role_items(
    contexts: pd.DataFrame, vectors: np.ndarray, valid: np.ndarray, unit: str
) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """Per role: the item matrix and the stimuli dropped for lack of a usable encoding."""
    items, dropped = {}, {}
    for role in ROLES:
        mask = (contexts["role"] == role).to_numpy()
        stimuli = contexts.loc[mask, "stimulus"].to_numpy()
        ok = valid[mask]
        kept = set(stimuli[ok])
        dropped[role] = sorted(set(stimuli) - kept)
        if unit == "context":
            items[role] = vectors[mask][ok]
        else:
            order = list(dict.fromkeys(stimuli[ok]))  # first-seen order of the kept stimuli
            rows = vectors[mask][ok]
            keys = stimuli[ok]
            items[role] = (
                np.stack([rows[keys == s].mean(axis=0) for s in order]) if order else rows[:0]
            )
    return items, dropped


def score_file(
    contexts: pd.DataFrame,
    arrays: dict[str, np.ndarray],
    *,
    model: str,
    kind: str,
    is_decoder: bool,
    source: str,
    test: str,
    descriptor: str,
    settings: ScoreSettings,
    signature: str,
) -> pd.DataFrame:
    """All methods and encodings for one (model, source, test, descriptor)."""
    if settings.unit not in ("context", "stimulus"):
        raise InputError(
            f"config: scoring.unit must be 'context' or 'stimulus', got {settings.unit!r}"
        )
    rows = []
    pairs = method_encodings(kind, is_decoder)
    primary = {pairs[0], ("w-SEAT", "word/mean")}  # the paper's default encoding per method
    for method, encoding in pairs:
        valid = arrays["valid"] if encoding.startswith("word/") else np.ones(len(contexts), bool)
        items, dropped = role_items(contexts, arrays[encoding], valid, settings.unit)
        for role in ROLES:
            total = contexts.loc[contexts["role"] == role, "stimulus"].nunique()
            share = len(dropped[role]) / total
            if share > settings.max_drop_share:
                raise InputError(
                    f"{test}/{descriptor} on {model}: set {role} lost {len(dropped[role])} of "
                    f"{total} stimuli ({share:.0%} > max_drop_share "
                    f"{settings.max_drop_share:.0%}): {dropped[role]}"
                )
        seed = derived_seed(settings.seed, model, source, test, descriptor)
        res = weat(
            items["X"],
            items["Y"],
            items["A"],
            items["B"],
            exact_max=settings.exact_max,
            n_samples=settings.n_samples,
            seed=seed,
            ddof=settings.ddof,
        )
        rows.append(
            {
                "method": method,
                "model": model,
                "source": source,
                "test": test,
                "descriptor": descriptor,
                "encoding": encoding,
                "primary": (method, encoding) in primary,
                "unit": settings.unit,
                **asdict(res),
                **{f"dropped_{r}": len(dropped[r]) for r in ROLES},
                "dropped": ";".join(f"{r}:{w}" for r in ROLES for w in dropped[r]),
                "seed": seed,
                "signature": signature,
            }
        )
    return pd.DataFrame(rows)
