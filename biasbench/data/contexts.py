"""Context tables: one row per (stimulus, sentence) with the stimulus' character span.

Columns: context_id, role, stimulus, sentence, start, end, provenance. Every later stage
finds the stimulus through ``sentence[start:end]``, so the span is checked on the way in.
"""

from __future__ import annotations

import pandas as pd

from biasbench.data.templates import TemplateSet, fill
from biasbench.data.wordsets import WordSet
from biasbench.errors import InputError

CONTEXT_COLUMNS = ["context_id", "role", "stimulus", "sentence", "start", "end", "provenance"]


def template_contexts(wordset: WordSet, templates: TemplateSet) -> pd.DataFrame:
    """Every stimulus of every role in every template of its kind (singles)."""
    kinds = {"targets": wordset.target_kind, "attributes": wordset.attribute_kind}
    rows = []
    for role in wordset.roles:
        group = wordset.template_group(role)
        kind = kinds[group]
        pairs = getattr(templates, group).get(kind)
        if pairs is None:
            raise InputError(f"template set {templates.id}: no {group} templates of kind {kind!r}")
        for stimulus in wordset.sets[role]:
            for t_index, (prefix, suffix) in enumerate(pairs):
                sentence, start, end = fill(prefix, suffix, stimulus)
                rows.append(
                    (
                        role,
                        stimulus,
                        sentence,
                        start,
                        end,
                        f"{templates.id}:{group}.{kind}[{t_index}]",
                    )
                )
    return _numbered(rows)


def word_contexts(wordset: WordSet) -> pd.DataFrame:
    """The bare stimuli, one row each: the 'context' of a static embedding."""
    rows = [(role, s, s, 0, len(s), "word") for role, words in wordset.sets.items() for s in words]
    return _numbered(rows)


def corpus_contexts(samples: pd.DataFrame, wordset, corpus: str, window: bool) -> pd.DataFrame:
    """A test's context table from the corpus samples: each sampled sentence of each of its
    stimuli, cut to the +-k-word window (``window``) or whole. Stimuli the corpus never
    mentions have no rows; scoring counts them as dropped."""
    by_stimulus = {s: g for s, g in samples.groupby("stimulus", sort=False)}
    rows = []
    for role in wordset.roles:
        for stimulus in wordset.sets[role]:
            group = by_stimulus.get(stimulus)
            if group is None:
                continue
            for r in group.itertuples(index=False):
                left, right = (r.window_start, r.window_end) if window else (0, len(r.sentence))
                rows.append(
                    (
                        role,
                        stimulus,
                        r.sentence[left:right],
                        r.start - left,
                        r.end - left,
                        f"{corpus}:{'window' if window else 'sentence'}",
                    )
                )
    return _numbered(rows)


def _numbered(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=CONTEXT_COLUMNS[1:])
    frame.insert(0, "context_id", range(len(frame)))
    return frame


def check_contexts(frame: pd.DataFrame, where: str, allow_empty: bool = False) -> None:
    """Fail unless every row's span holds its stimulus (case-insensitively) and every row has
    a role. A corpus may hold none of a test's stimuli (``allow_empty``): its scores are then
    "n/a" with the coverage as the reason; templates and word lists always give contexts."""
    missing = [c for c in CONTEXT_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{where}: context table lacks columns {missing}")
    if frame.empty and not allow_empty:
        raise InputError(f"{where}: context table is empty")
    for row in frame.itertuples(index=False):
        span = row.sentence[row.start : row.end] if 0 <= row.start < row.end else ""
        if span.casefold() != row.stimulus.casefold():
            raise InputError(
                f"{where}: context {row.context_id}: span [{row.start}:{row.end}] of "
                f"{row.sentence!r} is {span!r}, not the stimulus {row.stimulus!r}"
            )
    if frame["role"].isna().any() or (frame["role"] == "").any():
        raise InputError(f"{where}: a context without a role")
