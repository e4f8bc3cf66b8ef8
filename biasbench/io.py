"""Atomic output: write to a temporary sibling, then rename, so no reader (and no resumed
run) ever sees a half-written file."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from biasbench.errors import InputError
from biasbench.rows import KEY_COLUMNS

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it into place only on success."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; give outputs the usual mode
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_tsv(path: str | os.PathLike, frame: pd.DataFrame) -> None:
    """Tab-separated, fixed float format: the same frame always gives the same bytes."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, sep="\t", index=False, float_format="%.10g", lineterminator="\n")


def write_npz(path: str | os.PathLike, arrays: dict[str, np.ndarray]) -> None:
    """Named arrays (e.g. per-sample effect sizes), written atomically."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


#: columns of names and hashes, text whatever they look like: a file whose only signature is
#: "008410446983" must not read it as the number 8410446983
TEXT_COLUMNS = (*KEY_COLUMNS, "signature")


#: columns that hold numbers wherever they appear (score rows, DivDist's strengths): a value
#: that is not one means a damaged file, refused where it is read
NUMBER_COLUMNS = frozenset(
    {"effect_size", "p_value", "se", "tau_squared", "n_partitions", "seed", "strength"}
    | {f"{kind}_{role}" for kind in ("n", "dropped") for role in (*"xyab", *"XYAB")}
)


def read_tsv(path: str | os.PathLike) -> pd.DataFrame:
    """A TSV the workflow wrote; key columns stay text, and a number column holding anything
    but numbers is an InputError naming the file, column and line."""
    frame = pd.read_csv(
        path,
        sep="\t",
        keep_default_na=False,
        na_values=[""],
        dtype=dict.fromkeys(TEXT_COLUMNS, str),
    )
    for column in NUMBER_COLUMNS & set(frame.columns):
        if frame[column].dtype.kind in "biuf":
            continue
        parsed = pd.to_numeric(frame[column], errors="coerce")
        bad = parsed.isna() & frame[column].notna()
        if bad.any():
            line = int(bad.to_numpy().argmax()) + 2  # the header is line 1
            raise InputError(
                f"{path}: line {line}, column {column} holds {frame[column][bad].iloc[0]!r}, "
                "not a number: the file is damaged; delete it and rerun the rule that wrote it"
            )
        frame[column] = parsed
    return frame


def log_to(path: str | os.PathLike) -> None:
    """Send this process' stderr (warnings, progress bars, tracebacks) to a log file; an
    uncaught error also prints one line to the console: the message of a bad input (what to
    fix, no traceback), or the error and where its traceback is."""
    import sys
    import traceback

    from biasbench.errors import InputError

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    console = sys.stderr
    sys.stderr = open(path, "w", buffering=1, encoding="utf-8")  # noqa: SIM115

    def report(kind, error, tb):
        traceback.print_exception(kind, error, tb, file=sys.stderr)
        if isinstance(error, InputError):
            print(f"biasbench: {error}", file=console)
        else:
            print(f"biasbench: {kind.__name__}: {error} (traceback in {path})", file=console)

    sys.excepthook = report


def sha256_of(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def signature_of(paths: Iterable[str | os.PathLike], *checksums: str) -> str:
    """A score row's provenance: the first 12 hex digits of the sha256 over the sha256 of
    each input file, in order, and any further checksums (e.g. of the embeddings a score
    was computed from). Any change to any input changes it."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(sha256_of(path).encode())
    for checksum in checksums:
        digest.update(checksum.encode())
    return digest.hexdigest()[:12]
