"""One error type for bad user input, so the workflow can show it without a traceback."""


class InputError(ValueError):
    """A config, resource or data file is unusable; the message names the file and field."""


class UndefinedEffectError(ValueError):
    """Every value an effect size divides by is alike (no spread): the effect is undefined,
    as on a resample that drew one unit again and again."""


class EmptySetError(InputError):
    """A method was given a role with no usable item (an empty or all out-of-vocabulary set):
    there is no score to compute, and NaN would hide why. ``dropped`` names the stimuli the
    method had to leave out, per role, when it knows them."""

    def __init__(self, message: str, dropped: dict[str, list[str]] | None = None):
        super().__init__(message)
        self.dropped = dropped or {}


class TooLong(InputError):
    """A sequence longer than the model's context: its position embeddings have no row for
    the tokens past it (an IndexError deep in the model), or a rotary model reads positions it
    was never trained on. The data-set job names the data set and the setting that chooses."""
