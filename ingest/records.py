"""One abstract as read (RawRecord), and how a JSON object or CSV row becomes one.

Knows the field names abstract files use and how to read their values; knows nothing of
file formats, vectors or the store.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from bot.errors import BadRecordError
from bot.settings import StoreSettings
from bot.text.clean import clean_json, replaced_note
from bot.types import Source

ABSTRACT_FIELDS = ("abstract", "text")
ID_FIELDS = ("id", "_id", "paper_id", "doc_id")
YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
# A title, venue or URL longer than this is something else (an abstract in the wrong column, a
# whole file): titles run to a few hundred characters, and a title leads every chunk embedded.
_MAX_FIELD_CHARS = 1_000


@dataclass(frozen=True)
class Limits:
    """How long a record's abstract may be; ingest passes the configured `storage` values, whose
    descriptions say where the numbers come from (the defaults serve tests and tools)."""

    abstract_chars: int = StoreSettings.model_validate({}).max_abstract_chars  # longer: noted, or a bad paragraph
    record_chars: int = StoreSettings.model_validate({}).max_record_chars  # longer: cut, with a warning

    @classmethod
    def of(cls, storage: StoreSettings) -> Limits:
        return cls(storage.max_abstract_chars, storage.max_record_chars)


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
    doi: str | None = None
    keywords: tuple[str, ...] = ()


class Notes:
    """What was noted about one file's records, by kind; a few of each kind are said, the rest counted."""

    SHOWN = 5
    LEFT_OUT = "fields like these stored without their value"
    LONG = "abstracts like these kept whole"
    CUT = "abstracts like these cut"
    REPLACED = "fields like these with characters replaced by U+FFFD"

    def __init__(self, file: Path) -> None:
        self.file = file
        self._kinds: dict[str, list[str]] = {}

    def add(self, kind: str, note: str) -> None:
        self._kinds.setdefault(kind, []).append(note)

    def lines(self) -> list[str]:
        """The notes to show. Example: 7 notes of one kind -> the first 5, then
        '<file>: 2 more fields like these stored without their value'"""
        out: list[str] = []
        for kind, notes in self._kinds.items():
            out.extend(notes[: self.SHOWN])
            if len(notes) > self.SHOWN:
                out.append(f"{self.file}: {len(notes) - self.SHOWN:,} more {kind}")
        return out


def from_mapping(obj: dict[str, Any], file: Path, where: str, record: int, notes: Notes, limits: Limits) -> RawRecord:
    """The record of one JSON object or CSV row; raises BadRecordError if it has no abstract.

    A metadata field of the wrong kind is left out, an abstract over `limits.abstract_chars` characters
    is kept, one over `limits.record_chars` is cut, and a lone surrogate (a "\\ud800" escape) becomes
    U+FFFD, each with a note in `notes` saying so.
    Example: {"abstract": "A.", "year": "nineteen"} -> year None, and a note "...: 'year' is 'nineteen', not a year"
    """
    obj, replaced = clean_json(obj)
    for name, count in replaced.items():
        notes.add(Notes.REPLACED, f"{where}: '{name}' held {replaced_note(count)}")
    abstract = next((obj[f] for f in ABSTRACT_FIELDS if isinstance(obj.get(f), str) and obj[f].strip()), None)
    if abstract is None or not abstract.strip():
        given = next((f for f in ABSTRACT_FIELDS if f in obj), None)
        if given is None:
            problem = f"no 'abstract' or 'text' field with text (fields: {', '.join(sorted(obj)) or 'none'})"
        elif isinstance(obj[given], str | type(None)):
            problem = f"its '{given}' field is empty"
        else:
            problem = f"its '{given}' field is {_kind(obj[given])}, not text"
        raise BadRecordError(where, problem, "add the abstract or remove the record")
    abstract = abstract.strip()
    if len(abstract) > limits.record_chars:
        notes.add(Notes.CUT, f"{where}: {_cut_note(len(abstract), limits.record_chars)}")
        abstract = cut(abstract, limits.record_chars)
    elif len(abstract) > limits.abstract_chars:
        # A record says where its abstract ends, unlike a paragraph of text: a long one is meant
        # (BEIR corpora hold full texts), so it is kept and only noted.
        notes.add(
            Notes.LONG,
            f"{where}: an abstract of {len(abstract):,} characters, more than the {limits.abstract_chars:,} "
            "abstracts have; kept (check that 'abstract' or 'text' holds the abstract)",
        )
    source_id = next((_id(obj[f]) for f in ID_FIELDS if obj.get(f) not in (None, "")), None)

    def field(name: str, read: Callable[[Any], Any], expected: str) -> Any:
        value = obj.get(name)
        if _missing(value):
            return None
        result = read(value)
        if result is None:
            notes.add(Notes.LEFT_OUT, f"{where}: '{name}' is {_show(value)}, not {expected}; stored without it")
        elif isinstance(result, str) and len(result) > _MAX_FIELD_CHARS:
            notes.add(
                Notes.LEFT_OUT,
                f"{where}: '{name}' is {len(result):,} characters long, more than any {name} "
                f"({_MAX_FIELD_CHARS:,}); stored without it",
            )
            return None
        return result

    return RawRecord(
        text=abstract,
        source=Source(file=str(file.resolve()), record=record, source_id=source_id),
        title=field("title", _text, "text"),
        authors=field("authors", partial(_authors, where=where, notes=notes), "a list of names or 'A; B'") or (),
        year=field("year", _year, "a year"),
        venue=field("venue", _text, "text"),
        url=field("url", _text, "text"),
        doi=field("doi", doi_of, "a DOI like 10.1145/3580305.3599256"),
        keywords=field("keywords", keywords_of, "a list of keywords or 'a; b'") or (),
    )


def peek(obj: dict[str, Any], name: str) -> Any:
    """Field `name` of a flat record as from_mapping would store it, read without notes: what
    `ingest --where` matches before a record is read whole; None or () when missing or unreadable.

    `name` is a RawRecord field, or "text" for the abstract.
    Example: peek({"year": "2023-05-01"}, "year") -> 2023; peek({"keywords": "a; b"}, "keywords") -> ('a', 'b')
    """
    if name == "text":
        return next((obj[f].strip() for f in ABSTRACT_FIELDS if isinstance(obj.get(f), str) and obj[f].strip()), None)
    value = obj.get(name)
    if _missing(value):
        return () if name in _LISTS else None
    read = _PEEK[name]
    return read(value) or (() if name in _LISTS else None)


def cut(text: str, most: int) -> str:
    """`text` cut to at most `most` characters, at the last space when there is one in the second half.

    Example: cut("one two three", 9) -> 'one two'
    """
    if len(text) <= most:
        return text
    head = text[: most + 1]  # one more: a space just after the limit still ends a whole word
    space = max(head.rfind(" "), head.rfind("\n"))
    return (head[:space] if space > most // 2 else head[:most]).rstrip()


def _cut_note(length: int, most: int) -> str:
    return (
        f"an abstract of {length:,} characters, cut to its first {most:,} so that embedding it takes seconds, "
        "not minutes (PAPERBOT_STORAGE__MAX_RECORD_CHARS sets the limit); check that 'abstract' or 'text' "
        "holds the abstract"
    )


def check_length(abstract: str, where: str, fix: str, max_chars: int) -> None:
    """Raise BadRecordError if `abstract` is longer than any abstract is (`max_chars`)."""
    if len(abstract) > max_chars:
        raise BadRecordError(
            where,
            f"an abstract of {len(abstract):,} characters, more than the {max_chars:,} an abstract can have",
            fix,
        )


# Fewer words than any abstract has: "No abstract available.", "Short.", a stray heading.
_FEWEST_WORDS = 4


# Chinese characters, kana and Hangul syllables: written without spaces, each counts as a word.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def word_count(text: str) -> int:
    """Words as a reader counts them: those between spaces, and each CJK character.

    Example: word_count("NeurIPS 2026 论文列表") -> 6
    """
    return len(text.split()) + len(_CJK.findall(text))


def _kind(value: Any) -> str:
    """A JSON value that is not text, as a message shows it. Example: _kind(12345) -> '12345, a number';
    _kind(["a"]) -> "['a'], a list"; _kind(True) -> 'true'"""
    if isinstance(value, bool):
        return str(value).lower()
    kind = "a number" if isinstance(value, int | float) else "a list" if isinstance(value, list) else "an object"
    return f"{_show(value)}, {kind}"


def too_short(abstract: str) -> str | None:
    """What to say of an abstract too short to be one (it is kept: it may be meant), or None.

    Example: too_short("No abstract available.") -> "an abstract of 3 words ('No abstract available.'), ..."
    """
    words = word_count(abstract)
    if words >= _FEWEST_WORDS:
        return None
    return (
        f"an abstract of {words} word{'s' if words != 1 else ''} ({_show(abstract)}), too short to be one; kept "
        "as a paper: remove it if it is not an abstract"
    )


# What spreadsheets and exports write for "no value": left out without a note.
_PLACEHOLDERS = {"", "n/a", "na", "none", "null", "nan", "unknown", "-", "?"}


def _missing(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in _PLACEHOLDERS
    return value is None or (isinstance(value, list | dict) and not value)


# repr with bounds: a value nested 100 deep or a million items long is shown in a few characters
_REPR = reprlib.Repr()
_REPR.maxstring, _REPR.maxother, _REPR.maxlevel = 40, 40, 3


def _show(value: Any) -> str:
    """Example: _show("nineteen") -> "'nineteen'"; _show(123) -> '123'"""
    shown = _REPR.repr(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _id(value: Any) -> str:
    """A source id as text. Example: _id(7) -> '7'; _id([[1]]) -> '[[1]]'"""
    return value if isinstance(value, str) else str(value) if isinstance(value, int | float) else _show(value)


def _text(value: Any) -> str | None:
    """Text, or a number written as text; None for lists, objects and booleans."""
    if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
        return str(value).strip() or None
    return None


def _authors(value: Any, where: str, notes: Notes | None) -> tuple[str, ...] | None:
    """Names from a list (of names, or of {"name": ...} objects) or a string.

    Example: _authors("Ada Lovelace; Alan Turing", ...) -> ('Ada Lovelace', 'Alan Turing')
    """
    if isinstance(value, list):
        names = [_author_name(a) for a in value]
        bad = [a for a, name in zip(value, names, strict=True) if name is None and not _missing(a)]
        if bad and notes is not None:
            notes.add(Notes.LEFT_OUT, f"{where}: 'authors' holds {_show(bad[0])}, not a name; stored without it")
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


_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.|www\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_DOI = re.compile(r"10\.\d{4,9}/\S+")


def doi_of(value: Any) -> str | None:
    """A DOI in lower case without a resolver prefix, or None for what is not one; of several
    (the arXiv snapshot separates them by spaces), the first.

    Example: doi_of("https://doi.org/10.48550/arXiv.1706.03762") -> '10.48550/arxiv.1706.03762'
    """
    if not isinstance(value, str):
        return None
    first = next(iter(_DOI_PREFIX.sub("", value.strip()).split()), "")
    return first.lower() if _DOI.fullmatch(first) else None


def keywords_of(value: Any) -> tuple[str, ...] | None:
    """Keywords from a list of strings or one string split at ';' (or, without one, at ',').

    Example: keywords_of("causal inference; bandits") -> ('causal inference', 'bandits'); keywords_of(7) -> None
    """
    if isinstance(value, str):
        parts = value.split(";") if ";" in value else value.split(",")
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = value
    else:
        return None
    return tuple(dict.fromkeys(" ".join(p.split()) for p in parts if p.strip()))


def _year(value: Any) -> int | None:
    """A year 1950-2099 in a number or a string. Example: _year("2019-05-01") -> 2019; _year(True) -> None"""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    match = YEAR.search(str(value))
    return int(match.group(1)) if match else None


_LISTS = {"authors", "keywords"}
_PEEK: dict[str, Callable[[Any], Any]] = {
    "title": _text,
    "venue": _text,
    "url": _text,
    "year": _year,
    "doi": doi_of,
    "keywords": keywords_of,
    "authors": partial(_authors, where="", notes=None),
}
