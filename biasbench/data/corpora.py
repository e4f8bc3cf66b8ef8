"""Streaming readers for natural text: Reddit dumps, Wikipedia XML dumps, sentence files,
CSV/TSV text columns and JSON strings (and a mixed corpus of the last two, by suffix).

Each reader yields documents (strings) without loading the corpus whole, and turns a broken
input into an :class:`InputError` that names the file (and line, where there is one).
"""

from __future__ import annotations

import bz2
import csv
import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from xml.etree.ElementTree import iterparse

from biasbench.errors import InputError


def _zstd_lines(path: Path) -> Iterator[bytes]:
    """Lines of a (possibly multi-frame) zstd file, streamed; a frame cut short is an error
    (the streaming reader of the zstd bindings ends silently there)."""
    import zstandard

    dctx = zstandard.ZstdDecompressor(max_window_size=2**31)
    dobj, fed, pending = dctx.decompressobj(), False, b""
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            while chunk:
                fed = True
                lines = (pending + dobj.decompress(chunk)).split(b"\n")
                pending = lines.pop()
                yield from lines
                if dobj.eof:  # next frame, if any, starts in the unused bytes
                    chunk, dobj, fed = dobj.unused_data, dctx.decompressobj(), False
                else:
                    chunk = b""
    if fed and not dobj.eof:
        raise zstandard.ZstdError("the last frame is incomplete")
    if pending:
        yield pending


def iter_reddit(
    path: str | os.PathLike, fields: tuple[str, ...] = ("title", "body")
) -> Iterator[str]:
    """Texts of a pushshift-style dump: zstd-compressed NDJSON, one object per line."""
    import zstandard

    path = Path(path)
    lineno = 0
    try:
        for lineno, line in enumerate(_zstd_lines(path), 1):
            try:
                record = json.loads(line.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"{path}: line {lineno} is not valid UTF-8 ({exc.reason})"
                ) from exc
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: line {lineno} is not a JSON object: {exc.msg}") from exc
            for field in fields:
                text = record.get(field) if isinstance(record, dict) else None
                if isinstance(text, str) and text and text not in ("[deleted]", "[removed]"):
                    yield text
    except zstandard.ZstdError as exc:
        raise InputError(
            f"{path}: corrupt or truncated zstd stream after line {lineno}: {exc}"
        ) from exc


_WIKI_MARKUP = [
    (re.compile(r"<!--.*?-->", re.S), " "),
    (re.compile(r"<ref[^>/]*/>|<ref[^>]*>.*?</ref>", re.S), " "),
    (re.compile(r"\{\|.*?\|\}", re.S), " "),  # tables
    (re.compile(r"\{\{[^{}]*\}\}"), " "),  # templates (innermost first, repeated below)
    (re.compile(r"\[\[(?:File|Image|Category):[^\]]*\]\]", re.I), " "),
    (re.compile(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]"), r"\1"),  # [[target|label]] -> label
    (re.compile(r"\[https?://\S+\s*([^\]]*)\]"), r"\1"),
    (re.compile(r"<[^>]+>"), " "),
    (re.compile(r"'{2,}"), ""),
    (re.compile(r"^[=*#:;].*$", re.M), " "),  # headings, list and indent markers
    (re.compile(r"&nbsp;|&[a-z]+;"), " "),
]


def strip_wiki_markup(text: str) -> str:
    """Plain prose from MediaWiki markup (links keep their label; templates, tables,
    references, headings and markup are dropped)."""
    for _ in range(3):  # nested templates
        text = _WIKI_MARKUP[3][0].sub(" ", text)
    for pattern, repl in _WIKI_MARKUP:
        text = pattern.sub(repl, text)
    return re.sub(r"[ \t]+", " ", text)


def iter_wikipedia(path: str | os.PathLike) -> Iterator[str]:
    """Article texts of a ``pages-articles`` XML dump (``.bz2`` or plain), markup stripped;
    redirects and non-article namespaces are skipped."""
    path = Path(path)
    opener = bz2.open if path.suffix == ".bz2" else open
    try:
        with opener(path, "rb") as fh:
            ns_ok, redirect = True, False
            for _, elem in iterparse(fh, events=("end",)):
                tag = elem.tag.rsplit("}", 1)[-1]
                if tag == "ns":
                    ns_ok = (elem.text or "0").strip() == "0"
                elif tag == "redirect":
                    redirect = True
                elif tag == "text" and ns_ok and not redirect and elem.text:
                    yield strip_wiki_markup(elem.text)
                elif tag == "page":
                    ns_ok, redirect = True, False
                    elem.clear()
    except (OSError, EOFError, SyntaxError) as exc:  # ParseError is a SyntaxError
        raise InputError(f"{path}: not a readable Wikipedia XML dump: {exc}") from exc


def iter_sentence_file(path: str | os.PathLike) -> Iterator[str]:
    """One sentence per line (UTF-8 text, optionally .bz2)."""
    path = Path(path)
    opener = bz2.open if path.suffix == ".bz2" else open
    lineno = 0
    try:
        with opener(path, "rb") as fh:
            for lineno, line in enumerate(fh, 1):
                try:
                    text = line.decode("utf-8").strip()
                except UnicodeDecodeError as exc:
                    raise InputError(f"{path}: line {lineno} is not valid UTF-8") from exc
                if text:
                    yield text
    except (OSError, EOFError) as exc:  # a corrupt or truncated compressed stream
        raise InputError(f"{path}: corrupt or truncated file after line {lineno}: {exc}") from exc


_TAB_SUFFIXES = (".tsv", ".tab")


def iter_csv_column(
    path: str | os.PathLike,
    column: str | list[str] = "comments",
    delimiter: str | None = None,
    where: dict[str, str | list[str]] | None = None,
) -> Iterator[str]:
    """One text column of a CSV or TSV file (e.g. the RedditBias comment tables, BUG's
    ``sentence_text``, GAP's ``Text``); given a list, the first of its columns that the file
    has. The delimiter is a tab for ``.tsv``/``.tab`` files and a comma otherwise, unless
    given. ``where`` keeps only the rows whose columns hold one of the given values, e.g.
    ``{"corpus": "wikipedia"}``."""
    path = Path(path)
    wanted = [column] if isinstance(column, str) else list(column)
    if delimiter is None:
        delimiter = "\t" if path.suffix.lower() in _TAB_SUFFIXES else ","
    keep = {
        name: {values} if isinstance(values, str) else set(values)
        for name, values in (where or {}).items()
    }
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh, delimiter=delimiter)
            header = reader.fieldnames
            if not header:
                raise InputError(f"{path}: empty file (no header row)")
            present = [c for c in wanted if c in header]
            if not present:
                raise InputError(f"{path}: none of the columns {wanted} (has {header})")
            missing = sorted(set(keep) - set(header))
            if missing:
                raise InputError(f"{path}: no filter column {missing} (has {header})")
            for row in reader:
                if any(row[name] not in values for name, values in keep.items()):
                    continue
                if row[present[0]]:
                    yield row[present[0]]
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 ({exc.reason})") from exc
    except csv.Error as exc:
        raise InputError(
            f"{path}: line {reader.reader.line_num}: not readable as CSV: {exc}"
        ) from exc


def _json_values(value, steps: list[str]) -> Iterator:
    """The values at a key path below ``value``; ``*`` steps over every key or list item."""
    if not steps:
        yield value
        return
    step, rest = steps[0], steps[1:]
    if isinstance(value, dict):
        children = value.values() if step == "*" else [value[step]] if step in value else []
    elif isinstance(value, list):
        if step == "*":
            children = value
        elif step.isdigit() and int(step) < len(value):
            children = [value[int(step)]]
        else:
            children = []
    else:
        children = []
    for child in children:
        yield from _json_values(child, rest)


def _json_strings(value) -> Iterator[str]:
    """Every non-empty string inside a JSON value, in document order (keys are not text)."""
    if isinstance(value, str):
        if value.strip():
            yield value
    elif isinstance(value, dict):
        for child in value.values():
            yield from _json_strings(child)
    elif isinstance(value, list):
        for child in value:
            yield from _json_strings(child)


def iter_json_texts(path: str | os.PathLike, key: str | None = None) -> Iterator[str]:
    """The strings of a JSON file (one document) or of a ``.jsonl``/``.ndjson`` file (one
    value per line), e.g. BOLD's ``{domain: {name: [sentence, ...]}}``.

    Without ``key`` every string in the file is a document; ``key`` is a dotted path (``*``
    for every key or list item, digits for a list index), e.g. ``data.*.text``, and the
    strings at or under it are the documents. A path that matches nothing in the whole
    file is an error. A ``.json`` file is parsed whole, so it must fit in memory."""
    path = Path(path)
    steps = key.split(".") if key else []
    lines = path.suffix.lower() in (".jsonl", ".ndjson")
    found = False
    try:
        with open(path, encoding="utf-8-sig") as fh:
            if lines:
                numbered = ((n, line) for n, line in enumerate(fh, 1) if line.strip())
            else:
                text = fh.read()
                numbered = iter([(1, text)] if text.strip() else [])
            empty = True
            for lineno, text in numbered:
                empty = False
                try:
                    record = json.loads(text)
                except json.JSONDecodeError as exc:
                    at = lineno if lines else exc.lineno
                    raise InputError(f"{path}: line {at} is not valid JSON: {exc.msg}") from exc
                for value in _json_values(record, steps):
                    found = True
                    yield from _json_strings(value)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 ({exc.reason})") from exc
    if empty:
        raise InputError(f"{path}: empty file (no JSON)")
    if not found:
        raise InputError(f"{path}: nothing at the key path {key!r}")


_TABLE_SUFFIXES = (".csv", *_TAB_SUFFIXES)
_JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")


def iter_records(
    path: str | os.PathLike,
    column: str | list[str] | None = None,
    key: str | None = None,
    delimiter: str | None = None,
    where: dict[str, str | list[str]] | None = None,
) -> Iterator[str]:
    """A corpus of mixed data files, read by their suffix: ``.csv``/``.tsv``/``.tab`` as
    tables (:func:`iter_csv_column` with ``column``, ``delimiter`` and ``where``),
    ``.json``/``.jsonl``/``.ndjson`` as JSON (:func:`iter_json_texts` with ``key``)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in _TABLE_SUFFIXES:
        if column is None:
            raise InputError(f"{path}: a table needs the option 'column' (its text column)")
        return iter_csv_column(path, column, delimiter=delimiter, where=where)
    if suffix in _JSON_SUFFIXES:
        return iter_json_texts(path, key=key)
    raise InputError(
        f"{path}: records corpora read the suffixes {[*_TABLE_SUFFIXES, *_JSON_SUFFIXES]}"
    )


READERS = {
    "reddit": iter_reddit,
    "wikipedia": iter_wikipedia,
    "sentences": iter_sentence_file,
    "csv": iter_csv_column,
    "json": iter_json_texts,
    "records": iter_records,
}


def iter_corpus(kind: str, paths: Iterable[str | os.PathLike], **options: str) -> Iterator[str]:
    """Documents of every file of a corpus, in the given order; an empty corpus is an error."""
    if kind not in READERS:
        raise InputError(f"corpus kind must be one of {sorted(READERS)}, got {kind!r}")
    paths = list(paths)
    if not paths:
        raise InputError(f"{kind} corpus: no files given")
    seen = 0
    for path in paths:
        if not Path(path).is_file():
            raise InputError(f"{kind} corpus: no such file {path}")
        for doc in READERS[kind](path, **options):
            seen += 1
            yield doc
    if seen == 0:
        raise InputError(f"{kind} corpus {[str(p) for p in paths]}: no documents")


def iter_configured_corpus(cfg: dict, paths: Iterable[str | os.PathLike]) -> Iterator[str]:
    """Documents of a corpus as configured under ``corpora:`` (its kind and reader options)."""
    options = {k: v for k, v in cfg.items() if k not in ("kind", "files")}
    return iter_corpus(cfg["kind"], paths, **options)


def iter_corpus_parts(parts: Iterable[tuple[dict, list[str]]]) -> Iterator[str]:
    """Documents of a corpus given as (reader config, files) parts: one part for a corpus,
    one per member of a pool, read one after another."""
    for cfg, files in parts:
        yield from iter_configured_corpus(dict(cfg), files)
