"""Probability-based CEAT on a corpus' pair contexts (Husse & Spitz 2022, Table 14): the
contexts' log-probabilities grouped by (target, attribute) pair, every descriptor and target
variant of a test, and the window-size sweep of Figure 4, as score rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from biasbench import rows
from biasbench.errors import EmptySetError
from biasbench.methods.contract import ContextLogProbs, Settings
from biasbench.methods.registry import get
from biasbench.stats import derived_seed


def pair_contexts(pairs: pd.DataFrame, wordsets: Mapping) -> pd.DataFrame:
    """The contexts of a corpus' pair table (``sample_pairs``) whose (target, attribute)
    pair is one of the word sets'."""
    from biasbench.data.sampling import pair_list

    wanted = {pair for ws in wordsets.values() for pair in pair_list(ws.sets)}
    keys = zip(pairs["target"], pairs["attribute"], strict=True)
    return pairs[[k in wanted for k in keys]].reset_index(drop=True)


def with_log_probs(contexts: pd.DataFrame, probe: Callable) -> pd.DataFrame:
    """The contexts with ``log_pt`` and ``log_pp`` (``probe``: a model's
    ``*_context_log_probs`` on texts, target spans and attribute spans)."""
    log_pt, log_pp = np.zeros(0), np.zeros(0)
    if len(contexts):
        log_pt, log_pp = probe(
            contexts["context"].tolist(),
            list(zip(contexts["target_start"], contexts["target_end"], strict=True)),
            list(zip(contexts["attribute_start"], contexts["attribute_end"], strict=True)),
        )
    return contexts.assign(log_pt=log_pt, log_pp=log_pp)


def identity(model: str, source: str, test: str) -> dict[str, np.ndarray]:
    """What an array file of LPBS records of itself (``paths.RECORDED``), as 0-d arrays."""
    return {"model": np.array(model), "source": np.array(source), "test": np.array(test)}


def log_prob_arrays(
    contexts: pd.DataFrame, encoding: str, *, model: str, corpus: str, test: str
) -> dict[str, np.ndarray]:
    """The contexts' pairs, gaps and log-probabilities as named arrays (what a paired
    comparison reads), how they were obtained (``encoding``) and whose they are."""
    arrays = {k: contexts[k].to_numpy(str) for k in ("target", "attribute")}
    arrays |= {k: contexts[k].to_numpy() for k in ("gap", "log_pt", "log_pp")}
    return arrays | {"encoding": np.array(encoding), **identity(model, corpus, test)}


def context_cells(contexts: pd.DataFrame) -> dict[tuple[str, str], np.ndarray]:
    """(target, attribute) -> its contexts' [log p_t, log p_p] rows."""
    return {
        (t, a): group[["log_pt", "log_pp"]].to_numpy()
        for (t, a), group in contexts.groupby(["target", "attribute"], sort=True)
    }


def probability_ceat_rows(
    contexts: pd.DataFrame,
    wordsets: Mapping,
    in_vocabulary: Callable[[str], bool],
    *,
    model: str,
    corpus: str,
    test: str,
    encoding: str,
    max_gap: int,
    windows: list[int],
    primary_descriptor: str,
    settings: Settings,
    seed: int,
    signature: str,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, np.ndarray]]:
    """(rows per descriptor and variant at ``max_gap``, rows of the window sweep on the
    primary descriptor's full set, per-sample effect sizes keyed
    ``method|descriptor|encoding|variant``)."""
    method = get("p-CEAT")
    out, sweep, samples = [], [], {}
    near = context_cells(contexts[contexts["gap"] <= max_gap])

    def row(descriptor, variant, sets, cells, job_seed, removed, gap):
        """(score or None, its row); ``removed``: targets the variant left out, ``gap``: the
        largest gap of ``cells``' contexts."""
        score, note, lost, sizes = None, "", {}, None
        try:
            score = method(ContextLogProbs(cells, sets), settings, job_seed)
        except EmptySetError as exc:  # too few contexts: an "n/a" row that says why
            note, lost = str(exc), exc.dropped
            sizes = {r: len(sets[r]) - len(lost.get(r, ())) for r in "XYAB"}
        dropped = {r: [*removed.get(r, ()), *lost.get(r, ())] for r in "XYAB"}
        return score, rows.make_row(
            method,
            rows.RowKey(model, corpus, test, descriptor, encoding, variant),
            score,
            primary=variant == method.variants[0],
            unit=method.unit,
            seed=job_seed,
            signature=signature,
            settings={**method.settings_of(settings), "gap": gap},
            dropped=dropped,
            sizes=sizes,
            note=note,
        )

    for descriptor, wordset in wordsets.items():
        sets = wordset.sets
        job_seed = derived_seed(seed, model, corpus, test, descriptor, "p-CEAT")
        for variant in method.variants:
            keep = (lambda w: True) if variant == "full" else in_vocabulary
            used = {r: tuple(w for w in sets[r] if r in "AB" or keep(w)) for r in "XYAB"}
            removed = {r: sorted(set(sets[r]) - set(used[r])) for r in "XY"}
            score, r = row(descriptor, variant, used, near, job_seed, removed, max_gap)
            out.append(r)
            if score is not None:
                name = f"{method.name}|{descriptor}|{encoding}|{variant}"
                samples[name] = score.samples.astype(np.float32)
        if descriptor != primary_descriptor:
            continue
        for window in windows:
            cells = context_cells(contexts[contexts["gap"] <= window])
            _, r = row(descriptor, "full", dict(sets), cells, job_seed, {}, window)
            sweep.append({"window": window, **r})
    return rows.frame(out), pd.DataFrame(sweep), samples
