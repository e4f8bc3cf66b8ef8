"""The data-set stage (the ``datasets`` part of a model's ``logprobs`` job, one call per data
set): one data set on one model, its items read, sampled (a ``limit``) and fitted to the model's
context, then scored through the one entry (:func:`biasbench.scoring.score` on a
``DatasetItems`` record, whose scorer is :func:`biasbench.scoring.datasets.score_items`)."""

from __future__ import annotations

import dataclasses

import pandas as pd

from biasbench.data.datasets import DATASETS, dataset_items
from biasbench.data.pairsets import StereoSetItem, WinoBiasItem
from biasbench.errors import InputError, TooLong
from biasbench.scoring import DatasetItems, score
from biasbench.scoring.datasets import LM_EVAL, WITH_OUTCOMES, no_outcomes, resolution_pieces


def score_dataset(
    engine, dataset: str, files, limit, *, model, settings, signature, too_long="refuse"
):
    """(score rows, coverage, per-item outcomes) of one data set on one model (``settings``:
    the config's :class:`~biasbench.scoring.settings.ScoreSettings`): the zoo's data-set job.
    It reads, samples and fits the items, and scores them through the one entry
    (:func:`biasbench.scoring.score` on a ``DatasetItems`` record); the coverage holds,
    under ``lm_eval``, what lm-evaluation-harness reports beside the rows' scores (CrowS-Pairs
    on a causal LM: likelihood_diff and its stderr, :func:`crows_pairs.likelihood_diff`); the
    outcomes are empty where the data set's scorer writes none (:data:`WITH_OUTCOMES`).
    An item with a text longer than the model's context is refused, naming it, or with
    ``too_long="skip"`` (``datasets.too_long``) left out, counted in the coverage
    (``too_long``) and noted in every row."""
    items, coverage = dataset_items(dataset, files, limit, settings.seed)
    items, left_out = fitting_items(engine, items, dataset, model, too_long)
    if left_out:
        coverage |= {"scored": len(items), "too_long": left_out}
    outcomes: list[pd.DataFrame] = []
    found = outcomes if dataset in WITH_OUTCOMES else None
    try:
        frame = score(
            DatasetItems(dataset=dataset, engine=engine, items=items, outcomes=found),
            model=model,
            settings=settings,
            signature=signature,
        )
    except TooLong as exc:  # a text the item check could not see (a prefix and its tail)
        raise InputError(_too_long_message(dataset, model, str(exc), too_long)) from exc
    if left_out:
        note = (
            f"{left_out} of {left_out + len(items)} items left out: a text longer than the "
            f"model's context of {engine.context} tokens (datasets.too_long: skip)"
        )
        frame["note"] = [f"{n}; {note}" if n else note for n in frame["note"]]
    if LM_EVAL in frame.attrs:
        coverage[LM_EVAL] = frame.attrs.pop(LM_EVAL)
    return frame, coverage, (outcomes[0] if outcomes else no_outcomes())


def _too_long_message(dataset: str, model: str, what: str, too_long: str = "refuse") -> str:
    """Under ``skip`` the text is one no item holds as it is (a DisCo template filled, an
    LPBS salary sentence): suggesting skip again would not help."""
    head = f"{DATASETS[dataset].name} on {model}: {what}; the model cannot read it."
    if too_long == "skip":
        return (
            f"{head} It is built from the data set's items (a template filled), so "
            "datasets.too_long: skip, which leaves out items whose own texts are too long, "
            "cannot leave it out: run the data set on a model with a longer context, or "
            "shorten its templates"
        )
    return (
        f"{head} Set datasets.too_long: skip to leave such items out (counted in the coverage "
        "and noted in the rows), or run the data set on a model with a longer context"
    )


def item_texts(item) -> list[str]:
    """The texts of a data-set item a model reads whole: its sentences, and for a StereoSet
    item its context followed by each candidate (the intersentence task reads them as one);
    an upper bound on what one forward pass holds."""
    if isinstance(item, str):
        return [item]
    if isinstance(item, StereoSetItem):
        return [f"{item.context} {c}" for c in item.candidates.values()]
    if isinstance(item, tuple) and item and isinstance(item[0], WinoBiasItem):
        return ["".join(p) for p in resolution_pieces(item[0])]  # (item, pro, type)
    if dataclasses.is_dataclass(item):
        return [v for f in dataclasses.fields(item) if isinstance(v := getattr(item, f.name), str)]
    return []


def fitting_items(engine, items, dataset: str, model: str, too_long: str):
    """(the items whose texts fit the model's context, how many were left out); with
    ``too_long="refuse"`` the first item that does not fit is an error naming it."""
    limit = getattr(engine, "context", None)
    if limit is None or not isinstance(items, list):
        return items, 0
    keep = []
    for item in items:
        texts = item_texts(item)
        longest = engine.longest(texts)
        if longest <= limit:
            keep.append(item)
        elif too_long == "refuse":
            text = max(texts, key=lambda t: engine.longest([t]))
            raise InputError(
                _too_long_message(
                    dataset,
                    model,
                    f"an item of {longest} tokens, longer than the model's context of {limit}: "
                    f"{text[:80]!r}",
                )
            )
    return keep, len(items) - len(keep)
