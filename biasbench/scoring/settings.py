"""The ``scoring`` section of the config as the methods' settings."""

from __future__ import annotations

from dataclasses import dataclass

from biasbench.errors import InputError
from biasbench.methods.contract import Settings


@dataclass(frozen=True)
class ScoreSettings:
    """The ``scoring`` section of the config, plus the global seed."""

    exact_max: int = 200_000
    n_samples: int = 100_000
    seed: int = 0
    ddof: int = 1
    unit: str = "context"
    corpus_unit: str = "stimulus"
    max_drop_share: float = 0.2
    ceat_samples: int = 10_000

    def for_source(self, source: str) -> Settings:
        """The methods' settings on a context source (corpora use ``corpus_unit``)."""
        unit = self.unit if source in ("templates", "words") else self.corpus_unit
        if unit not in ("context", "stimulus"):
            raise InputError(f"config: scoring.unit must be 'context' or 'stimulus', got {unit!r}")
        return Settings(self.exact_max, self.n_samples, self.ddof, unit, self.ceat_samples)
