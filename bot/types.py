"""The small frozen types that stages exchange; never library objects.

Paper and Chunk come out of ingest; Hit and SearchResult out of retrieval; Citation,
AnswerSentence and Answer out of answer composition; TriagedPaper, Theme, Cut and
TriageResult out of triage; Neighbour and SimilarResult out of "more like this";
ReadingList out of the reading lists.
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
    doi: str | None = None  # lower case, without a resolver prefix: "10.1145/3580305.3599256"
    keywords: tuple[str, ...] = ()

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
class ScoreParts:
    """What each kind of evidence added to a paper's fused score; the parts sum to the score."""

    bm25: float  # lexical weight x z-score of BM25 among the best candidates
    dense: float  # (1 - lexical weight) x z-score of the best chunk's cosine
    proximity: float  # proximity weight x z-score of BM25 over neighbouring word pairs
    coverage: float  # match weight x idf-weighted share of the query's words in the paper
    names: float  # name weight x share carried by the query's names (OPD, Q-MMR)
    complete: float = 0.0  # complete weight if the paper contains every query word, else 0

    def as_dict(self) -> dict[str, float]:
        """Example: {"bm25": 1.2, "dense": 0.9, "proximity": 0.3, "coverage": 1.7, "names": 0.0, "complete": 0.0}"""
        return {
            "bm25": self.bm25,
            "dense": self.dense,
            "proximity": self.proximity,
            "coverage": self.coverage,
            "names": self.names,
            "complete": self.complete,
        }


@dataclass(frozen=True)
class Hit:
    """One paper found by search, with the evidence behind its score."""

    paper: Paper
    score: float
    lexical: float  # BM25 relative to the query's best BM25 score, 0..1
    dense: float  # best chunk cosine similarity
    matched_terms: tuple[str, ...] = ()
    coverage: float = 0.0  # idf-weighted share of the query's words found in the paper
    parts: ScoreParts | None = None  # the score taken apart; None where no fused score was made


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
    # Set by bot.answer.check: whether the cited abstracts back the sentence, how strongly (0..1; None for a
    # sentence making no claim, such as the abstention sentence), and why it is not supported.
    supported: bool | None = None
    support: float | None = None
    reason: str = ""


@dataclass(frozen=True)
class Answer:
    """A composed answer: markdown with [n] markers, and its sentences and citations."""

    question: str
    markdown: str
    abstained: bool
    citations: tuple[Citation, ...]
    sentences: tuple[AnswerSentence, ...]
    hits: tuple[Hit, ...] = field(default=())
    generator: str = "extractive"  # the answer path that wrote it: extractive, openai or llamacpp
    notice: str | None = None  # why a requested language model did not write it, when it did not
    standalone_question: str | None = None  # what was searched, when a follow-up was rewritten (bot.search.followup)
    restricted_to: tuple[str, ...] = ()  # paper ids the search was limited to by a follow-up
    restricted_labels: tuple[str, ...] = ()  # their labels, in the same order


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
    merged: int = 0  # abstracts read that were another version of a paper (same DOI, arXiv id or title)
    filtered_out: int = 0  # records `ingest --where` left out


@dataclass(frozen=True)
class SentenceReport:
    """What `ingest --sentences` did: the stored abstracts' distinct sentences, how many of them it
    embedded (the rest had kept vectors already), and how long it took."""

    sentences: int
    embedded: int
    seconds: float


@dataclass(frozen=True)
class TriagedPaper:
    """One paper judged relevant to a triage topic, with the evidence and a one-line reason."""

    paper: Paper
    score: float  # dense + lexical_weight * lexical
    dense: float  # best chunk cosine similarity to the topic
    lexical: float  # 0..1: mean of the topic-word coverage and BM25 relative to the corpus best
    coverage: float  # idf-weighted share of the topic's words found in the paper
    matched_terms: tuple[str, ...]
    sentence: str  # the abstract's sentence that matches the topic best
    sentence_terms: tuple[str, ...]  # the topic words that sentence contains
    theme: str | None = None

    @property
    def reason(self) -> str:
        """Example: '"SORT consistently improves over GRPO ..." (matches: grpo)'"""
        terms = ", ".join(self.sentence_terms)
        why = f"matches: {terms}" if terms else f"close in meaning, similarity {self.dense:.2f}"
        return f'"{self.sentence}" ({why})'


@dataclass(frozen=True)
class Theme:
    """A named group of triaged papers; the name comes from the group's distinctive words."""

    name: str
    paper_ids: tuple[str, ...]


@dataclass(frozen=True)
class Cut:
    """Where triage drew the line between relevant and not, and why."""

    method: str  # "gap", "floor" or "empty"
    threshold: float
    explanation: str


@dataclass(frozen=True)
class TriageResult:
    """Every paper of the corpus that is about a topic, best first, grouped into themes."""

    topic: str
    considered: int
    papers: tuple[TriagedPaper, ...]
    themes: tuple[Theme, ...]
    cut: Cut


@dataclass(frozen=True)
class Neighbour:
    """A paper near another paper or a pasted abstract."""

    paper: Paper
    similarity: float  # mean over the query's chunks of the best cosine similarity among this paper's chunks
    shared_terms: tuple[str, ...] = ()  # the rarest words both texts use

    @property
    def reason(self) -> str:
        """Example: 'similarity 0.71; both mention grpo, rollouts'"""
        shared = f"; both mention {', '.join(self.shared_terms)}" if self.shared_terms else ""
        return f"similarity {self.similarity:.2f}{shared}"


@dataclass(frozen=True)
class SimilarResult:
    """The nearest papers to a stored paper or to pasted text."""

    query: str  # the paper's label, or the first words of the pasted text
    source: Paper | None  # the stored paper asked about; None for pasted text
    papers: tuple[Neighbour, ...]


@dataclass(frozen=True)
class ReadingList:
    """A named, persisted list of papers, in the order they were added."""

    name: str
    papers: tuple[Paper, ...]
    missing: tuple[str, ...] = ()  # ids on the list whose papers are no longer in the store
