"""One abstract as read (RawRecord), and how a JSON object or CSV row becomes one.

Knows the field names abstract files use and how to read their values; knows nothing of
file formats, vectors or the store.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from bot.errors import BadRecordError
from bot.settings import StoreSettings
from bot.types import Source

ABSTRACT_FIELDS = ("abstract", "text")
ID_FIELDS = ("id", "_id", "paper_id", "doc_id")
YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
# The longest abstract when a caller names no limit (tests, tools); ingest passes the configured
# `storage.max_abstract_chars`, whose description says where the number comes from.
DEFAULT_MAX_CHARS = StoreSettings.model_validate({}).max_abstract_chars


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


def from_mapping(
    obj: dict[str, Any], file: Path, where: str, record: int, notes: list[str], max_chars: int
) -> RawRecord:
    """The record of one JSON object or CSV row; raises BadRecordError if it has no abstract.

    A metadata field of the wrong kind is left out, and an abstract over `max_chars` characters is
    kept, each with a note in `notes` saying so.
    Example: {"abstract": "A.", "year": "nineteen"} -> year None, and a note "...: 'year' is 'nineteen', not a year"
    """
    abstract = next((obj[f] for f in ABSTRACT_FIELDS if isinstance(obj.get(f), str) and obj[f].strip()), None)
    if abstract is None or not abstract.strip():
        fields = ", ".join(sorted(obj)) or "none"
        raise BadRecordError(
            where,
            f"no 'abstract' or 'text' field with text (fields: {fields})",
            "add the abstract or remove the record",
        )
    if len(abstract.strip()) > max_chars:
        # A record says where its abstract ends, unlike a paragraph of text: a long one is meant
        # (BEIR corpora hold full texts), so it is kept and only noted.
        notes.append(
            f"{where}: an abstract of {len(abstract.strip()):,} characters, more than the {max_chars:,} "
            "abstracts have; kept (check that 'abstract' or 'text' holds the abstract)"
        )
    source_id = next((str(obj[f]) for f in ID_FIELDS if obj.get(f) not in (None, "")), None)

    def field(name: str, read: Callable[[Any], Any], expected: str) -> Any:
        value = obj.get(name)
        if _missing(value):
            return None
        result = read(value)
        if result is None:
            notes.append(f"{where}: '{name}' is {_show(value)}, not {expected}; stored without it")
        return result

    return RawRecord(
        text=abstract.strip(),
        source=Source(file=str(file.resolve()), record=record, source_id=source_id),
        title=field("title", _text, "text"),
        authors=field("authors", partial(_authors, where=where, notes=notes), "a list of names or 'A; B'") or (),
        year=field("year", _year, "a year"),
        venue=field("venue", _text, "text"),
        url=field("url", _text, "text"),
    )


def check_length(abstract: str, where: str, fix: str, max_chars: int) -> None:
    """Raise BadRecordError if `abstract` is longer than any abstract is (`max_chars`)."""
    if len(abstract) > max_chars:
        raise BadRecordError(
            where,
            f"an abstract of {len(abstract):,} characters, more than the {max_chars:,} an abstract can have",
            fix,
        )


# What spreadsheets and exports write for "no value": left out without a note.
_PLACEHOLDERS = {"", "n/a", "na", "none", "null", "nan", "unknown", "-", "?"}


def _missing(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in _PLACEHOLDERS
    return value is None or (isinstance(value, list | dict) and not value)


def _show(value: Any) -> str:
    """Example: _show("nineteen") -> "'nineteen'"; _show(123) -> '123'"""
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _text(value: Any) -> str | None:
    """Text, or a number written as text; None for lists, objects and booleans."""
    if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
        return str(value).strip() or None
    return None


def _authors(value: Any, where: str, notes: list[str]) -> tuple[str, ...] | None:
    """Names from a list (of names, or of {"name": ...} objects) or a string.

    Example: _authors("Ada Lovelace; Alan Turing", ...) -> ('Ada Lovelace', 'Alan Turing')
    """
    if isinstance(value, list):
        names = [_author_name(a) for a in value]
        bad = [a for a, name in zip(value, names, strict=True) if name is None and not _missing(a)]
        if bad:
            notes.append(f"{where}: 'authors' holds {_show(bad[0])}, not a name; stored without it")
        return tuple(name for name in names if name)
    if isinstance(value, str):
        parts = re.split(r";|\band\b|\|", value) if ";" in value or " and " in value else [value]
        if len(parts) == 1 and value.count(",") >= 2:
            parts = value.split(",")
        return tuple(p.strip() for p in parts if p.strip())
    return None


def _author_name(author: Any) -> str | None:
    """Example: _author_name({"name": "Ada Lovelace", "id": 7}) -> 'Ada Lovelace' (Semantic Scholar, OpenAlex)"""
    if isinstance(author, dict):
        author = author.get("name")
    return author.strip() or None if isinstance(author, str) else None


def _year(value: Any) -> int | None:
    """A year 1950-2099 in a number or a string. Example: _year("2019-05-01") -> 2019; _year(True) -> None"""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    match = YEAR.search(str(value))
    return int(match.group(1)) if match else None
