"""Read structured abstract files, JSON lines, JSON arrays and CSV, into raw records.

Knows these formats; what a record's fields mean is ingest.records' job, and the arXiv, OpenReview
and Semantic Scholar shapes ingest.shapes'. JSON lines are read as a stream, a line at a time, and
`where` (`ingest --where`) leaves records out as they are read, so a 4 GB snapshot never sits in
memory. A bad record raises BadRecordError, or with `skip_bad` becomes a warning; a record of a
known shape without an abstract is skipped and counted in one warning; a bad file raises FormatError.
"""

from __future__ import annotations

import csv
import io
import json
import re
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from bot.errors import BadRecordError, FormatError
from bot.text import jsonl
from ingest import shapes
from ingest.decoding import LineStream, split_lines
from ingest.records import ABSTRACT_FIELDS, Limits, Notes, RawRecord, from_mapping, peek
from ingest.where import RecordFilter

Say = Callable[[str], None]  # where a line of reading progress goes (the CLI: stderr)
# A file that takes longer than this to read says how far it got, this often (a 4 GB snapshot: a
# minute or two); a file read faster says nothing.
PROGRESS_EVERY = 10.0


def read_jsonl(
    file: Path,
    lines: LineStream,
    skip_bad: bool,
    warnings: list[str],
    limits: Limits,
    where: RecordFilter | None = None,
    say: Say | None = None,
) -> Iterator[RawRecord]:
    """The records of a JSON-lines file, one object per line, read from `lines` as they come (see
    from_mapping for `limits`); raises FormatError for a file with nothing but blank lines."""
    reader = _Objects(file, warnings, limits, where)
    progress = _Progress(file, lines, say)
    blank = True
    line_no = 0
    for line_no, line in lines:
        progress.tick(line_no, reader.kept)
        if not line.strip():
            continue
        blank = False
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
            record = reader.read(obj, f"{file} line {line_no}", line_no)
        except BadRecordError as exc:
            if not skip_bad:
                raise
            warnings.append(exc.skipped)
            continue
        if record is not None:
            yield record
    if blank:
        raise FormatError(f"{file}: the file is empty; add abstracts or remove it from the list")
    progress.done(line_no, reader.kept)
    reader.finish()


class _Objects:
    """One file's JSON objects made records: its shape recognised, `where` applied, its notes kept,
    and the records of a known shape that have no abstract counted."""

    SHOWN = 3

    def __init__(self, file: Path, warnings: list[str], limits: Limits, where: RecordFilter | None) -> None:
        self.file, self.warnings, self.limits, self.where = file, warnings, limits, where
        self.notes = Notes(file)
        self.kept = 0
        self._missing: dict[str, list[str]] = {}  # shape -> the first few ids (or lines) without an abstract
        self._missing_count: dict[str, int] = {}

    def read(self, obj: dict[str, Any], at: str, number: int) -> RawRecord | None:
        """The record of `obj` (found `at` "FILE line N"), or None when the filter leaves it out or it is
        of a known shape and has no abstract (S2 dumps are full of those); raises BadRecordError as
        from_mapping does."""
        flat, shape = shapes.flatten(obj)
        if self.where is not None and not self.where.keeps(partial(peek, flat)):
            return None
        if shape != shapes.FLAT and peek(flat, "text") is None:
            count = self._missing_count[shape] = self._missing_count.get(shape, 0) + 1
            if count <= self.SHOWN:
                ident = flat.get("id")
                self._missing.setdefault(shape, []).append(
                    str(ident) if ident not in (None, "") else at.removeprefix(f"{self.file} ")
                )
            return None
        record = from_mapping(flat, self.file, at, number, self.notes, self.limits)
        self.kept += 1
        return record

    def finish(self) -> None:
        """Say what was noted, and how many records of each shape had no abstract."""
        self.warnings.extend(self.notes.lines())
        for shape, count in self._missing_count.items():
            shown = ", ".join(self._missing[shape])
            more = f" and {count - self.SHOWN:,} more" if count > self.SHOWN else ""
            records = "record" if count == 1 else "records"
            self.warnings.append(
                f"{self.file}: skipped {count:,} {shape} {records} without an abstract ({shown}{more})"
            )


class _Progress:
    """Lines like 'reading arxiv.jsonl: 1,200,000 lines, 43% of 4.0 GB, 12,345 kept, 52,000 lines/s'
    every PROGRESS_EVERY seconds while a file is read, and one when it is done if any was said."""

    def __init__(self, file: Path, lines: LineStream, say: Say | None, clock: Callable[[], float] = time.monotonic):
        self.file, self.lines, self.say, self.clock = file, lines, say, clock
        self.started = self.last = clock()
        self.said = False

    def tick(self, line_no: int, kept: int) -> None:
        if self.say is None or line_no % 1024:  # the clock is read once in 1,024 lines
            return
        now = self.clock()
        if now - self.last < PROGRESS_EVERY:
            return
        self.last, self.said = now, True
        share = self.lines.position / self.lines.size if self.lines.size else 1.0
        rate = line_no / max(now - self.started, 1e-9)
        self.say(
            f"reading {self.file.name}: {line_no:,} lines, {share:.0%} of {_size(self.lines.size)}, "
            f"{kept:,} kept, {rate:,.0f} lines/s"
        )

    def done(self, line_no: int, kept: int) -> None:
        if self.say is not None and self.said:
            seconds = self.clock() - self.started
            self.say(f"read {self.file.name}: {line_no:,} lines in {seconds:,.0f} s, {kept:,} kept")


def _size(size: int) -> str:
    """Example: _size(4_000_000_000) -> '4.0 GB'; _size(52_000) -> '0.1 MB'"""
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.1f} MB"


def read_json(
    file: Path, text: str, skip_bad: bool, warnings: list[str], limits: Limits, where: RecordFilter | None = None
) -> Iterator[RawRecord]:
    """The records of a .json file holding an array of objects, like [{"abstract": "..."}], that
    `where` keeps (the whole array is read: a file this large is written as JSON lines)."""
    reader = _Objects(file, warnings, limits, where)
    for record, (line_no, obj) in enumerate(_array_items(file, text), start=1):
        at = f"{file} record {record} (line {line_no})"
        try:
            if not isinstance(obj, dict):
                raise BadRecordError(
                    at,
                    f"expected a JSON object, got {type(obj).__name__}",
                    'make each item of the array an object like {"abstract": "..."}',
                )
            kept = reader.read(obj, at, record)
        except BadRecordError as exc:
            if not skip_bad:
                raise
            warnings.append(exc.skipped)
            continue
        if kept is not None:
            yield kept
    reader.finish()


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
            raise FormatError(f"{file} line {exc.lineno}: {jsonl.problem(exc)}; fix the file") from exc
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
        return FormatError(f"{file} line {exc.lineno}: {jsonl.problem(exc)}; fix the file")
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


def read_csv(
    file: Path, text: str, skip_bad: bool, warnings: list[str], limits: Limits, where: RecordFilter | None = None
) -> Iterator[RawRecord]:
    """The records of a CSV file with a header row naming an 'abstract' or 'text' column, that `where` keeps."""
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
        at = f"{file} line {line_no}"  # the physical line the row ends on (quoted fields may span lines)
        try:
            _check_width(row, len(columns), delimiter, at)
            fields = {c: v for c, v in zip(columns, row, strict=False) if c}
            if where is not None and not where.keeps(partial(peek, fields)):
                continue
            yield from_mapping(fields, file, at, number, notes, limits)
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
