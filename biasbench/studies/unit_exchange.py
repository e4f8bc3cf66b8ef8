"""Did a measure move between two models? Its paired test and interval over the measure's
independent units, for any measure a comparison recomputes from both models' data.

A unit is what a measure's own inference treats as independent (a stimulus word with all its
contexts, a definitional pair, an attribute word with its templates or contexts). The caller
gives ``effects(flip, draw)``: both models' effect sizes after the units in ``flip`` took the
other model's data (None: none did) and over the units of ``draw`` (None: each unit once; a
bootstrap draw repeats some). Then:

- the **test** exchanges the two models' data of whole units: under "the two models are
  exchangeable on every unit" every arrangement is as likely as the observed one, so the
  share whose |difference| reaches the observed one is a valid two-sided p. Every arrangement
  is enumerated up to :data:`EXACT_UNITS` units (the observed one and its mirror, all units
  exchanged, always tie: floor 2 / 2^n); beyond, up to ``n_perm`` seeded ones (floor
  1 / (n_perm + 1)), stopping at :data:`STOP_HITS` that reach it (Besag & Clifford's
  sequential p).
- the **interval** resamples the units with replacement within their stratum (``kinds``),
  the same draw for both models, so what a unit shares between the two cancels.

An arrangement that leaves an effect undefined (all its values equal) counts as reaching the
observed difference, which keeps the test conservative; a bootstrap draw that does is left
out of the interval, and more than 5% of them leave no interval (NaN).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from biasbench.errors import EmptySetError, UndefinedEffectError
from biasbench.studies.validity import interval

N_PERM = 9_999
N_BOOT = 1_000
#: every arrangement enumerated up to this many units (2^12 = 4,096 of them)
EXACT_UNITS = 12
#: sampled arrangements stop at this many reaching the observed difference: Besag &
#: Clifford's (1991) sequential p, h / l after l draws, is valid and saves the draws a
#: clearly null measure does not need; a rare one still draws all ``n_perm``
STOP_HITS = 20
#: CEAT's and p-CEAT's samples per effect in a comparison: its effect combines them, and each
#: of a comparison's up to ~12,000 effects per measure pays for all of them (500: ~10 ms where
#: CEAT's 10,000 take ~0.2 s); the cards' scores are the models' own, with the configured
#: samples, so a comparison's two scores can differ from them by the samples' spread
CEAT_SAMPLES = 500

#: (flip: units taking the other model's data or None, draw: units or None) -> (base, against)
Effects = Callable[[np.ndarray | None, np.ndarray | None], tuple[float, float]]


def arrangements(n_units: int, rng: np.random.Generator, n_perm: int) -> tuple[np.ndarray, bool]:
    """(arrangements as rows of booleans: unit from the other model, exact)."""
    if n_units <= EXACT_UNITS:
        return np.array(list(itertools.product((False, True), repeat=n_units)), bool), True
    return rng.random((n_perm, n_units)) < 0.5, False


def exchange_measure(
    effects: Effects,
    kinds: Sequence[str],
    seed: int,
    n_perm: int = N_PERM,
    n_boot: int = N_BOOT,
) -> dict:
    """Each model's effect size, the difference (against minus base) with its 95% interval
    over the units (``kinds``: each unit's stratum), the exchange test's two-sided p with its
    floor, and the units' count."""
    first, second = effects(None, None)  # undefined here: the error goes to the caller
    observed = second - first

    def difference(flip, draw) -> float:
        """against minus base, NaN where an arrangement or draw leaves an effect undefined
        (all its values equal)."""
        try:
            base, against = effects(flip, draw)
        except (EmptySetError, UndefinedEffectError):  # any other error is the caller's
            return float("nan")
        return against - base

    rng = np.random.default_rng(seed)
    flips, exact = arrangements(len(kinds), rng, n_perm)
    floor = 2 / len(flips) if exact else 1 / (1 + len(flips))
    hits, drawn = 0, 0
    tolerance = 1e-10 * max(1.0, abs(observed))
    for flip in flips:
        # an undefined arrangement counts as reaching the observed difference (conservative)
        hits += not abs(difference(flip, None)) < abs(observed) - tolerance
        drawn += 1
        if not exact and hits == STOP_HITS:
            break
    # every arrangement, or Besag & Clifford's sequential p (h hits in l draws), or the
    # sampled p counting the observed arrangement
    stopped = exact or hits == STOP_HITS
    p_value = hits / drawn if stopped else (1 + hits) / (1 + drawn)
    kinds = np.array(kinds)
    strata = [np.flatnonzero(kinds == k) for k in dict.fromkeys(kinds)]
    draws = np.array(
        [
            difference(None, np.concatenate([rng.choice(s, len(s)) for s in strata]))
            for _ in range(n_boot)
        ]
    )
    draws = draws[np.isfinite(draws)]  # a draw of equal values has no effect size
    # an interval only where nearly every draw is defined: dropping many would condition it
    # on the draws that happen to spread
    spread = len(draws) >= max(2, 0.95 * n_boot)
    low, high = interval(draws, 0.95) if spread else (float("nan"), float("nan"))
    return {
        "base_score": first,
        "against_score": second,
        "difference": observed,
        "low": low,
        "high": high,
        "stderr": float(np.std(draws, ddof=1)) if spread else float("nan"),
        "p_value": float(min(1.0, p_value)),
        "p_floor": float(floor),
        "units": len(kinds),
    }
