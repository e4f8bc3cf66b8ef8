"""The names of the representations extraction writes and embedding methods read.

Word-level encodings pool the hidden states of the stimulus' own subword tokens; sentence-level
encodings summarise the whole context. A decoder's first position has read one token and says
nothing about the sentence, so decoders offer no ``sent/cls``; static vectors offer only a word.
"""

from __future__ import annotations

WORD_ENCODINGS = ("word/mean", "word/first", "word/last")
SENT_ENCODINGS = ("sent/cls", "sent/last", "sent/mean")


def available_encodings(kind: str, is_decoder: bool) -> tuple[str, ...]:
    """The encodings a model of this kind provides, in the order of the HDF5 contract."""
    if kind == "static":
        return ("word/mean",)
    if kind == "elmo":  # no [CLS]; the paper's sentence encoding is the mean over tokens
        return ("sent/mean", *WORD_ENCODINGS)
    sent = SENT_ENCODINGS[1:] if is_decoder else SENT_ENCODINGS
    return (*sent, *WORD_ENCODINGS)
