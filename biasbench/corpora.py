"""Streaming readers for natural text: Reddit dumps, Wikipedia XML dumps, sentence files.

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
    with opener(path, "rb") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                text = line.decode("utf-8").strip()
            except UnicodeDecodeError as exc:
                raise InputError(f"{path}: line {lineno} is not valid UTF-8") from exc
            if text:
                yield text


def iter_csv_column(path: str | os.PathLike, column: str | list[str] = "comments") -> Iterator[str]:
    """One text column of a CSV file (e.g. the RedditBias comment tables); given a list, the
    first of its columns that the file has."""
    path = Path(path)
    wanted = [column] if isinstance(column, str) else list(column)
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            present = [c for c in wanted if c in (reader.fieldnames or [])]
            if not present:
                raise InputError(f"{path}: none of the columns {wanted} (has {reader.fieldnames})")
            for row in reader:
                if row[present[0]]:
                    yield row[present[0]]
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 ({exc.reason})") from exc


READERS = {
    "reddit": iter_reddit,
    "wikipedia": iter_wikipedia,
    "sentences": iter_sentence_file,
    "csv": iter_csv_column,
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
