"""One error type for bad user input, so the workflow can show it without a traceback."""


class InputError(ValueError):
    """A config, resource or data file is unusable; the message names the file and field."""
