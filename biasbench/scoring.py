"""From one embeddings file to tidy score rows: WEAT (static), s-SEAT and w-SEAT.

Items of the sets are the contexts (``unit: context``, as in the SEAT code of May et al.,
where every template sentence is a set member) or the per-stimulus mean over its contexts
(``unit: stimulus``). Stimuli without a usable encoding (out of vocabulary, span lost) are
dropped and counted in the row; a set losing more than ``max_drop_share`` of its stimuli
stops the job with a message naming the test and the stimuli.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from biasbench.ceat import ceat
from biasbench.errors import InputError
from biasbench.extract import WORD_ENCODINGS
from biasbench.stats import derived_seed
from biasbench.weat import weat
from biasbench.wordsets import ROLES


@dataclass(frozen=True)
class ScoreSettings:
    exact_max: int = 200_000
    n_samples: int = 100_000
    seed: int = 0
    ddof: int = 1
    unit: str = "context"
    corpus_unit: str = "stimulus"
    max_drop_share: float = 0.2
    ceat_samples: int = 10_000


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


def stimulus_groups(
    contexts: pd.DataFrame,
    vectors: np.ndarray,
    valid: np.ndarray,
    expected: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, list[np.ndarray]], dict[str, list[str]]]:
    """Per role: one (contexts, dim) matrix per kept stimulus (first-seen order), and the
    stimuli dropped: those of ``expected`` (default: those in the table) without any usable
    encoding -- including stimuli a corpus never mentions."""
    groups, dropped = {}, {}
    for role in ROLES:
        mask = (contexts["role"] == role).to_numpy()
        stimuli = contexts.loc[mask, "stimulus"].to_numpy()
        rows, ok = vectors[mask], valid[mask]
        kept = list(dict.fromkeys(stimuli[ok]))
        groups[role] = [rows[ok & (stimuli == s)] for s in kept]
        wanted = expected[role] if expected is not None else stimuli
        dropped[role] = sorted(set(wanted) - set(kept))
    return groups, dropped


def set_items(groups: list[np.ndarray], unit: str) -> np.ndarray:
    """WEAT items: every context (``context``) or each stimulus' mean context (``stimulus``)."""
    if not groups:
        return np.empty((0, 0))
    if unit == "context":
        return np.concatenate(groups)
    return np.stack([g.mean(axis=0) for g in groups])


def check_drops(
    dropped: dict[str, list[str]], totals: dict[str, int], where: str, limit: float
) -> None:
    for role in ROLES:
        total = totals[role]
        share = len(dropped[role]) / total if total else 1.0
        if share > limit:
            raise InputError(
                f"{where}: set {role} lost {len(dropped[role])} of {total} stimuli "
                f"({share:.0%} > max_drop_share {limit:.0%}): {dropped[role]}"
            )


def _ceat_stats(res) -> dict:
    return {
        "effect_size": res.ces,
        "p_value": res.p_value,
        "se": res.se,
        "tau_squared": res.tau_squared,
        "n_partitions": res.n_samples,
        "exact": False,
    }


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
    expected: Mapping[str, Sequence[str]] | None = None,
    in_vocabulary: Callable[[str], bool] | None = None,
    samples: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """All methods and encodings for one (model, source, test, descriptor): WEAT-style
    rows for every (method, encoding), and for contextual models CEAT on every encoding.

    With ``in_vocabulary`` (a contextual model's tokenizer), CEAT on ``word/mean`` also runs
    on the targets reduced to single tokens (encoding ``word/mean+reduced``; Table 14).
    ``samples``, if given, receives CEAT's per-sample effect sizes of the ``word/mean``
    encodings (Figure 3).
    """
    unit = settings.unit if source in ("templates", "words") else settings.corpus_unit
    if unit not in ("context", "stimulus"):
        raise InputError(f"config: scoring.unit must be 'context' or 'stimulus', got {unit!r}")
    where = f"{test}/{descriptor} on {model}"
    # one seed per job: its encodings are tested on the same partitions
    seed = derived_seed(settings.seed, model, source, test, descriptor)
    pairs = method_encodings(kind, is_decoder)
    if kind != "static":
        pairs += [("CEAT", encoding) for _method, encoding in pairs]
    primary = {pairs[0], ("w-SEAT", "word/mean"), ("CEAT", "word/mean")}  # the paper's defaults
    identity = {"model": model, "source": source, "test": test, "descriptor": descriptor}
    provenance = {"seed": seed, "signature": signature}
    rows = []
    for method, encoding in pairs:
        valid = arrays["valid"] if encoding.startswith("word/") else np.ones(len(contexts), bool)
        groups, dropped = stimulus_groups(contexts, arrays[encoding], valid, expected)
        totals = {r: len(groups[r]) + len(dropped[r]) for r in ROLES}
        check_drops(dropped, totals, where, settings.max_drop_share)
        try:
            if method == "CEAT":
                res = ceat(groups, n_samples=settings.ceat_samples, seed=seed)
                if samples is not None and encoding == "word/mean":
                    samples[encoding] = res.effect_sizes.astype(np.float32)
                stats = _ceat_stats(res)
                counts = {f"n_{r.lower()}": len(groups[r]) for r in ROLES}
            else:
                items = {r: set_items(groups[r], unit) for r in ROLES}
                res = weat(
                    *(items[r] for r in ROLES),
                    exact_max=settings.exact_max,
                    n_samples=settings.n_samples,
                    seed=seed,
                    ddof=settings.ddof,
                )
                stats = {k: v for k, v in asdict(res).items() if not k.startswith("n_")}
                stats["n_partitions"] = res.n_partitions
                counts = {f"n_{r.lower()}": len(items[r]) for r in ROLES}
        except ValueError as exc:
            raise InputError(f"{where}, {method} {encoding}: {exc}") from exc
        rows.append(
            {
                "method": method,
                **identity,
                "encoding": encoding,
                "primary": (method, encoding) in primary,
                "unit": "sampled context" if method == "CEAT" else unit,
                "effect_size": stats["effect_size"],
                "p_value": stats["p_value"],
                "se": stats.get("se", np.nan),
                "tau_squared": stats.get("tau_squared", np.nan),
                **counts,
                "n_partitions": stats["n_partitions"],
                "exact": stats["exact"],
                **{f"dropped_{r}": len(dropped[r]) for r in ROLES},
                "dropped": ";".join(f"{r}:{w}" for r in ROLES for w in dropped[r]),
                **provenance,
            }
        )
    if in_vocabulary is not None and kind != "static":
        keep = contexts["role"].isin(["A", "B"]) | contexts["stimulus"].map(in_vocabulary)
        mask = keep.to_numpy()
        groups, removed = stimulus_groups(
            contexts[mask], arrays["word/mean"][mask], arrays["valid"][mask], expected
        )
        if groups["X"] and groups["Y"]:
            res = ceat(groups, n_samples=settings.ceat_samples, seed=seed)
            if samples is not None:
                samples["word/mean+reduced"] = res.effect_sizes.astype(np.float32)
            rows.append(
                {
                    "method": "CEAT",
                    **identity,
                    "encoding": "word/mean+reduced",
                    "primary": False,
                    "unit": "sampled context",
                    **_ceat_stats(res),
                    **{f"n_{r.lower()}": len(groups[r]) for r in ROLES},
                    **{f"dropped_{r}": len(removed[r]) for r in ROLES},
                    "dropped": ";".join(f"{r}:{w}" for r in ROLES for w in removed[r]),
                    **provenance,
                }
            )
    return pd.DataFrame(rows)
