"""Documents in from the formats analysts keep corpora in, one `InputDocument` each.

Every reader yields the documents in input order with the place they came from
(`file:line`). A document that cannot be read (invalid JSON, a missing text field or
column, undecodable bytes) is yielded too, with `error` set and no text, so the caller
decides whether to stop there or to skip it; reading never stops half-way silently.
"""

import csv
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

TEXT_SUFFIXES = (".txt", ".text")
FORMATS = "a .txt file (one document per line), a directory of .txt files, .jsonl, .csv, .tsv, or - (stdin, as .txt)"


@dataclass
class InputDocument:
    index: int  # position in the input, from 0, bad documents included
    id: str
    text: Optional[str]
    source: str  # "file:line" (or "file" for one document per file)
    error: Optional[str] = None


class BadInputError(ValueError):
    """A document could not be read; the message names the file and line."""

    def __init__(self, document: InputDocument):
        super().__init__(f"{document.source}: {document.error} (use --skip-bad to skip such documents)")
        self.document = document


def read_documents(
    path: str,
    text_key: str = "text",
    id_key: str = "id",
    column: str = "text",
    id_column: Optional[str] = None,
) -> Iterator[InputDocument]:
    """The documents of `path` (see FORMATS); ids default to the line (or row) number
    from 1, or the file name for a directory of files."""
    if path == "-":
        return _read_lines(sys.stdin.buffer, "<stdin>")
    source = Path(path)
    if not source.exists():
        raise FileNotFoundError(f"Input not found: {source}")
    if source.is_dir():
        return _read_directory(source)
    suffix = source.suffix.lower()
    if suffix == ".jsonl":
        return _read_jsonl(source, text_key, id_key)
    if suffix in (".csv", ".tsv"):
        return _read_table(source, column, id_column, delimiter="\t" if suffix == ".tsv" else ",")
    if suffix in TEXT_SUFFIXES:
        return _read_lines(source.open("rb"), str(source))
    raise ValueError(f"Unknown input format {suffix or '(no suffix)'} of {source}: expected {FORMATS}")


def count_documents(path: str) -> Optional[int]:
    """How many documents `path` holds (None for stdin): for the progress bar's ETA."""
    if path == "-":
        return None
    source = Path(path)
    if source.is_dir():
        return sum(1 for _ in _text_files(source))
    if source.suffix.lower() in (".csv", ".tsv"):
        return None  # quoted fields may span lines: only a full parse would tell
    with source.open("rb") as handle:
        return sum(1 for line in handle if source.suffix.lower() != ".jsonl" or line.strip())


def _decode(raw: bytes) -> Optional[str]:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _undecodable(raw: bytes) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"undecodable bytes (not UTF-8) at byte {err.start}"
    return ""


def _read_lines(handle: BinaryIO, name: str) -> Iterator[InputDocument]:
    with handle:
        for number, raw in enumerate(handle, 1):
            raw = raw.rstrip(b"\r\n")
            text = _decode(raw)
            yield InputDocument(
                number - 1, str(number), text, f"{name}:{number}", None if text is not None else _undecodable(raw)
            )


def _text_files(directory: Path):
    return sorted(p for p in directory.iterdir() if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES)


def _read_directory(directory: Path) -> Iterator[InputDocument]:
    for index, path in enumerate(_text_files(directory)):
        raw = path.read_bytes()
        text = _decode(raw)
        yield InputDocument(index, path.name, text, str(path), None if text is not None else _undecodable(raw))


def _read_jsonl(path: Path, text_key: str, id_key: str) -> Iterator[InputDocument]:
    index = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue  # a blank line is no record (an empty text is `{"text": ""}`)
            where = f"{path}:{number}"
            doc = InputDocument(index, str(number), None, where)
            index += 1
            line = _decode(raw)
            if line is None:
                doc.error = _undecodable(raw)
                yield doc
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                doc.error = f"invalid JSON ({err.msg} at column {err.colno})"
                yield doc
                continue
            if not isinstance(record, dict):
                doc.error = f"expected a JSON object, got {type(record).__name__}"
            elif text_key not in record:
                doc.error = f"no {text_key!r} field (--text-key)"
            elif not isinstance(record[text_key], str):
                doc.error = f"field {text_key!r} is {type(record[text_key]).__name__}, not a string"
            else:
                doc.text = record[text_key]
                if record.get(id_key) is not None:
                    doc.id = str(record[id_key])
            yield doc


def _read_table(path: Path, column: str, id_column: Optional[str], delimiter: str) -> Iterator[InputDocument]:
    # surrogateescape keeps undecodable bytes as lone surrogates, so a bad row is found
    # (and reported with its line) without losing the rows around it
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    for name, wanted in (("--column", column), ("--id-column", id_column)):
        if wanted is not None and wanted not in header:
            raise ValueError(f"{path}:1: no column {wanted!r} ({name}); columns: {', '.join(header)}")
    text_at = header.index(column)
    id_at = header.index(id_column) if id_column is not None else None
    for index, row in enumerate(reader):
        where = f"{path}:{reader.line_num}"
        doc = InputDocument(index, str(index + 1), None, where)
        if len(row) != len(header):
            doc.error = f"{len(row)} fields where the header has {len(header)}"
        elif any(_has_surrogates(value) for value in row):
            doc.error = "undecodable bytes (not UTF-8)"
        else:
            doc.text = row[text_at]
            if id_at is not None:
                doc.id = row[id_at]
        yield doc


def _has_surrogates(value: str) -> bool:
    return any("\udc80" <= char <= "\udcff" for char in value)
