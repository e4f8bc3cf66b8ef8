"""The ``scoring`` section of the config as the methods' settings."""

from __future__ import annotations

from dataclasses import dataclass

from biasbench.config import section_defaults
from biasbench.errors import InputError
from biasbench.methods.contract import Settings

#: the schema's defaults: the one place a default lives
_DEFAULTS = section_defaults("scoring")


@dataclass(frozen=True)
class ScoreSettings:
    """The ``scoring`` section of the config, plus the global seed."""

    exact_max: int = _DEFAULTS["exact_max"]
    n_samples: int = _DEFAULTS["n_samples"]
    seed: int = 0
    ddof: int = _DEFAULTS["ddof"]
    unit: str = _DEFAULTS["unit"]
    corpus_unit: str = _DEFAULTS["corpus_unit"]
    max_drop_share: float = _DEFAULTS["max_drop_share"]
    ceat_samples: int = _DEFAULTS["ceat_samples"]
    same_samples: int = _DEFAULTS["same_samples"]

    def for_source(self, source: str) -> Settings:
        """The methods' settings on a context source (corpora use ``corpus_unit``)."""
        unit = self.unit if source in ("templates", "words") else self.corpus_unit
        if unit not in ("context", "stimulus"):
            raise InputError(f"config: scoring.unit must be 'context' or 'stimulus', got {unit!r}")
        return Settings(
            exact_max=self.exact_max,
            n_samples=self.n_samples,
            ddof=self.ddof,
            unit=unit,
            ceat_samples=self.ceat_samples,
            same_samples=self.same_samples,
        )
