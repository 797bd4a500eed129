"""Read structured abstract files, JSON lines, JSON arrays and CSV, into raw records.

Knows these formats; what a record's fields mean is ingest.records' job. A bad record
raises BadRecordError, or with `skip_bad` becomes a warning; a bad file raises FormatError.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bot.errors import BadRecordError, FormatError
from bot.text import jsonl
from ingest.decoding import split_lines
from ingest.records import ABSTRACT_FIELDS, Limits, Notes, RawRecord, from_mapping


def read_jsonl(file: Path, text: str, skip_bad: bool, warnings: list[str], limits: Limits) -> Iterator[RawRecord]:
    """The records of a JSON-lines file, one object per line (see from_mapping for `limits`)."""
    notes = Notes(file)
    for line_no, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        try:
            try:
                obj = jsonl.loads(line)
            except ValueError as exc:  # not JSON, or nested too deeply
                raise BadRecordError(f"{file} line {line_no}", jsonl.problem(exc), "fix the line or remove it") from exc
            if not isinstance(obj, dict):
                raise BadRecordError(
                    f"{file} line {line_no}",
                    f"expected a JSON object, got {type(obj).__name__}",
                    'write one object per line like {"abstract": "..."}',
                )
            yield from_mapping(obj, file, f"{file} line {line_no}", line_no, notes, limits)
        except BadRecordError as exc:
            if not skip_bad:
                raise
            warnings.append(exc.skipped)
    warnings.extend(notes.lines())


def read_json(file: Path, text: str, skip_bad: bool, warnings: list[str], limits: Limits) -> Iterator[RawRecord]:
    """The records of a .json file holding an array of objects, like [{"abstract": "..."}]."""
    notes = Notes(file)
    for record, (line_no, obj) in enumerate(_array_items(file, text), start=1):
        where = f"{file} record {record} (line {line_no})"
        try:
            if not isinstance(obj, dict):
                raise BadRecordError(
                    where,
                    f"expected a JSON object, got {type(obj).__name__}",
                    'make each item of the array an object like {"abstract": "..."}',
                )
            yield from_mapping(obj, file, where, record, notes, limits)
        except BadRecordError as exc:
            if not skip_bad:
                raise
            warnings.append(exc.skipped)
    warnings.extend(notes.lines())


_SPACE = re.compile(r"\s*")


def _array_items(file: Path, text: str) -> Iterator[tuple[int, Any]]:
    """(line, value) of each item of the JSON array `text`; a JSON error fails the whole file,
    since nothing after it can be trusted."""
    pos = _skip_space(text, 0)
    if not text.startswith("[", pos):
        raise _not_an_array(file, text)
    line, counted = 1, 0
    pos = _skip_space(text, pos + 1)
    while not text.startswith("]", pos):
        try:
            value, end = jsonl.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise FormatError(
                f"{file} line {exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno}); fix the file"
            ) from exc
        except jsonl.JsonLimitError as exc:
            where = text.count("\n", 0, pos) + 1
            raise FormatError(f"{file} line {where}: {exc}; flatten the record or remove it") from exc
        line, counted = line + text.count("\n", counted, pos), pos
        yield line, value
        pos = _skip_space(text, end)
        if text.startswith(",", pos):
            pos = _skip_space(text, pos + 1)
        elif not text.startswith("]", pos):
            where = text.count("\n", 0, pos) + 1
            raise FormatError(f"{file} line {where}: expected ',' or ']' between the array's items; fix the file")
    if text[pos + 1 :].strip():
        raise FormatError(f"{file}: text after the array's closing ']'; remove it")


def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def _not_an_array(file: Path, text: str) -> FormatError:
    """Why a .json file that does not start with '[' cannot be read, and how to convert it."""
    try:
        value = jsonl.loads(text)
    except jsonl.JsonLimitError as exc:
        return FormatError(f'{file}: {exc}; save an array of records, [{{"abstract": "..."}}, ...]')
    except json.JSONDecodeError as exc:
        if _is_json_lines(text):
            return FormatError(
                f"{file}: holds JSON lines (one object per line), which paperbot reads from .jsonl "
                f"files; rename it to {file.with_suffix('.jsonl').name}"
            )
        return FormatError(f"{file} line {exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno}); fix the file")
    if not isinstance(value, dict):
        return FormatError(
            f"{file}: holds a JSON {type(value).__name__}, not an array of records; write "
            '[{"abstract": "..."}, ...], or one object per line in a .jsonl file'
        )
    if any(f in value for f in ABSTRACT_FIELDS):
        return FormatError(
            f"{file}: holds one JSON object, not an array of records; put it in [ ], or rename the "
            f"file to {file.with_suffix('.jsonl').name}"
        )
    lists = [k for k, v in value.items() if isinstance(v, list)]
    hint = f"; e.g. `jq '.{lists[0]}' {file.name} > {file.stem}-{lists[0]}.json`" if len(lists) == 1 else ""
    return FormatError(
        f"{file}: holds a JSON object (fields: {', '.join(sorted(value)) or 'none'}), not an array "
        f"of records; save the array of papers itself as the file{hint}"
    )


def _is_json_lines(text: str) -> bool:
    """Whether the first lines of `text` are each a JSON object. Example: '{"a": 1}\\n{"a": 2}' -> True"""
    first = [line for line in split_lines(text) if line.strip()][:5]
    try:
        return len(first) > 1 and all(isinstance(jsonl.loads(line), dict) for line in first)
    except ValueError:
        return False


def read_csv(file: Path, text: str, skip_bad: bool, warnings: list[str], limits: Limits) -> Iterator[RawRecord]:
    """The records of a CSV file with a header row naming an 'abstract' or 'text' column."""
    delimiter = _sniff_delimiter(text)
    # Strict: an unclosed quote fails instead of swallowing the rest of the file into one field.
    reader = csv.reader(io.StringIO(text, newline=""), dialect=csv.excel, delimiter=delimiter, strict=True)
    rows = _rows(file, reader)
    _, header = next(rows, (1, []))
    columns = [c.strip().lower() for c in header]
    if not any(name in columns for name in ABSTRACT_FIELDS):
        raise FormatError(
            f"{file}: no 'abstract' or 'text' column (columns: {', '.join(c for c in columns if c) or 'none'}); "
            "rename the column that holds the abstracts to 'abstract'"
        )
    number = 0
    notes = Notes(file)
    for line_no, row in rows:
        if not row:
            continue
        number += 1
        where = f"{file} line {line_no}"  # the physical line the row ends on (quoted fields may span lines)
        try:
            _check_width(row, len(columns), delimiter, where)
            fields = {c: v for c, v in zip(columns, row, strict=False) if c}
            yield from_mapping(fields, file, where, number, notes, limits)
        except BadRecordError as exc:
            if not skip_bad:
                raise
            warnings.append(exc.skipped)
    warnings.extend(notes.lines())


def _sniff_delimiter(text: str) -> str:
    # Only the delimiter is sniffed: the sniffer often reports doublequote=False for standard
    # CSV, which cut abstracts at their first "" (an escaped quote).
    try:
        return csv.Sniffer().sniff(text[:4096], delimiters=",;\t").delimiter
    except csv.Error:
        return ","


def _rows(file: Path, reader: Any) -> Iterator[tuple[int, list[str]]]:
    """(line the row ends on, fields) of each row; a CSV syntax error fails the whole file,
    since where the next row starts is then unknown."""
    ended = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _csv_error(f"{file} line {ended + 1}", exc) from exc
        ended = reader.line_num
        yield ended, row


def _csv_error(where: str, exc: csv.Error) -> FormatError:
    if "unexpected end of data" in str(exc):
        return FormatError(
            f"{where}: a quoted field opens here and is never closed; close the quote "
            '(a quote inside a field is written "")'
        )
    if "field larger than field limit" in str(exc):
        return FormatError(
            f"{where}: a field runs past {csv.field_size_limit():,} characters, far more than an abstract; "
            'close the quote that opens it, or shorten the field (a quote inside a field is written "")'
        )
    return FormatError(f'{where}: not valid CSV ({exc}); quote the whole field and write a quote inside it as ""')


def _check_width(row: list[str], columns: int, delimiter: str, where: str) -> None:
    """A row with more fields than the header lost a field boundary; empty extras (a trailing comma) are fine."""
    if any(field.strip() for field in row[columns:]):
        raise BadRecordError(
            where,
            f"{len(row)} fields but the header names {columns} columns",
            f'quote a field that holds a {_DELIMITER_NAMES.get(delimiter, repr(delimiter))} ("..."), '
            "or remove the extra fields",
        )


_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}
