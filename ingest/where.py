"""`ingest --where EXPR`: conditions on a record's fields, parsed once and matched against each
record as it is read, so that only the records wanted are kept (a 2.7-million-line arXiv snapshot
can yield the 40,000 papers a user asks for).

An expression is FIELD OP VALUE. OP is `~` (contains) or `!~`, `=` or `!=` (equal, ignoring case
and spacing), or `>=`, `<=`, `>`, `<` (numbers: only `year`). A list field (authors, keywords)
matches `~` or `=` when any of its items does. Knows nothing of files or formats.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ingest.records import RawRecord

# The field an expression may name -> the RawRecord field it reads ("text" is the abstract).
FIELDS = {
    "title": "title",
    "authors": "authors",
    "author": "authors",
    "year": "year",
    "venue": "venue",
    "url": "url",
    "doi": "doi",
    "keywords": "keywords",
    "categories": "keywords",
    "abstract": "text",
    "text": "text",
}
FIELD_LIST = "title, authors (author), year, venue, url, doi, keywords (categories), abstract (text)"
_NUMERIC = {">=", "<=", ">", "<"}
# Longest operators first, so that ">=" is not read as ">" followed by "=2023".
_EXPRESSION = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(!~|!=|>=|<=|==|=|~|>|<)\s*(.*?)\s*$", re.DOTALL)


class WhereError(ValueError):
    """An expression that cannot be read; its message names the expression and says how to write one."""


@dataclass(frozen=True)
class Condition:
    """One parsed expression. Example: parse('year>=2023') -> Condition('year', '>=', '2023', 'year>=2023')"""

    field: str  # the RawRecord field read ("text" for the abstract)
    op: str
    value: str  # a year's digits, or text in lower case with single spaces
    expression: str

    def holds(self, value: Any) -> bool:
        """Whether the record's value of `field` satisfies this condition; a missing value satisfies
        only `!=` and `!~`. Example: parse('categories~cs.LG').holds(('cs.LG', 'stat.ML')) -> True"""
        if self.op in _NUMERIC or self.field == "year":
            return _compare(value, self.op, int(self.value))
        items = value if isinstance(value, tuple) else () if value is None else (value,)
        if self.op in ("~", "!~"):
            found = any(self.value in _folded(str(item)) for item in items)
        else:
            found = any(self.value == _folded(str(item)) for item in items)
        return found if self.op in ("~", "=") else not found


def parse(expression: str) -> Condition:
    """One expression, or WhereError saying what is wrong with it and which fields there are.

    Example: parse('categories~cs.LG') -> Condition('keywords', '~', 'cs.lg', 'categories~cs.LG')
    """
    match = _EXPRESSION.match(expression)
    if not match:
        raise WhereError(
            f"--where {expression!r}: not FIELD OP VALUE; write e.g. --where 'categories~cs.LG' or "
            f"--where 'year>=2023' (OP: ~ !~ = != >= <= > <; fields: {FIELD_LIST})"
        )
    name, op, value = match.group(1).lower(), match.group(2), _unquoted(match.group(3))
    op = "=" if op == "==" else op
    if name not in FIELDS:
        raise WhereError(f"--where {expression!r}: no field {match.group(1)!r}; the fields are {FIELD_LIST}")
    if not value:
        raise WhereError(f"--where {expression!r}: no value after {op!r}; write e.g. --where 'venue=ICLR 2024'")
    field = FIELDS[name]
    if field == "year":
        if op in ("~", "!~"):
            raise WhereError(f"--where {expression!r}: the year is a number; compare it with = != >= <= > <")
        if not re.fullmatch(r"\d{1,4}", value):
            raise WhereError(f"--where {expression!r}: {value!r} is not a year; write e.g. --where 'year>=2023'")
    elif op in _NUMERIC:
        raise WhereError(
            f"--where {expression!r}: {op} compares numbers, and only year is one; use ~ (contains) or = for {name}"
        )
    return Condition(field, op, value if field == "year" else _folded(value), expression)


class RecordFilter:
    """Every condition of the `--where` expressions given, all of which a record must meet, and a
    count of the records it left out (the ingest summary's `filtered_out`)."""

    def __init__(self, expressions: Iterable[str]) -> None:
        self.conditions = tuple(parse(e) for e in expressions)
        self.left_out = 0

    def keeps(self, value: Callable[[str], Any]) -> bool:
        """Whether the record whose field values `value(field)` gives meets every condition; a record
        left out is counted. Example: RecordFilter(['year>=2023']).keeps({'year': 2021}.get) -> False"""
        if all(c.holds(value(c.field)) for c in self.conditions):
            return True
        self.left_out += 1
        return False

    def keeps_record(self, record: RawRecord) -> bool:
        """`keeps` for a record already read (seed text, BibTeX, RIS)."""
        return self.keeps(lambda field: getattr(record, field))


def keep_records(records: Iterable[RawRecord], where: RecordFilter | None) -> list[RawRecord]:
    """The records `where` keeps (all of them when it is None). Example: 3 records, 1 from 2021, year>=2023 -> 2"""
    return list(records) if where is None else [r for r in records if where.keeps_record(r)]


def _compare(value: Any, op: str, number: int) -> bool:
    """Example: _compare(2024, '>=', 2023) -> True; _compare(None, '>=', 2023) -> False (no year: only != holds)"""
    if not isinstance(value, int):
        return op == "!="
    return {
        ">=": value >= number,
        "<=": value <= number,
        ">": value > number,
        "<": value < number,
        "=": value == number,
        "!=": value != number,
    }[op]


def _folded(text: str) -> str:
    """Example: _folded('  ICLR  2024 ') -> 'iclr 2024'"""
    return " ".join(text.split()).casefold()


def _unquoted(value: str) -> str:
    """A value written in quotes inside the expression. Example: _unquoted('"ICLR 2024"') -> 'ICLR 2024'"""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value
