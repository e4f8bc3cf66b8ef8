"""The workflow's files: written atomically (a temporary sibling, then a rename, so no reader
and no resumed run sees a half-written file), and sealed with a checksum of their contents
that every reader verifies, so a truncated or edited intermediate is an error naming it,
never a silently different score.

One mechanism for every format: text files (TSV, JSON) end with a ``# sha256 <hex>`` line
over the bytes before it; table CSVs, which people open in spreadsheets, keep theirs in a
``<file>.sha256`` beside them; array files (NPZ, safetensors, HDF5 datasets) store the sha256
of each array's dtype, shape and bytes beside it."""

from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import io
import json
import os
import re
import resource
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from biasbench import paths
from biasbench.errors import InputError
from biasbench.rows import COLUMNS, KEY_COLUMNS

if TYPE_CHECKING:  # pandas is imported where a table is read: ~0.45 s of a small job's start
    import pandas as pd

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
    """A file for people (a table, a page): written atomically, not sealed."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _fix(path: str | os.PathLike) -> str:
    return f"delete {path} and rerun (the workflow rebuilds it)"


SEAL = b"# sha256 "


def write_sealed(path: str | os.PathLike, text: str) -> None:
    """A text intermediate, ending with the sha256 of the text before that last line."""
    body = text.encode("utf-8")
    if body and not body.endswith(b"\n"):
        body += b"\n"
    with atomic_path(path) as tmp:
        tmp.write_bytes(body + SEAL + hashlib.sha256(body).hexdigest().encode() + b"\n")


def refuse_folder(path: str | os.PathLike) -> None:
    """A folder where the workflow writes a file is an error naming it (a reader would say
    only "Is a directory", and Snakemake takes it for a finished output)."""
    if os.path.isdir(path):
        raise InputError(f"{path}: a folder, where the workflow writes a file; {_fix(path)}")


def read_file_bytes(path: str | os.PathLike) -> bytes:
    """A file's bytes, or an error naming a folder found in its place."""
    refuse_folder(path)
    return Path(path).read_bytes()


def check_results_tree(root: str | os.PathLike = "results") -> None:
    """Before Snakemake plans: a folder where the workflow writes a file (which Snakemake takes
    for a finished output, "Nothing to be done"), or a link there to another of the workflow's
    files (read as this one), is an error naming it; a link to the same file of another
    ``results/`` (a shared one) is left. A walk of names only: milliseconds."""
    pending = [Path(root)] if os.path.isdir(root) else []
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                folder = entry.is_dir(follow_symlinks=False)
                if folder:
                    pending.append(Path(entry.path))
                own = paths.identify(entry.path) if folder or entry.is_symlink() else None
                if own is None:
                    continue
                refuse_folder(entry.path)  # a folder, or a link to one
                target = os.path.realpath(entry.path)
                if entry.is_symlink() and paths.identify(target) not in (None, own):
                    raise InputError(
                        f"{entry.path}: a link to {target}, another of the workflow's files, "
                        f"where the workflow writes its own; {_fix(entry.path)}"
                    )


def check_recorded(path: str | os.PathLike, recorded: Any) -> None:
    """A file records what its path says it is (``paths.RECORDED``: its test, descriptor,
    model, source), or an error naming both: a copy of another file, or a link to one,
    holds a valid seal over another test's words or scores. ``recorded``: the file's keys
    (JSON), attributes (HDF5) or each column's set of values (TSV); a path outside the
    workflow's templates, or a kind that records nothing, is not checked."""
    found = paths.identify(path)
    if found is None or found[0] not in paths.RECORDED or not isinstance(recorded, dict):
        return
    template, said = found
    record, expected, differ = {}, {}, False
    for field, key in paths.RECORDED[template].items():
        value = recorded.get(key)
        if value is None:
            continue
        values = sorted(str(v) for v in (value if isinstance(value, set) else {value}))
        record[key], expected[key] = "/".join(values), said[field]
        differ |= values != [said[field]]
    if differ:
        link = f" (a link to {os.path.realpath(path)})" if os.path.islink(path) else ""
        raise InputError(
            f"{path}{link}: the file records {_listed(record)}, its path says "
            f"{_listed(expected)}: a copy of or a link to another file; {_fix(path)}"
        )


def _listed(fields: dict[str, str]) -> str:
    return ", ".join(f"{k} {v!r}" for k, v in fields.items())


def _recorded_in_text(path: str | os.PathLike, text: str) -> Any:
    """What a sealed text file records of its identity (only for the kinds that record
    one): a JSON file's keys, a TSV's values of each column."""
    found = paths.identify(path)
    if found is None or found[0] not in paths.RECORDED:
        return None
    if str(path).endswith(".json"):
        with contextlib.suppress(ValueError):
            return json.loads(text)
        return None
    rows = csv.reader(io.StringIO(text), delimiter="\t")
    header = next(rows, [])
    keys = {i: k for i, k in enumerate(header) if k in paths.RECORDED[found[0]].values()}
    values: dict[str, set[str]] = {k: set() for k in keys.values()}
    for row in rows:
        for i, key in keys.items():
            if i < len(row):
                values[key].add(row[i])
    return {k: v for k, v in values.items() if v}


def read_sealed(path: str | os.PathLike) -> str:
    """What :func:`write_sealed` wrote, after checking it against its seal and against what
    its path says it is (:func:`check_recorded`)."""
    data = read_file_bytes(path)
    start = data.rfind(b"\n", 0, len(data) - 1) + 1  # the last line's first byte
    body, last = data[:start], data[start:]
    if not (last.startswith(SEAL) and last.endswith(b"\n")):
        raise InputError(
            f"{path}: no checksum line at its end: it was cut short, or not written by the "
            f"workflow; {_fix(path)}"
        )
    _check_digest(path, body, last[len(SEAL) : -1].decode("ascii", "replace"))
    text = body.decode("utf-8")
    check_recorded(path, _recorded_in_text(path, text))
    return text


def _check_digest(path: str | os.PathLike, body: bytes, expected: str, where: str = "") -> None:
    """``body``'s sha256 is the ``expected`` one written with it (``where``: in which file,
    when not in ``path`` itself), or an error naming the file and what to do."""
    found = hashlib.sha256(body).hexdigest()
    if expected != found:
        raise InputError(
            f"{path}: contents do not match the checksum written with them{where} (expected "
            f"sha256 {expected}, found {found}): the file was damaged or edited; {_fix(path)}"
        )


def write_json(path: str | os.PathLike, doc: Any, **options: Any) -> None:
    """A JSON intermediate, sealed (``options`` go to ``json.dumps``)."""
    write_sealed(path, json.dumps(doc, **options) + "\n")


def read_json(path: str | os.PathLike) -> Any:
    return json.loads(read_sealed(path))


def write_tsv(path: str | os.PathLike, frame: pd.DataFrame) -> None:
    """Tab-separated, fixed float format, sealed: the same frame always gives the same bytes."""
    text = frame.to_csv(sep="\t", index=False, float_format="%.10g", lineterminator="\n")
    write_sealed(path, text)


def checksum_file(path: str | os.PathLike) -> Path:
    """Where a table CSV's sha256 lies: ``<file>.sha256`` beside it."""
    return Path(f"{path}.sha256")


def write_table_csv(path: str | os.PathLike, text: str) -> None:
    """A table CSV with its sha256 beside it (:func:`checksum_file`, as ``sha256sum`` writes
    it): the model cards and the run's coverage guard read the tables back, and the CSV stays
    plain for pandas and spreadsheets (a seal line would read as a row there)."""
    body = text.encode("utf-8")
    with atomic_path(path) as tmp:
        tmp.write_bytes(body)
    write_text(checksum_file(path), f"{hashlib.sha256(body).hexdigest()}  {Path(path).name}\n")


def read_table_csv(path: str | os.PathLike, **options: Any) -> pd.DataFrame:
    """What :func:`write_table_csv` wrote, after checking it against the sha256 beside it
    (``options`` go to ``pandas.read_csv``)."""
    data = read_file_bytes(path)
    sidecar = checksum_file(path)
    if not sidecar.is_file():
        raise InputError(
            f"{path}: no checksum file {sidecar} beside it: not written by the workflow, or by "
            f"an older version; {_fix(path)}"
        )
    expected = sidecar.read_bytes().partition(b" ")[0].decode("ascii", "replace").strip()
    if not re.fullmatch(r"[0-9a-f]{64}", expected):
        raise InputError(
            f"{path}: its checksum file {sidecar} holds no sha256 (empty or cut short): "
            f"{_fix(path)}"
        )
    _check_digest(path, data, expected, f" in {sidecar}")
    import pandas as pd

    return pd.read_csv(io.BytesIO(data), **options)


def array_checksum(data: np.ndarray) -> str:
    """sha256 of an array's dtype, shape and bytes: what it must still hold on reading."""
    data = np.ascontiguousarray(data)
    digest = hashlib.sha256(f"{data.dtype.str}{data.shape}".encode())
    digest.update(data)  # its buffer: a tobytes() copy took as long as the hashing
    return digest.hexdigest()


def arrays_checksum(arrays: dict[str, np.ndarray]) -> str:
    """One sha256 over named arrays, in name order."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        digest.update(f"{name}:{array_checksum(arrays[name])}".encode())
    return digest.hexdigest()


NPZ_SEAL = "__sha256__"


def write_npz(path: str | os.PathLike, arrays: dict[str, np.ndarray]) -> None:
    """Named arrays (e.g. per-sample effect sizes), sealed, written atomically."""
    seal = np.array(arrays_checksum(arrays))
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays, **{NPZ_SEAL: seal})


def read_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """What :func:`write_npz` wrote, after checking it against its seal and its recorded
    identity (its 0-d arrays: ``paths.RECORDED``)."""
    refuse_folder(path)
    try:
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: unreadable array file ({exc}); {_fix(path)}") from exc
    _check_arrays(path, arrays.pop(NPZ_SEAL, None), arrays)
    check_recorded(path, {k: str(v) for k, v in arrays.items() if v.ndim == 0})
    return arrays


def _check_arrays(path, expected, arrays: dict[str, np.ndarray]) -> None:
    if expected is None:
        raise InputError(
            f"{path}: no checksum stored with its arrays: not written by the "
            f"workflow, or by an older version; {_fix(path)}"
        )
    found = arrays_checksum(arrays)
    if str(expected) != found:
        raise InputError(
            f"{path}: arrays do not match the checksum written with them (expected sha256 "
            f"{expected}, found {found}): the file was damaged or edited; {_fix(path)}"
        )


def save_tensors(path: str | os.PathLike, tensors: dict) -> None:
    """Torch tensors to safetensors, sealed in the file's metadata, written atomically."""
    from safetensors.torch import save_file

    tensors = {k: v.detach().cpu().contiguous() for k, v in tensors.items()}
    seal = arrays_checksum({k: _as_array(v) for k, v in tensors.items()})
    with atomic_path(path) as tmp:
        save_file(tensors, str(tmp), metadata={NPZ_SEAL: seal})


def load_tensors(path: str | os.PathLike) -> dict:
    """What :func:`save_tensors` wrote, after checking it against its seal."""
    from safetensors import safe_open

    refuse_folder(path)
    try:
        with safe_open(str(path), framework="pt") as f:
            expected = (f.metadata() or {}).get(NPZ_SEAL)
            tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
    except Exception as exc:  # safetensors raises its own error types
        raise InputError(f"{path}: unreadable tensor file ({exc}); {_fix(path)}") from exc
    _check_arrays(path, expected, {k: _as_array(v) for k, v in tensors.items()})
    return tensors


def _as_array(tensor) -> np.ndarray:
    """A tensor's bytes as an array (bfloat16, which numpy lacks, viewed as int16)."""
    import torch

    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.int16)
    return tensor.detach().cpu().numpy()


#: columns of names and hashes, text whatever they look like: a file whose only signature is
#: "008410446983" must not read it as the number 8410446983
TEXT_COLUMNS = (*KEY_COLUMNS, "signature")


#: columns that hold numbers wherever they appear (score rows, DivDist's strengths): a value
#: that is not one means a damaged file, refused where it is read
NUMBER_COLUMNS = frozenset(
    {"effect_size", "se", "tau_squared", "n_partitions", "seed", "strength"}
    | {c for c in COLUMNS if c.startswith("p_")}  # every p-value and its floor
    | {f"{kind}_{role}" for kind in ("n", "dropped") for role in (*"xyab", *"XYAB")}
)


def read_tsv(path: str | os.PathLike) -> pd.DataFrame:
    """A TSV the workflow wrote; key columns stay text, and a number column holding anything
    but numbers is an InputError naming the file, column and line."""
    import pandas as pd

    frame = pd.read_csv(
        io.StringIO(read_sealed(path)),
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


#: how a job's log begins the lines of its measured CPU (read by scripts/estimate_cost.py)
CPU_LINE = "cpu:"


def cpu_seconds() -> float:
    """CPU seconds (user + system) this process and the children it waited for have used:
    measured by the kernel, not sampled."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def log_cpu(what: str) -> None:
    """One line on the job's log: the CPU seconds spent so far, at ``what``."""
    print(f"{CPU_LINE} {what} {cpu_seconds():.3f}", file=sys.stderr)


def logged_cpu(log: str | os.PathLike) -> dict[str, float]:
    """What a job's log records of its CPU (:func:`log_cpu`): moment -> CPU seconds so far
    ("start-up", "model loaded", "total"); empty for a log without them (an older run's)."""
    found = {}
    with open(log, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith(CPU_LINE):
                what, _, seconds = line[len(CPU_LINE) :].strip().rpartition(" ")
                found[what] = float(seconds)
    return found


def log_to(path: str | os.PathLike) -> None:
    """Send this process' stderr (warnings, progress bars, tracebacks) to a log file; an
    uncaught error also prints one line to the console: the message of a bad input (what to
    fix, no traceback), or the error and where its traceback is."""
    import traceback

    from biasbench.errors import InputError

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    console = sys.stderr
    sys.stderr = open(path, "w", buffering=1, encoding="utf-8")  # noqa: SIM115

    def report(kind, error, tb):
        traceback.print_exception(kind, error, tb, file=sys.stderr)
        if isinstance(error, InputError):
            print(f"biasbench: {error} (log: {path})", file=console)
        else:
            print(f"biasbench: {kind.__name__}: {error} (traceback in {path})", file=console)

    sys.excepthook = report


def sha256_of(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def content_digests(files: list[str]) -> dict[str, str]:
    """File -> sha256, each file hashed once per process while its stat is unchanged
    (Snakemake evaluates a job's params more than once in a run): what identifies a
    user's own input by content, so a file replaced with its mtime kept still reruns its jobs."""
    out = {}
    for f in files:
        st = os.stat(f)
        # ctime too: a file rewritten in place with its mtime and size kept (cp -p) changes it
        out[f] = _sha256_at(f, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    return out


@functools.cache
def _sha256_at(path: str, *stat: int) -> str:
    return sha256_of(path)


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


def read_rows(path: str | os.PathLike) -> pd.DataFrame:
    """A score table, refused where its columns are not exactly the row schema's
    (``biasbench.rows``): a file written before a column was added (a floor read as absent
    would count a test as able to reject) or damaged, named with the columns that differ."""
    frame = read_tsv(path)
    if list(frame.columns) != COLUMNS:
        odd = sorted(set(frame.columns) ^ set(COLUMNS)) or "their order"
        raise InputError(
            f"{path}: the columns of a score table differ from the row schema's ({odd}): "
            f"written by another version, or damaged; {_fix(path)}"
        )
    return frame
