"""The log-probability engine: what a masked or a causal language model says about
sentences, for every probability-based measure (LPBS and probability-based CEAT, CrowS-Pairs,
AUL, StereoSet, BEC-Pro, DisCo, LPBS he/she, WinoBias). ``masked`` and ``causal`` hold each
kind's computations, ``common`` what they share; :class:`Engine` is the one interface the
data-set scorers use."""

from biasbench.models.logprobs.engine import Engine

__all__ = ["Engine"]
