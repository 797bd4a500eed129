"""Record shapes paperbot recognises inside JSON lines and JSON arrays, without flags: the arXiv
metadata snapshot, OpenReview notes (API v1 and v2) and Semantic Scholar papers, each turned into
the flat fields ingest.records reads (abstract, title, authors, year, venue, url, doi, keywords, id).

Recognised by structure only, never by guessing from values: `content` holding a title or abstract
is an OpenReview note; `paperId` or `externalIds` a Semantic Scholar paper; `categories` (a string)
with `update_date`, `versions` or an arXiv id an arXiv record. Anything else is a flat record and is
returned as it is. Knows nothing of files, notes or limits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

FLAT = "flat"
ARXIV = "arXiv"
OPENREVIEW = "OpenReview"
SEMANTIC_SCHOLAR = "Semantic Scholar"

# New-style ids (0704.0001, 2301.01234, with an optional version) and old-style ones (hep-th/9901001).
_ARXIV_ID = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?")
_PARENTHESES = re.compile(r"\([^()]*\)")  # affiliations in an arXiv author string: "A (MIT), B"
_AND = re.compile(r",?\s+and\s+")
_VENUE_ID = re.compile(r"^([A-Za-z][\w-]*?)(?:\.cc)?/(\d{4})\b")  # "ICLR.cc/2024/Conference": ICLR, 2024
_YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")


def flatten(obj: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The flat fields of one JSON object, and the name of the shape it was recognised as.

    Example: flatten({"id": "2301.01234", "categories": "cs.LG stat.ML", "update_date": "2023-05-01", ...})
      -> ({"id": "2301.01234", "keywords": ["cs.LG", "stat.ML"], "url": "https://arxiv.org/abs/2301.01234",
           "year": 2023, ...}, 'arXiv')
    """
    for recognise, shape, read in _SHAPES:
        if recognise(obj):
            return read(obj), shape
    return obj, FLAT


def collapse(text: Any) -> Any:
    """Text with every run of whitespace (the snapshot's hard line breaks and indents) made one space.

    Example: collapse("  We study\\n  bandits.") -> 'We study bandits.'; collapse(None) -> None
    """
    return " ".join(text.split()) if isinstance(text, str) else text


# --- arXiv metadata snapshot (Kaggle's arxiv-metadata-oai-snapshot.json, one object a line)


def _is_arxiv(obj: dict[str, Any]) -> bool:
    if not isinstance(obj.get("categories"), str):
        return False
    return "update_date" in obj or "versions" in obj or _arxiv_id(obj.get("id")) is not None


def _arxiv_id(value: Any) -> str | None:
    """Example: _arxiv_id("arXiv:2301.01234v2") -> '2301.01234v2'; _arxiv_id("W123") -> None"""
    if not isinstance(value, str):
        return None
    bare = value.strip().removeprefix("arXiv:").removeprefix("arxiv:")
    return bare if _ARXIV_ID.fullmatch(bare) else None


def _from_arxiv(obj: dict[str, Any]) -> dict[str, Any]:
    paper_id = str(obj.get("id") or "").strip()
    return {
        "id": paper_id or None,
        "title": collapse(obj.get("title")),
        "abstract": collapse(obj.get("abstract")),
        "authors": _arxiv_authors(obj),
        "year": _arxiv_year(obj),
        "venue": collapse(obj.get("journal-ref")),
        "url": f"https://arxiv.org/abs/{paper_id}" if paper_id else None,
        "doi": obj.get("doi"),
        "keywords": obj["categories"].split(),
    }


def _arxiv_authors(obj: dict[str, Any]) -> Any:
    """Names from `authors_parsed` ([last, first, suffix] each) when the record has it, else from the
    `authors` string, whose commas and 'and' both separate names.

    Example: {"authors": "A. Author (MIT), B. Author and C. Author"} -> ['A. Author', 'B. Author', 'C. Author']
    """
    parsed = obj.get("authors_parsed")
    if isinstance(parsed, list) and parsed and all(isinstance(p, list) for p in parsed):
        names = [" ".join(str(part) for part in (p[1:2] + p[:1] + p[2:3]) if part) for p in parsed]
        return [collapse(n) for n in names if n.strip()]
    text = obj.get("authors")
    if not isinstance(text, str):
        return text
    text = collapse(text)
    while _PARENTHESES.search(text):  # nested: "B ((1) MIT, (2) ETH)"
        text = _PARENTHESES.sub("", text)
    return [name.strip() for name in _AND.sub(", ", text).split(",") if name.strip()]


def _arxiv_year(obj: dict[str, Any]) -> int | None:
    """The year the paper first appeared: its first version's date, else the year its new-style id
    encodes ('2301.01234' -> 2023; 'hep-th/9901001' -> 1999), else `update_date`.

    `update_date` is when the record last changed, which for old papers can be decades later (the
    snapshot's metadata was re-processed in bulk), so `--where "year>=2023"` on it would keep them.
    Example: {"versions": [{"created": "Mon, 2 Apr 2007 19:18:42 GMT"}], "update_date": "2008-11-13"} -> 2007
    """
    versions = obj.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        created = _YEAR.search(str(versions[0].get("created", "")))
        if created:
            return int(created.group(1))
    paper_id = _arxiv_id(obj.get("id"))
    if paper_id:
        yy = paper_id.split("/")[-1][:2]
        if yy.isdigit():
            # e.g. 91 -> 1991 (arXiv began in 1991); 07 -> 2007
            return 1900 + int(yy) if int(yy) >= 91 else 2000 + int(yy)
    updated = _YEAR.search(str(obj.get("update_date", "")))
    return int(updated.group(1)) if updated else None


# --- OpenReview notes: API v1 (content values as they are) and v2 (each under {"value": ...})


def _is_openreview(obj: dict[str, Any]) -> bool:
    content = obj.get("content")
    return isinstance(content, dict) and ("title" in content or "abstract" in content)


def _from_openreview(obj: dict[str, Any]) -> dict[str, Any]:
    content = {key: _value(item) for key, item in obj["content"].items()}
    venue = collapse(content.get("venue"))
    note_id = obj.get("id") if isinstance(obj.get("id"), str) else None
    forum = obj.get("forum") if isinstance(obj.get("forum"), str) else note_id
    return {
        "id": note_id,
        "title": content.get("title"),
        "abstract": content.get("abstract"),
        "authors": content.get("authors"),
        "year": _openreview_year(obj, content, venue),
        "venue": venue,
        "url": f"https://openreview.net/forum?id={forum}" if forum else None,
        "doi": content.get("doi"),
        "keywords": content.get("keywords"),
    }


def _value(item: Any) -> Any:
    """Example: _value({"value": "A title"}) -> 'A title' (API v2); _value("A title") -> 'A title' (v1)"""
    return item.get("value") if isinstance(item, dict) and "value" in item else item


def _openreview_year(obj: dict[str, Any], content: dict[str, Any], venue: Any) -> int | None:
    """The year in the venue ('ICLR 2024 poster': the year the paper is cited with), else in the
    conference's id ('ICLR.cc/2024/Conference'), else the year of the note's publication, creation or
    true creation date (milliseconds since 1970).

    A paper submitted to ICLR 2024 was created in September 2023, so the venue comes first. The id
    gives only a year, never the venue: a note under ICLR.cc/2019 may have been rejected there.
    Example: {"cdate": 1695168000000}, no venue or conference id -> 2023
    """
    in_venue = _YEAR.search(venue) if isinstance(venue, str) else None
    if in_venue:
        return int(in_venue.group(1))
    for conference in (content.get("venueid"), obj.get("domain"), obj.get("invitation")):
        match = _VENUE_ID.match(conference) if isinstance(conference, str) else None
        if match:
            return int(match.group(2))
    for key in ("pdate", "cdate", "tcdate"):
        stamp = obj.get(key)
        if isinstance(stamp, int | float) and not isinstance(stamp, bool) and 0 < stamp < 4_102_444_800_000:
            return datetime.fromtimestamp(stamp / 1000, tz=UTC).year  # before 2100
    return None


# --- Semantic Scholar: the Graph API's paper objects, and the bulk datasets' lower-case keys


def _is_semantic_scholar(obj: dict[str, Any]) -> bool:
    return any(key in obj for key in ("paperId", "externalIds", "externalids", "corpusid"))


def _from_semantic_scholar(obj: dict[str, Any]) -> dict[str, Any]:
    ids = obj.get("externalIds") or obj.get("externalids")
    ids = ids if isinstance(ids, dict) else {}
    paper_id = obj.get("paperId") or obj.get("corpusid") or obj.get("corpusId")
    journal = obj.get("journal")
    venue = obj.get("venue") or (journal.get("name") if isinstance(journal, dict) else None)
    fields = obj.get("fieldsOfStudy") or [
        f.get("category") for f in obj.get("s2FieldsOfStudy") or [] if isinstance(f, dict) and f.get("category")
    ]
    return {
        "id": paper_id,
        "title": obj.get("title"),
        "abstract": obj.get("abstract"),
        "authors": obj.get("authors"),
        "year": obj.get("year") or obj.get("publicationDate") or obj.get("publicationdate"),
        "venue": venue,
        "url": _s2_url(obj, ids, paper_id),
        "doi": ids.get("DOI") or ids.get("doi"),
        "keywords": list(dict.fromkeys(fields)) if isinstance(fields, list) else None,
    }


def _s2_url(obj: dict[str, Any], ids: dict[str, Any], paper_id: Any) -> Any:
    """The paper's arXiv page when it has one: open to every reader, and an id the arXiv snapshot's
    copy of the paper shares (ingest.identity merges the two by it); else Semantic Scholar's page.

    Example: {"externalIds": {"ArXiv": "2305.14002"}, "url": "https://www.semanticscholar.org/paper/3f2a"}
      -> 'https://arxiv.org/abs/2305.14002'
    """
    arxiv = _arxiv_id(ids.get("ArXiv") or ids.get("arxiv"))
    if arxiv:
        return f"https://arxiv.org/abs/{arxiv}"
    if obj.get("url") or not isinstance(paper_id, str) or not paper_id:
        return obj.get("url")
    return f"https://www.semanticscholar.org/paper/{paper_id}"


# Checked in this order: an OpenReview note may carry ids, and a Semantic Scholar paper a category.
_SHAPES: tuple[tuple[Callable[[dict[str, Any]], bool], str, Callable[[dict[str, Any]], dict[str, Any]]], ...] = (
    (_is_openreview, OPENREVIEW, _from_openreview),
    (_is_semantic_scholar, SEMANTIC_SCHOLAR, _from_semantic_scholar),
    (_is_arxiv, ARXIV, _from_arxiv),
)
