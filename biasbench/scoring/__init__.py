"""Runs the registered methods on what the models extracted and returns score rows
(``biasbench.rows``): every method of a family, every encoding and variant it declares.

:func:`score` is the one entry: the zoo's jobs, the ground-truth study and every null kind
hand it a model's extracted inputs as one of four records, and it runs the family that reads
that kind of input. A new kind of input is one record and one line of :data:`SCORERS_OF`;
no caller imports a family's scorer.

The records are light (the report modules import this package while the DAG is planned); the
family scorers are imported when a record is scored. Where a record names ``settings``, it is
the config's :class:`~biasbench.scoring.settings.ScoreSettings`: each family takes the
methods' settings of its source from it, and its seed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from biasbench.data.templates import DoubleTemplates
    from biasbench.data.wordsets import LpbsSpec, WordSet
    from biasbench.scoring.settings import ScoreSettings


@dataclass(frozen=True, kw_only=True)
class EncodedContexts:
    """One (source, test, descriptor)'s contexts and their vectors (an embeddings file's
    arrays): every method on context vectors. ``expected``: the word set's sets (a word in two
    roles gets a caveat); ``pairs``: its definitional pairs, if it declares them;
    ``single_token``: a contextual model's single-token stimuli (the ``reduced`` variants);
    ``stimulus_notes``: what is suspect in a stimulus's vector; ``primary_only``: each method's
    primary encoding and variant alone; ``undefined_as_na``: a method undefined on the vectors
    gives an "n/a" row instead of stopping; ``samples`` receives the primary encodings'
    per-sample effect sizes."""

    contexts: pd.DataFrame
    arrays: Mapping[str, np.ndarray]
    kind: str
    is_decoder: bool
    source: str
    test: str
    descriptor: str
    expected: Mapping[str, Sequence[str]] | None = None
    pairs: Sequence[tuple[str, str]] | None = None
    single_token: Collection[str] | None = None
    stimulus_notes: Mapping[str, str] | None = None
    primary_only: bool = False
    undefined_as_na: bool = False
    samples: dict[str, np.ndarray] | None = None


@dataclass(frozen=True, kw_only=True)
class TemplateProbabilities:
    """A language model's probabilities in one test's double-slot templates: LPBS on every
    descriptor of ``wordsets`` the ``spec`` gives templates to; ``encoding``: how they were
    obtained (``mlm`` or ``causal``); ``arrays`` receives the templates' log-probabilities."""

    log_probs: Callable
    in_vocabulary: Callable[[str], bool]
    wordsets: Mapping[str, WordSet]
    spec: LpbsSpec
    templates: DoubleTemplates
    encoding: str
    #: receives each (descriptor, form)'s log-probabilities (``lpbs_rows``' ``arrays``)
    arrays: dict = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class PairContextProbabilities:
    """A language model's probabilities in a corpus' contexts of (target, attribute) pairs
    (``contexts`` with their log-probabilities): probability-based CEAT within ``max_gap``
    words, and its sweep over ``windows`` on ``primary_descriptor``; ``sweep`` receives the
    sweep's rows, ``samples`` the per-sample effect sizes."""

    contexts: pd.DataFrame
    wordsets: Mapping[str, WordSet]
    in_vocabulary: Callable[[str], bool]
    corpus: str
    test: str
    encoding: str
    max_gap: int
    windows: list[int] = field(default_factory=list)
    primary_descriptor: str
    sweep: list = field(default_factory=list)
    samples: dict = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class DatasetItems:
    """A data set's items and the log-probability engine of the model that reads them: every
    measure of the data set. ``se``: with each score's bootstrap standard error;
    ``outcomes``, where given, receives the items' outcomes (the data sets that write them)."""

    dataset: str
    engine: Any
    items: Any
    se: bool = True
    outcomes: list | None = None


def _keywords(inputs, *leave_out: str) -> dict[str, Any]:
    """A record's fields as its family scorer's keyword arguments (the records name them as
    the scorers do), but those in ``leave_out``."""
    return {f.name: getattr(inputs, f.name) for f in fields(inputs) if f.name not in leave_out}


def _encoded_contexts(inputs: EncodedContexts, *, model, settings, signature):
    from biasbench.scoring.embeddings import score_file

    return score_file(
        inputs.contexts,
        inputs.arrays,
        model=model,
        settings=settings,
        signature=signature,
        **_keywords(inputs, "contexts", "arrays"),
    )


def _template_probabilities(inputs: TemplateProbabilities, *, model, settings, signature):
    from biasbench.scoring.templates import lpbs_rows

    return lpbs_rows(
        inputs.log_probs,
        inputs.in_vocabulary,
        inputs.wordsets,
        inputs.spec,
        inputs.templates,
        model=model,
        encoding=inputs.encoding,
        settings=settings.for_source("templates"),
        seed=settings.seed,
        signature=signature,
        arrays=inputs.arrays,
    )


def _pair_context_probabilities(inputs: PairContextProbabilities, *, model, settings, signature):
    from biasbench.scoring.corpus import probability_ceat_rows

    rows, sweep, samples = probability_ceat_rows(
        inputs.contexts,
        inputs.wordsets,
        inputs.in_vocabulary,
        model=model,
        settings=settings.for_source(inputs.corpus),
        seed=settings.seed,
        signature=signature,
        **_keywords(inputs, "contexts", "wordsets", "in_vocabulary", "sweep", "samples"),
    )
    inputs.sweep.append(sweep)
    inputs.samples.update(samples)
    return rows


def _dataset_items(inputs: DatasetItems, *, model, settings, signature):
    from biasbench.scoring.datasets import score_items

    return score_items(**_keywords(inputs), model=model, settings=settings, signature=signature)


#: each kind of extracted input -> the family scorer that reads it
SCORERS_OF: dict[type, Callable[..., pd.DataFrame]] = {
    EncodedContexts: _encoded_contexts,
    TemplateProbabilities: _template_probabilities,
    PairContextProbabilities: _pair_context_probabilities,
    DatasetItems: _dataset_items,
}


def score(inputs, *, model: str, settings: ScoreSettings, signature: str) -> pd.DataFrame:
    """Score rows of every method that reads ``inputs`` (one of the records above) on the model
    named ``model``: the one way the workflow scores anything."""
    scorer = SCORERS_OF.get(type(inputs))
    if scorer is None:
        kinds = ", ".join(k.__name__ for k in SCORERS_OF)
        raise TypeError(f"no scorer reads {type(inputs).__name__} (it reads {kinds})")
    return scorer(inputs, model=model, settings=settings, signature=signature)


__all__ = [
    "SCORERS_OF",
    "DatasetItems",
    "EncodedContexts",
    "PairContextProbabilities",
    "TemplateProbabilities",
    "score",
]
