"""One abstract as read (RawRecord), and how a JSON object or CSV row becomes one.

Knows the field names abstract files use and how to read their values; knows nothing of
file formats, vectors or the store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.errors import BadRecordError
from bot.types import Source

ABSTRACT_FIELDS = ("abstract", "text")
ID_FIELDS = ("id", "_id", "paper_id", "doc_id")
YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
# Longest abstracts in the shared corpora: 2,559 characters (8,647 ML conference papers) and
# 10,000 (SciFact, whose longest texts are cut there). Twice that is no abstract: a whole file
# read as one paragraph, say, which took a minute to embed.
MAX_ABSTRACT_CHARS = 20_000


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


def from_mapping(obj: dict[str, Any], file: Path, where: str, record: int) -> RawRecord:
    """The record of one JSON object or CSV row; raises BadRecordError if it has no abstract."""
    abstract = next((obj[f] for f in ABSTRACT_FIELDS if isinstance(obj.get(f), str)), None)
    if abstract is None or not abstract.strip():
        fields = ", ".join(sorted(obj)) or "none"
        raise BadRecordError(
            where,
            f"no 'abstract' or 'text' field with text (fields: {fields})",
            "add the abstract or remove the record",
        )
    check_length(abstract.strip(), where, "shorten it or remove the record")
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


def check_length(abstract: str, where: str, fix: str) -> None:
    """Raise BadRecordError if `abstract` is longer than any abstract is (MAX_ABSTRACT_CHARS)."""
    if len(abstract) > MAX_ABSTRACT_CHARS:
        raise BadRecordError(
            where,
            f"an abstract of {len(abstract):,} characters, more than the {MAX_ABSTRACT_CHARS:,} an abstract can have",
            fix,
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
    match = YEAR.search(str(value)) if value not in (None, "") else None
    return int(match.group(1)) if match else None
