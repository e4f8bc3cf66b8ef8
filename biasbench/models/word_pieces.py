"""How many word pieces a transformer's tokenizer cuts each stimulus into, where the model
reads it: in its context.

Random weights do not make words of different piece counts exchangeable: a word of two pieces
is pooled from two token vectors, a word of one from one, and even a random network tells the
two apart. Where a test's X and Y words differ in their mean number of pieces, a word-level
test on a null model (``p_word``) rejects for that reason alone; the synthesis splits the
null cells by this gap (``synthesis_null``, ``synthesis_tokenization``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from biasbench.paths import TOKENIZATION

#: the columns of a tokenization table (one row per stimulus of a test's descriptor)
COLUMNS = ["test", "descriptor", "role", "word", "pieces"]


def tokenization_file(base: str) -> str:
    """The piece counts of the stimuli a base model's null copies encode."""
    return TOKENIZATION.format(model=base)


def word_pieces(tokenizer: Any, sentence: str, start: int, end: int) -> int:
    """The number of word pieces of the stimulus at characters [start, end) of ``sentence``,
    counted as the extraction pools them (``biasbench.models.extract.span_tokens``: the
    non-special tokens whose character range overlaps the span). Counted in the context, not
    on the bare word: a byte-level BPE tokenizer (GPT-2, SmolLM2) cuts " word" after a space
    into other pieces than "word" at the start of a text, and the model reads the former."""
    from biasbench.models.extract import span_tokens  # h5py: only where a job counts

    enc = tokenizer(
        sentence,
        add_special_tokens=True,
        return_offsets_mapping=True,
        return_special_tokens_mask=True,
    )
    return len(span_tokens(enc["offset_mapping"], enc["special_tokens_mask"], start, end))


def bare_word_pieces(tokenizer: Any, words: list[str]) -> dict[str, int]:
    """Each word's number of word pieces read alone (as a generated design's words are
    scored: the word is the whole text), counted as :func:`word_pieces` counts them, for the
    words none of whose pieces is the unknown token (the others are left out: the model
    cannot read them); one batched call of the tokenizer."""
    from biasbench.models.extract import span_tokens

    if not words:
        return {}
    enc = tokenizer(
        list(words),
        add_special_tokens=True,
        return_offsets_mapping=True,
        return_special_tokens_mask=True,
    )
    unknown = tokenizer.unk_token_id
    out = {}
    for w, ids, offsets, special in zip(
        words, enc["input_ids"], enc["offset_mapping"], enc["special_tokens_mask"], strict=True
    ):
        pieces = span_tokens(offsets, special, 0, len(w))
        if pieces and all(ids[i] != unknown for i in pieces):
            out[w] = len(pieces)
    return out


def stimulus_pieces(tokenizer: Any, contexts: pd.DataFrame) -> pd.DataFrame:
    """Role, word and pieces of each stimulus of a contexts file: the count most of its
    contexts give it (:func:`word_pieces`; a tie: the smaller), in the order of first use."""
    counts = [
        word_pieces(tokenizer, r.sentence, int(r.start), int(r.end))
        for r in contexts.itertuples(index=False)
    ]
    frame = contexts[["role", "stimulus"]].assign(pieces=counts)
    rows = []
    for (role, word), group in frame.groupby(["role", "stimulus"], sort=False):
        modes = group["pieces"].value_counts()
        rows.append((role, word, int(modes[modes == modes.max()].index.min())))
    return pd.DataFrame(rows, columns=["role", "word", "pieces"])
