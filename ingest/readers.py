"""Read files into raw records: seed text, JSONL (incl. BEIR corpus.jsonl), CSV, folders.

Knows file formats and nothing of vectors, ids or the store. Every problem is raised as an
InputError naming the file and line or record; with `skip_bad` a bad record is skipped and
reported as a warning instead, while a bad file (missing, empty, binary, undecodable) always
fails.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.errors import FormatError, InputError, MissingPathError
from bot.types import Source

SUFFIXES = {".txt": "text", ".md": "text", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
ABSTRACT_FIELDS = ("abstract", "text")
ID_FIELDS = ("id", "_id", "paper_id", "doc_id")
# A header paragraph is one short line with no sentence-ending punctuation.
_HEADER_MAX_WORDS = 14
_YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")


@dataclass(frozen=True)
class RawRecord:
    """One abstract as read, before normalisation and deduplication."""

    text: str
    source: Source
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    url: str | None = None


@dataclass
class ReadResult:
    """Records read from some paths, and what was skipped along the way."""

    records: list[RawRecord] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_paths(paths: list[Path], encoding: str = "utf-8", skip_bad: bool = False) -> ReadResult:
    """Every record in `paths` (files or folders); raises InputError on the first bad input."""
    result = ReadResult()
    for path in paths:
        if not path.exists():
            raise MissingPathError(
                f"{path}: no such file or folder; check the path, or run `paperbot ingest` "
                "with no path to ingest the bundled seeds"
            )
        for file in _files_under(path) if path.is_dir() else [path]:
            result.files.append(file.resolve())
            result.records.extend(read_file(file, encoding, skip_bad, result.warnings))
    return result


def _files_under(folder: Path) -> list[Path]:
    # A BEIR folder holds queries and qrels beside the corpus: read the corpus only.
    if (folder / "corpus.jsonl").is_file() and (folder / "queries.jsonl").is_file():
        return [folder / "corpus.jsonl"]
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and p.name.lower() not in {"readme.md", "license.md", "changelog.md"}
    )
    if not files:
        raise FormatError(f"{folder}: no .txt, .jsonl or .csv files inside; point ingest at abstract files")
    return files


def read_file(
    file: Path, encoding: str = "utf-8", skip_bad: bool = False, warnings: list[str] | None = None
) -> list[RawRecord]:
    """The records of one file, by its suffix (unknown suffixes are read as seed text)."""
    text = _decode(file, encoding)
    if not text.strip():
        raise FormatError(f"{file}: the file is empty; add abstracts or remove it from the list")
    kind = SUFFIXES.get(file.suffix.lower(), "text")
    sink = warnings if warnings is not None else []
    if kind == "jsonl":
        records = list(_read_jsonl(file, text, skip_bad, sink))
    elif kind == "csv":
        records = list(_read_csv(file, text, skip_bad, sink))
    else:
        records = list(_read_text(file, text))
    if not records:
        raise FormatError(f"{file}: no abstracts found; {_format_hint(kind)}")
    return records


def _format_hint(kind: str) -> str:
    if kind == "text":
        return "put one abstract per paragraph, paragraphs separated by a blank line"
    return "each record needs an 'abstract' or 'text' field"


def _decode(file: Path, encoding: str) -> str:
    data = file.read_bytes()
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(
            f"{file}: looks like a binary file (NUL byte at offset {nul}); paperbot reads "
            "UTF-8 text (.txt, one abstract per paragraph), .jsonl and .csv"
        )
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        # Count characters, not bytes, as editors do: the bytes before the bad one decode fine.
        column = len(data[line_start : exc.start].decode(encoding, errors="replace")) + 1
        raise FormatError(
            f"{file} line {line}: not valid {encoding} (byte 0x{data[exc.start]:02x} at column "
            f"{column}); save the file as UTF-8 or pass --encoding latin-1"
        ) from exc
    except LookupError as exc:
        raise InputError(f"unknown encoding {encoding!r}; pass e.g. --encoding latin-1") from exc
    return text.removeprefix("\ufeff")


def _read_text(file: Path, text: str) -> Iterator[RawRecord]:
    collection: str | None = None
    venue: str | None = None
    year: int | None = None
    number = 0
    for line_no, paragraph in _paragraphs(text):
        if _is_header(paragraph):
            collection = paragraph
            venue, year = _venue_year(paragraph)
            continue
        number += 1
        yield RawRecord(
            text=paragraph,
            source=Source(file=str(file.resolve()), line=line_no, record=number, collection=collection),
            venue=venue,
            year=year,
        )


def _paragraphs(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, paragraph) for each blank-line separated paragraph."""
    start: int | None = None
    lines: list[str] = []
    for number, line in enumerate(_lines(text), start=1):
        if line.strip():
            if start is None:
                start = number
            lines.append(line.strip())
        elif start is not None:
            yield start, "\n".join(lines)
            start, lines = None, []
    if start is not None:
        yield start, "\n".join(lines)


def _lines(text: str) -> list[str]:
    """Lines split at line breaks only.

    str.splitlines() also splits at U+2028, U+0085 and form feeds, which JSON strings and
    PDF-extracted text may hold; that broke JSONL records and shifted line numbers.
    Example: _lines("a\u2028b\r\nc") -> ['a\u2028b', 'c']
    """
    return re.split(r"\r\n|\r|\n", text.removesuffix("\n").removesuffix("\r"))


def _is_header(paragraph: str) -> bool:
    return (
        "\n" not in paragraph
        and len(paragraph.split()) <= _HEADER_MAX_WORDS
        and not paragraph.rstrip().endswith((".", "?", "!"))
    )


def _venue_year(header: str) -> tuple[str | None, int | None]:
    """Example: _venue_year("NeurIPS 2026 论文列表") -> ('NeurIPS', 2026)"""
    match = _YEAR.search(header)
    if not match:
        return None, None
    venue = header[: match.start()].strip(" -–:,") or None
    return venue, int(match.group(1))


def _read_jsonl(file: Path, text: str, skip_bad: bool, warnings: list[str]) -> Iterator[RawRecord]:
    for line_no, line in enumerate(_lines(text), start=1):
        if not line.strip():
            continue
        try:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise FormatError(
                    f"{file} line {line_no}: not valid JSON ({exc.msg}, column {exc.colno}); "
                    "fix the line or remove it (or pass --skip-bad)"
                ) from exc
            if not isinstance(obj, dict):
                raise FormatError(
                    f"{file} line {line_no}: expected a JSON object, got {type(obj).__name__}; "
                    'write one object per line like {"abstract": "..."}'
                )
            yield _from_mapping(obj, file, f"{file} line {line_no}", record=line_no)
        except FormatError as exc:
            if not skip_bad:
                raise
            warnings.append(f"skipped: {exc}")


def _read_csv(file: Path, text: str, skip_bad: bool, warnings: list[str]) -> Iterator[RawRecord]:
    try:
        delimiter = csv.Sniffer().sniff(text[:4096], delimiters=",;\t").delimiter
    except csv.Error:
        delimiter = ","
    # Only the delimiter is sniffed: the sniffer often reports doublequote=False for standard
    # CSV, which cut abstracts at their first "" (an escaped quote).
    reader = csv.DictReader(io.StringIO(text, newline=""), dialect=csv.excel, delimiter=delimiter)
    columns = [c.strip().lower() for c in (reader.fieldnames or []) if c]
    if not any(name in columns for name in ABSTRACT_FIELDS):
        raise FormatError(
            f"{file}: no 'abstract' or 'text' column (columns: {', '.join(columns) or 'none'}); "
            "rename the column that holds the abstracts to 'abstract'"
        )
    for number, row in enumerate(reader, start=1):
        clean = {(k or "").strip().lower(): v for k, v in row.items() if k}
        try:
            # reader.line_num is the physical line the row ended on (quoted fields may span lines)
            yield _from_mapping(clean, file, f"{file} line {reader.line_num}", record=number)
        except FormatError as exc:
            if not skip_bad:
                raise
            warnings.append(f"skipped: {exc}")


def _from_mapping(obj: dict[str, Any], file: Path, where: str, record: int) -> RawRecord:
    abstract = next((obj[f] for f in ABSTRACT_FIELDS if isinstance(obj.get(f), str)), None)
    if abstract is None or not abstract.strip():
        fields = ", ".join(sorted(obj)) or "none"
        raise FormatError(
            f"{where}: no 'abstract' or 'text' field with text (fields: {fields}); add the "
            "abstract or remove the record (or pass --skip-bad)"
        )
    source_id = next((str(obj[f]) for f in ID_FIELDS if obj.get(f) not in (None, "")), None)
    return RawRecord(
        text=abstract.strip(),
        source=Source(file=str(file.resolve()), record=record, source_id=source_id),
        title=_text_or_none(obj.get("title")),
        authors=_authors(obj.get("authors")),
        year=_year(obj.get("year")),
        venue=_text_or_none(obj.get("venue")),
        url=_text_or_none(obj.get("url")),
    )


def _text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _authors(value: Any) -> tuple[str, ...]:
    """Example: _authors("Ada Lovelace; Alan Turing") -> ('Ada Lovelace', 'Alan Turing')"""
    if isinstance(value, list):
        return tuple(str(a).strip() for a in value if str(a).strip())
    if isinstance(value, str) and value.strip():
        parts = re.split(r";|\band\b|\|", value) if ";" in value or " and " in value else [value]
        if len(parts) == 1 and value.count(",") >= 2:
            parts = value.split(",")
        return tuple(p.strip() for p in parts if p.strip())
    return ()


def _year(value: Any) -> int | None:
    match = _YEAR.search(str(value)) if value not in (None, "") else None
    return int(match.group(1)) if match else None
