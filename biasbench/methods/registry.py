"""Every bias measure the product runs: one line per method. The workflow, the tables and the
figures find methods here, by name or by family; a method is declared in its own module."""

from __future__ import annotations

from biasbench.methods.contract import Method
from biasbench.methods.distribution import divdist
from biasbench.methods.embedding import ceat, direct_bias, mac, ripa, rnd, same, weat
from biasbench.methods.extrinsic import winobias
from biasbench.methods.probability import (
    becpro,
    crows_pairs,
    disco,
    lpbs,
    lpbs_pronoun,
    pceat,
    stereoset,
)

REGISTRY: tuple[Method, ...] = (
    weat.WEAT,
    weat.S_SEAT,
    weat.W_SEAT,
    ceat.CEAT,
    mac.MAC,
    direct_bias.DIRECT_BIAS,
    same.SAME,
    same.SAME_SKEW,
    same.SAME_STEREOTYPE,
    ripa.RIPA,
    rnd.RND,
    lpbs.LPBS,
    lpbs_pronoun.LPBS_PRONOUN,
    pceat.P_CEAT,
    crows_pairs.CROWS_PAIRS,
    crows_pairs.AUL,
    stereoset.STEREOSET_SS,
    stereoset.STEREOSET_LMS,
    stereoset.STEREOSET_ICAT,
    becpro.BEC_PRO,
    disco.DISCO,
    winobias.WINOBIAS_GAP,
    winobias.WINOBIAS_SKEW,
    winobias.WINOBIAS_STEREOTYPE,
    divdist.DIVDIST,
)


def _index(methods: tuple[Method, ...]) -> dict[str, Method]:
    by_name = {m.name: m for m in methods}
    if len(by_name) != len(methods):
        raise ValueError("two methods share a name")
    return by_name


_INDEX = (REGISTRY, _index(REGISTRY))


def get(name: str) -> Method:
    """The registered method of that name (of :data:`REGISTRY` as it is now: a registry
    extended at run time, as a test's, finds its own methods too)."""
    global _INDEX
    if _INDEX[0] is not REGISTRY:
        _INDEX = (REGISTRY, _index(REGISTRY))
    by_name = _INDEX[1]
    if name not in by_name:
        raise KeyError(f"unknown method {name!r}; registered: {sorted(by_name)}")
    return by_name[name]


def consuming(kind: type) -> list[Method]:
    """The methods that read one input kind (e.g. every method on context vectors)."""
    return [m for m in REGISTRY if m.consumes is kind]
