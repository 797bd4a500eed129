"""Read structured abstract files, JSON lines and CSV, into raw records.

Knows these two formats; what a record's fields mean is ingest.records' job. A bad record
raises FormatError, or with `skip_bad` becomes a warning.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

from bot.errors import FormatError
from ingest.decoding import split_lines
from ingest.records import ABSTRACT_FIELDS, RawRecord, from_mapping


def read_jsonl(file: Path, text: str, skip_bad: bool, warnings: list[str]) -> Iterator[RawRecord]:
    """The records of a JSON-lines file, one object per line."""
    for line_no, line in enumerate(split_lines(text), start=1):
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
            yield from_mapping(obj, file, f"{file} line {line_no}", record=line_no)
        except FormatError as exc:
            if not skip_bad:
                raise
            warnings.append(f"skipped: {exc}")


def read_csv(file: Path, text: str, skip_bad: bool, warnings: list[str]) -> Iterator[RawRecord]:
    """The records of a CSV file with a header row naming an 'abstract' or 'text' column."""
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
            yield from_mapping(clean, file, f"{file} line {reader.line_num}", record=number)
        except FormatError as exc:
            if not skip_bad:
                raise
            warnings.append(f"skipped: {exc}")
