"""One pass over a corpus that finds every stimulus of every test and keeps, per stimulus,
a seeded uniform sample of up to N of its occurrences (reservoir sampling).

Matching is on word tokens (``\\w+`` joined by hyphens or apostrophes), so stimuli match at
word boundaries only, multi-word stimuli match as token sequences, and all stimuli are found
with one dictionary lookup per token instead of one scan per stimulus. Each stimulus has its
own random stream (derived from the seed and the stimulus), so adding a test does not change
the samples of the others.
"""

from __future__ import annotations

import bisect
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from biasbench.errors import InputError
from biasbench.stats import derived_seed

TOKEN = re.compile(r"\w+(?:[-']\w+)*")
SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*\s+|\s*\n\s*")


#: which occurrences of a stimulus count: ``any`` case (uncased or lowercasing models), or
#: ``exact``: as written, or with its first letter capitalised at a sentence start (cased
#: models, for which "Bill" and "bill" are different words)
CASE_POLICIES = ("any", "exact")


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in TOKEN.findall(text)]


def case_matches(stimulus: str, surface: str) -> bool:
    """Does an occurrence's ``surface`` form pass the ``exact`` case policy?"""
    want, got = TOKEN.findall(stimulus), TOKEN.findall(surface)
    return got == want or got == [want[0][:1].upper() + want[0][1:], *want[1:]]


class StimulusMatcher:
    """All occurrences of many stimuli in a text at word boundaries, under a case policy."""

    def __init__(self, stimuli: Iterable[str], case: str = "any"):
        if case not in CASE_POLICIES:
            raise InputError(f"case policy {case!r}: must be one of {CASE_POLICIES}")
        self.exact = case == "exact"
        self.by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for stimulus in dict.fromkeys(stimuli):
            toks = tuple(_tokens(stimulus))
            if not toks:
                raise InputError(f"stimulus {stimulus!r} has no word characters to match")
            self.by_first.setdefault(toks[0], []).append((toks, stimulus))
        for candidates in self.by_first.values():
            candidates.sort(key=lambda c: -len(c[0]))  # longest match first

    def find(self, text: str) -> list[tuple[str, int, int]]:
        """(stimulus, start, end) of every match; overlapping matches are all reported."""
        by_first = self.by_first
        spans = None
        words = None
        hits = []
        for i, m in enumerate(TOKEN.finditer(text)):
            candidates = by_first.get(m.group().lower())
            if candidates is None:
                continue
            for toks, stimulus in candidates:
                if len(toks) == 1:
                    hits.append((stimulus, m.start(), m.end()))
                    continue
                if spans is None:  # multi-word stimuli: tokenise this document once
                    found = list(TOKEN.finditer(text))
                    spans = [(t.start(), t.end()) for t in found]
                    words = [t.group().lower() for t in found]
                last = i + len(toks) - 1
                if tuple(words[i : last + 1]) == toks and all(
                    text[spans[j][1] : spans[j + 1][0]].isspace() for j in range(i, last)
                ):  # the words in sequence, nothing but spaces between them
                    hits.append((stimulus, m.start(), spans[last][1]))
        if self.exact:
            return [h for h in hits if case_matches(h[0], text[h[1] : h[2]])]
        return hits


def derived_rng(seed: int, key: str) -> random.Random:
    return random.Random(derived_seed(seed, key))


@dataclass
class Reservoir:
    """Algorithm R: after k offers, each offer is held with probability size / k."""

    size: int
    rng: random.Random
    seen: int = 0
    items: list = field(default_factory=list)

    def offer(self, item) -> None:
        self.seen += 1
        if len(self.items) < self.size:
            self.items.append(item)
        else:
            j = self.rng.randrange(self.seen)
            if j < self.size:
                self.items[j] = item


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentences of ``text`` as character ranges (split after . ! ? and at line breaks)."""
    spans, left = [], 0
    for m in SENTENCE_END.finditer(text):
        right = m.start() + len(m.group().rstrip())
        if right > left:
            spans.append((left, right))
        left = m.end()
    if left < len(text):
        spans.append((left, len(text.rstrip())))
    return spans


def word_window(sentence: str, start: int, end: int, words: int) -> tuple[int, int]:
    """Character range from ``words`` word tokens before the span to ``words`` after it."""
    before = [m.start() for m in TOKEN.finditer(sentence, 0, start)]
    after = [m.end() for m in TOKEN.finditer(sentence, end)]
    left = before[-words] if len(before) >= words else (before[0] if before else start)
    right = after[words - 1] if len(after) >= words else (after[-1] if after else end)
    return min(left, start), max(right, end)


SAMPLE_COLUMNS = [
    "stimulus",
    "surface",
    "sentence",
    "start",
    "end",
    "window_start",
    "window_end",
    "seen",
]


def sample_contexts(
    documents: Iterable[str],
    stimuli: Iterable[str],
    *,
    per_stimulus: int,
    seed: int,
    window_words: int = 4,
    max_sentence_chars: int = 1000,
    case: str = "any",
) -> pd.DataFrame:
    """Up to ``per_stimulus`` sentences per stimulus, each with the stimulus' span and a
    ``window_words``-word window around it (CEAT's +-4 words). Sentences longer than
    ``max_sentence_chars`` are skipped (run-on text without punctuation); only occurrences
    that pass the ``case`` policy count."""
    stimuli = list(dict.fromkeys(stimuli))
    matcher = StimulusMatcher(stimuli, case)
    reservoirs = {s: Reservoir(per_stimulus, derived_rng(seed, s)) for s in stimuli}
    for doc in documents:
        hits = matcher.find(doc)
        if not hits:
            continue
        spans = sentence_spans(doc)
        starts = [a for a, _ in spans]
        for stimulus, start, end in hits:
            left, right = spans[max(0, bisect.bisect_right(starts, start) - 1)]
            if end > right or right - left > max_sentence_chars:
                continue  # crosses a sentence boundary, or a run-on block of text
            reservoirs[stimulus].offer((doc[left:right], start - left, end - left))
    rows = []
    for stimulus in stimuli:
        res = reservoirs[stimulus]
        for sentence, start, end in res.items:
            w_start, w_end = word_window(sentence, start, end, window_words)
            rows.append(
                (stimulus, sentence[start:end], sentence, start, end, w_start, w_end, res.seen)
            )
    return pd.DataFrame(rows, columns=SAMPLE_COLUMNS)


def coverage(samples: pd.DataFrame, stimuli: Iterable[str]) -> pd.DataFrame:
    """Occurrences seen and contexts kept per stimulus (0 for stimuli never found)."""
    seen = samples.groupby("stimulus")["seen"].first()
    kept = samples.groupby("stimulus").size()
    stimuli = list(dict.fromkeys(stimuli))
    return pd.DataFrame(
        {
            "stimulus": stimuli,
            "seen": [int(seen.get(s, 0)) for s in stimuli],
            "kept": [int(kept.get(s, 0)) for s in stimuli],
        }
    )


PAIR_COLUMNS = [
    "target",
    "attribute",
    "context",
    "target_start",
    "target_end",
    "attribute_start",
    "attribute_end",
    "gap",
    "seen",
]


def _gap_words(sentence: str, left_end: int, right_start: int) -> int:
    return sum(1 for _ in TOKEN.finditer(sentence, left_end, right_start))


def sample_pairs(
    documents: Iterable[str],
    pairs: Iterable[tuple[str, str]],
    *,
    per_pair: int,
    seed: int,
    max_gap: int,
    window_words: int = 4,
    max_sentence_chars: int = 1000,
    case: str = "any",
) -> pd.DataFrame:
    """Up to ``per_pair`` contexts per (target, attribute) pair (see module doc); both
    stimuli must pass the ``case`` policy (:data:`biasbench.sampling.CASE_POLICIES`)."""
    pairs = list(dict.fromkeys(pairs))
    targets = dict.fromkeys(t for t, _ in pairs)
    attributes = dict.fromkeys(a for _, a in pairs)
    wanted = set(pairs)
    matcher = StimulusMatcher([*targets, *attributes], case)
    reservoirs: dict[tuple[str, str], Reservoir] = {}
    for doc in documents:
        hits = matcher.find(doc)
        if len(hits) < 2:
            continue
        spans = sentence_spans(doc)
        starts = [a for a, _ in spans]
        by_sentence: dict[int, list[tuple[str, int, int]]] = {}
        for stimulus, start, end in hits:
            k = max(0, bisect.bisect_right(starts, start) - 1)
            left, right = spans[k]
            if end <= right and right - left <= max_sentence_chars:
                by_sentence.setdefault(k, []).append((stimulus, start - left, end - left))
        for k, found in by_sentence.items():
            sentence = doc[spans[k][0] : spans[k][1]]
            for t, ts, te in found:
                if t not in targets:
                    continue
                for a, as_, ae in found:
                    if (t, a) not in wanted or (as_ < te and ae > ts):
                        continue  # not a pair of the tests, or overlapping spans
                    (first_end, second_start) = (te, as_) if ts < as_ else (ae, ts)
                    gap = _gap_words(sentence, first_end, second_start)
                    if gap > max_gap:
                        continue
                    res = reservoirs.get((t, a))
                    if res is None:
                        res = reservoirs[(t, a)] = Reservoir(
                            per_pair, derived_rng(seed, f"{t}|{a}")
                        )
                    res.offer((sentence, ts, te, as_, ae, gap))
    rows = []
    for (t, a), res in sorted(reservoirs.items()):
        for sentence, ts, te, as_, ae, gap in res.items:
            left, right = word_window(sentence, min(ts, as_), max(te, ae), window_words)
            rows.append(
                (
                    t,
                    a,
                    sentence[left:right],
                    ts - left,
                    te - left,
                    as_ - left,
                    ae - left,
                    gap,
                    res.seen,
                )
            )
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def pair_list(sets: Mapping[str, tuple[str, ...]]) -> list[tuple[str, str]]:
    """Every (target, attribute) pair of a word set."""
    return [(t, a) for t in sets["X"] + sets["Y"] for a in sets["A"] + sets["B"]]
