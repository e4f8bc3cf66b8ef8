"""The ``scoring`` section of the config as the methods' settings."""

from __future__ import annotations

from dataclasses import dataclass, fields

from biasbench.config import section_defaults
from biasbench.errors import InputError
from biasbench.methods.contract import Settings

#: the schema's defaults: the one place a default lives
_DEFAULTS = section_defaults("scoring")


@dataclass(frozen=True)
class ScoreSettings(Settings):
    """The ``scoring`` section of the config: the methods' settings (:class:`Settings`, the
    ``unit`` that of templates and words), the unit on corpora, the share of stimuli a score
    may drop, and the global seed."""

    seed: int = 0
    corpus_unit: str = _DEFAULTS["corpus_unit"]
    max_drop_share: float = _DEFAULTS["max_drop_share"]

    def for_source(self, source: str) -> Settings:
        """The methods' settings on a context source (corpora use ``corpus_unit``)."""
        unit = self.unit if source in ("templates", "words") else self.corpus_unit
        if unit not in ("context", "stimulus"):
            raise InputError(f"config: scoring.unit must be 'context' or 'stimulus', got {unit!r}")
        shared = {f.name: getattr(self, f.name) for f in fields(Settings)}
        return Settings(**shared | {"unit": unit})
