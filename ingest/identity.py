"""When two abstracts are one paper: the same DOI or arXiv id, the same text once rendered, or the
same title with a near-identical abstract (an arXiv v1 and v2, a Zotero copy with LaTeX accents);
and how their versions combine into one paper.

Decides identity and combines papers; knows nothing of files, the store or what an ingest writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from difflib import SequenceMatcher

from bot.settings import StoreSettings
from bot.text.normalise import content_hash, normalised, paper_id
from bot.types import Paper, Source

# New-style ids (2301.01234; a version suffix dropped) and old-style ones (hep-th/9901001).
# The month of a new-style id is 01-12, so a key like "2019.12345" is not taken for one.
_ARXIV_ID = r"(\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}|[a-z][a-z\-]*(?:\.[a-z]{2})?/\d{7})(?:v\d+)?"
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/" + _ARXIV_ID, re.IGNORECASE)
_ARXIV_OWN = re.compile(r"(?:arxiv:\s*)?" + _ARXIV_ID, re.IGNORECASE)
# How alike two abstracts under one title must be: storage.same_paper_similarity.
NEAR_IDENTICAL = StoreSettings.model_validate({}).same_paper_similarity
# Two abstracts of one paper share at least this share of their distinct words before they are compared
# word by word: a revised sentence in seven keeps about 0.8, unrelated abstracts under one generic
# title about 0.2. A filter, not the test (storage.same_paper_similarity is).
_SHARED_WORDS = 0.5
# A title that this many papers carry ("Editorial", "Preface", "Reply") names no paper: versions under
# it are found by DOI, arXiv id or text only, and 1,500 editorials are not compared pair by pair.
_GENERIC_TITLE = 20
_METADATA = ("title", "authors", "year", "venue", "url", "doi", "keywords")


def arxiv_id(paper: Paper) -> str | None:
    """The paper's arXiv id, version dropped: from its DOI, an arxiv.org URL, or a source's id that
    is one (the snapshot's `id`, "arXiv:2301.01234").

    Example: a paper with url 'https://arxiv.org/abs/2301.01234v2' -> '2301.01234'
    """
    doi = paper.doi or ""
    if doi.startswith("10.48550/arxiv."):
        return doi.removeprefix("10.48550/arxiv.")
    found = _ARXIV_URL.search(paper.url or "")
    if found:
        return found.group(1).lower()
    for source in paper.sources:
        own = _ARXIV_OWN.fullmatch((source.source_id or "").strip())
        if own:
            return own.group(1).lower()
    return None


def strong_keys(paper: Paper) -> Iterator[str]:
    """Keys two versions of a paper share whatever their text: DOI, arXiv id, and the text's id
    (as read and as rendered, so a BibTeX export of the rendered abstract finds its paper)."""
    yield f"id:{paper.paper_id}"
    yield f"id:{paper_id(paper.text)}"
    yield f"id:{paper_id(paper.display)}"
    if paper.doi:
        yield f"doi:{paper.doi}"
    found = arxiv_id(paper)
    if found:
        yield f"arxiv:{found}"


def title_key(paper: Paper) -> str | None:
    """Titles compared without case, accents' forms, punctuation or spacing."""
    if not paper.title:
        return None
    words = re.findall(r"\w+", normalised(paper.title))
    return "title:" + " ".join(words) if words else None


def near_identical(a: Paper, b: Paper, similarity: float = NEAR_IDENTICAL) -> bool:
    """Whether two abstracts are versions of one text: their rendered words, in order, at least
    `similarity` alike."""
    left, right = normalised(a.display).split(), normalised(b.display).split()
    matcher = SequenceMatcher(None, left, right, autojunk=False)
    # The cheap upper bounds first: under a generic title ("Editorial") most candidates fail them.
    return (
        matcher.real_quick_ratio() >= similarity
        and matcher.quick_ratio() >= similarity
        and matcher.ratio() >= similarity
    )


def _titles_agree(a: Paper, b: Paper) -> bool:
    """A DOI or arXiv id joins two records only when their titles do not differ: the chapters of
    one edited volume are exported with the book's DOI."""
    left, right = title_key(a), title_key(b)
    return left is None or right is None or left == right


def _shared(a: Paper, b: Paper, keys: set[str]) -> bool:
    """Whether `a` and `b`, sharing `keys`, are one paper by them."""
    return any(k.startswith("id:") for k in keys) or (bool(keys) and _titles_agree(a, b))


def same_paper(a: Paper, b: Paper, similarity: float = NEAR_IDENTICAL) -> bool:
    """Example: the arXiv v1 and the Zotero copy of one paper (same title, one sentence revised) -> True"""
    if _shared(a, b, set(strong_keys(a)) & set(strong_keys(b))):
        return True
    key = title_key(a)
    return key is not None and key == title_key(b) and near_identical(a, b, similarity)


class Index:
    """Papers looked up by identity: each key names the papers holding it.

    Example: Index(stored).match(paper) -> the stored paper it is a version of, or None
    """

    def __init__(self, papers: Iterable[Paper] = (), similarity: float = NEAR_IDENTICAL) -> None:
        self.similarity = similarity
        self._by_key: dict[str, list[str]] = {}
        self._papers: dict[str, Paper] = {}
        for paper in papers:
            self.add(paper)

    def add(self, paper: Paper) -> None:
        self._add(paper, list(strong_keys(paper)), title_key(paper))

    def match(self, paper: Paper) -> Paper | None:
        """The first indexed paper `paper` is a version of."""
        return self._match(paper, list(strong_keys(paper)), title_key(paper))

    def place(self, paper: Paper) -> Paper | None:
        """`match`, then `add` the paper, its keys worked out once (they hash its text twice)."""
        keys, title = list(strong_keys(paper)), title_key(paper)
        found = self._match(paper, keys, title)
        self._add(paper, keys, title)
        return found

    def _add(self, paper: Paper, keys: list[str], title: str | None) -> None:
        self._papers[paper.paper_id] = paper
        for key in (*keys, title):
            if key:
                self._by_key.setdefault(key, []).append(paper.paper_id)

    def _match(self, paper: Paper, keys: list[str], title: str | None) -> Paper | None:
        for key in keys:
            for pid in self._by_key.get(key, ()):
                if _shared(paper, self._papers[pid], {key}):
                    return self._papers[pid]
        candidates = self._by_key.get(title, []) if title else []
        if len(candidates) > _GENERIC_TITLE:
            return None
        words = _words(paper)
        for pid in candidates:
            # Versions share most of their distinct words; the word-by-word comparison is what costs.
            other = _words(self._papers[pid])
            shared = len(words & other) >= _SHARED_WORDS * len(words | other)
            if shared and near_identical(self._papers[pid], paper, self.similarity):
                return self._papers[pid]
        return None


def combine(versions: list[Paper], keep_id: str | None = None) -> Paper:
    """One paper from versions of it, a stored one first: every source, the newest abstract (latest
    year, then the longest, then the first read, so that reading the same files again in any order
    changes nothing) with its year, each other field from the version with the most metadata that
    has it, the first label. Its id is `keep_id` (a stored paper's, so reading lists keep it) or
    the newest text's."""
    # A version that only renders an earlier one's text (a paperbot export read back) is not newer.
    seen: set[str] = set()
    texts = []
    for order, version in enumerate(versions):
        rendered = normalised(version.display)
        if rendered not in seen:
            seen.add(rendered)
            texts.append((version.year or 0, len(rendered), -order, version))
    newest = max(texts, key=lambda t: t[:3])[3]
    richest = sorted(versions, key=_filled, reverse=True)
    fields = {name: next((v for p in richest if (v := getattr(p, name))), getattr(newest, name)) for name in _METADATA}
    fields["year"] = newest.year or fields["year"]
    sources: dict[tuple[str, str], Source] = {}
    for version in versions:
        for source in version.sources:
            sources.setdefault(source.slot(), source)
    merged = replace(
        newest,
        paper_id=keep_id or paper_id(newest.text),
        label=next((p.label for p in versions if p.label), ""),
        sources=tuple(sources.values()),
        **fields,
    )
    return replace(merged, content_hash=content_hash(normalised(merged.text), merged.title))


def _words(paper: Paper) -> frozenset[str]:
    return frozenset(normalised(paper.display).split())


def _filled(paper: Paper) -> int:
    return sum(1 for name in _METADATA if getattr(paper, name))
