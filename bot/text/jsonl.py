"""Reading JSON and JSON Lines files (one JSON value per line): question, query, history and BEIR
files, and the limits every JSON value paperbot parses is held to.

- A value nested more than MAX_DEPTH lists or objects deep is refused (Python's parser would run
  out of stack further down, with a RecursionError).
- An integer too long for Python to convert (4,300 digits by default) is kept as its digits, a
  string, so the field that reads it says it is not a number it can use.
- Bytes that are not UTF-8 and lone surrogates (a "\\ud800" escape) become U+FFFD, counted per line.

Errors name the file and the line and say what to do; the caller chooses the error type and
the fix to suggest for a bad line. It does not check what the values hold. Abstract files
are read by ingest.readers, which also handles other encodings and skipping bad lines.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.errors import PaperbotError
from bot.text.clean import clean, clean_json, replaced_note

log = logging.getLogger(__name__)

# Far deeper than any record, history or query paperbot writes (an `ask --json` turn is 5 levels),
# and far short of the ~900 levels where json's parser overflows Python's stack.
MAX_DEPTH = 100
# JSON Lines ends a line at a line feed only: U+2028 and form feeds are text inside a string.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class JsonLimitError(ValueError):
    """Valid JSON beyond what paperbot reads: nested more than MAX_DEPTH levels."""


def _int(digits: str) -> int | str:
    """A JSON integer, or its digits when Python refuses to convert that many (over 4,300)."""
    limit = sys.get_int_max_str_digits()
    return digits if limit and len(digits.lstrip("-")) > limit else int(digits)


_DECODER = json.JSONDecoder(parse_int=_int)


def loads(text: str) -> Any:
    """json.loads within paperbot's limits; raises json.JSONDecodeError or JsonLimitError (both ValueError).

    Example: loads('{"year": 9999...9}') (5,000 nines) -> {'year': '9999...9'}
    """
    value, end = raw_decode(text, _skip_space(text, 0))
    if end != len(text) and text[end:].strip():
        raise json.JSONDecodeError("Extra data", text, _skip_space(text, end))
    return value


def raw_decode(text: str, pos: int) -> tuple[Any, int]:
    """The JSON value starting at `pos` in `text` and where it ends, within paperbot's limits."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise _too_deep() from None
    if not _within_depth(value):
        raise _too_deep()
    return value, end


def _too_deep() -> JsonLimitError:
    return JsonLimitError(f"lists or objects nested more than {MAX_DEPTH} levels deep, more than paperbot reads")


def _within_depth(value: Any) -> bool:
    """Whether `value` nests at most MAX_DEPTH lists or objects. Example: [[1]] -> depth 2"""
    stack = [(value, 1)]  # walked with a stack of its own: recursion would meet Python's limit first
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > MAX_DEPTH:
            return False
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return True


_SPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def problem(exc: ValueError) -> str:
    """What is wrong with JSON that `loads` refused. Example: 'not valid JSON (Expecting value, column 1)';
    'not valid JSON (Unterminated string starting at column 23)'"""
    if isinstance(exc, json.JSONDecodeError):
        where = f" column {exc.colno}" if exc.msg.endswith(" at") else f", column {exc.colno}"
        return f"not valid JSON ({exc.msg}{where})"
    return str(exc)


@dataclass(frozen=True)
class Entry:
    """One non-blank line of a JSON Lines file: its value, or why it has none."""

    number: int
    value: Any = None
    problem: str | None = None  # e.g. "not valid JSON (Expecting value, column 1)"
    replaced: int = 0  # characters replaced by U+FFFD: bytes that are not UTF-8, lone surrogates


def _text(path: Path, error: type[PaperbotError], where: str) -> str:
    """The text of `path` ("-": standard input), a byte that is not UTF-8 kept as a lone surrogate (for
    `clean` to count)."""
    try:
        data = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
    except OSError as exc:
        raise error(f"{where}: cannot read the file ({exc.strerror}); check the path") from exc
    return data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")


def entries(path: Path, error: type[PaperbotError]) -> list[Entry]:
    """Every non-blank line of `path`, a UTF-8 JSON Lines file; raises `error` only when it cannot be read.

    Example: entries(Path("q.jsonl"), QueryError) -> [Entry(1, {...}), Entry(3, None, 'not valid JSON (...)')]
    """
    out = []
    for number, raw in enumerate(_LINE_BREAK.split(_text(path, error, str(path))), start=1):
        if not raw.strip():
            continue
        line, bad_bytes = clean(raw)
        try:
            value, found = clean_json(loads(line))
        except ValueError as exc:
            out.append(Entry(number, problem=problem(exc), replaced=bad_bytes))
            continue
        out.append(Entry(number, value, replaced=bad_bytes + sum(found.values())))
    return out


def read(path: Path, error: type[PaperbotError], fix: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line of `path`, a UTF-8 JSON Lines file.

    The first bad line raises `error`; replaced characters are logged as a warning.
    Example: read(Path("q.jsonl"), QueryError, "fix or remove the line") -> (1, {...}), (3, {...})
    """
    for entry in entries(path, error):
        if entry.replaced:
            log.warning("%s line %d: %s", path, entry.number, replaced_note(entry.replaced))
        if entry.problem is not None:
            raise error(f"{path} line {entry.number}: {entry.problem}; {fix}")
        yield entry.number, entry.value


def read_document(
    path: Path, error: type[PaperbotError], where: str, what: str, warnings: list[str] | None = None
) -> list[Any]:
    """The values of `path`: a JSON list's items, a lone JSON value, or one value per line (JSON Lines).

    `where` starts every message (e.g. "--history turns.json") and `what` says what a value is;
    replaced characters are noted in `warnings` (logged without it).
    Example: read_document(Path("turns.jsonl"), QueryError, "--history turns.jsonl", "...") -> [{...}, {...}]
    """
    text, bad_bytes = clean(_text(path, error, where))
    try:
        data = loads(text) if text.strip() else []
        values, found = clean_json(data if isinstance(data, list) else [data])
        replaced = bad_bytes + sum(found.values())
    except JsonLimitError as exc:
        raise error(f"{where}: {exc}; give a list of {what}") from exc
    except ValueError:
        # JSON lines, as `paperbot ask --json >> history.jsonl` writes them
        lines = entries(path, error)
        bad = next((e for e in lines if e.problem is not None), None)
        if bad is not None:
            raise error(f"{where} line {bad.number}: {bad.problem}; give a list of {what} or one per line") from None
        values, replaced = [e.value for e in lines], sum(e.replaced for e in lines)
    if replaced:
        note = f"{where}: {replaced_note(replaced)}"
        if warnings is None:
            log.warning("%s", note)
        else:
            warnings.append(note)
    return values
