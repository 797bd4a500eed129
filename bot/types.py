"""The small frozen types that stages exchange; never library objects.

Paper and Chunk come out of ingest; Hit and SearchResult out of retrieval; Citation,
AnswerSentence and Answer out of answer composition.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Source:
    """Where a paper was read: a file, its line, and its record number within the file.

    For seed text `record` counts abstracts (1 = first paragraph after the header); for
    JSONL it is the line number and for CSV the row number.
    """

    file: str
    line: int | None = None
    record: int | None = None
    source_id: str | None = None
    collection: str | None = None

    def slot(self) -> tuple[str, str]:
        """The place in a file a paper occupies; an edit keeps the slot and changes the paper."""
        return self.file, self.source_id or f"#{self.record if self.record is not None else self.line}"

    def where(self) -> str:
        """Example: Source('seeds/a.txt', line=3).where() -> 'seeds/a.txt:3'"""
        if self.line is not None:
            return f"{self.file}:{self.line}"
        if self.record is not None:
            return f"{self.file} record {self.record}"
        return self.file

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Source:
        return cls(
            file=str(data["file"]),
            line=data.get("line"),
            record=data.get("record"),
            source_id=data.get("source_id"),
            collection=data.get("collection"),
        )


@dataclass(frozen=True)
class Paper:
    """One distinct abstract, however many files it appears in."""

    paper_id: str
    text: str  # verbatim, as in its first source
    display: str  # markdown/LaTeX rendered readably
    label: str
    content_hash: str
    sources: tuple[Source, ...]
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    url: str | None = None

    def searchable_text(self) -> str:
        """What lexical search indexes: the title, when known, and the rendered abstract."""
        return f"{self.title}. {self.display}" if self.title else self.display

    @property
    def source_id(self) -> str | None:
        """The record's own id, when any of its sources had one."""
        return next((s.source_id for s in self.sources if s.source_id), None)


@dataclass(frozen=True)
class Chunk:
    """A piece of a paper small enough for the embedder."""

    chunk_id: str
    paper_id: str
    position: int
    text: str


@dataclass(frozen=True)
class Hit:
    """One paper found by search, with the evidence behind its score."""

    paper: Paper
    score: float
    lexical: float  # normalised BM25 contribution, 0..1
    dense: float  # best chunk cosine similarity
    matched_terms: tuple[str, ...] = ()
    coverage: float = 0.0  # idf-weighted share of the query's words found in the paper


@dataclass(frozen=True)
class SearchResult:
    """The answer to one search: ranked papers and whether the corpus is about the query."""

    query: str
    hits: tuple[Hit, ...]
    abstained: bool
    reason: str = ""


@dataclass(frozen=True)
class Citation:
    """Paper number n of an answer."""

    n: int
    paper: Paper


@dataclass(frozen=True)
class AnswerSentence:
    """One sentence of an answer and the citation numbers that back it."""

    text: str
    citations: tuple[int, ...]
    paper_sentence: str | None = None  # the abstract's own sentence it was taken from


@dataclass(frozen=True)
class Answer:
    """A composed answer: markdown with [n] markers, and its sentences and citations."""

    question: str
    markdown: str
    abstained: bool
    citations: tuple[Citation, ...]
    sentences: tuple[AnswerSentence, ...]
    hits: tuple[Hit, ...] = field(default=())


@dataclass(frozen=True)
class IngestReport:
    """What one ingest run changed."""

    papers: int
    added: int
    updated: int
    removed: int
    unchanged: int
    seconds: float
    stale: int = 0  # papers whose sources are gone, kept because --prune was not given
    warnings: tuple[str, ...] = ()
