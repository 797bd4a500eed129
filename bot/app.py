"""Wires the stages into one object for the CLI and the UI: search, ask, triage, similar, lists, export.

Opens the store once and loads the embedding model on first need. Every method hands its work
to one stage (bot.store, bot.search.service, bot.answer.service, bot.library); the CLI and UI
turn their errors into messages. Ingest is not here: the CLI runs it (bot never imports ingest).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from bot.answer.service import AnswerService
from bot.embedding import CachedEmbedder
from bot.library import lists as lists_stage
from bot.library import selection
from bot.library import triage as triage_stage
from bot.query import typed
from bot.search import similar as similar_stage
from bot.search.retrieve import Retriever
from bot.search.service import SearchService
from bot.settings import Settings
from bot.store import Store
from bot.store.corpus import Corpus
from bot.store.lists import ReadingLists
from bot.types import Answer, Paper, ReadingList, SearchResult, SimilarResult, TriageResult


class Paperbot:
    """The product behind every entry point."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = Store.open(settings)
        # in the precision the store was built with; abstract sentences kept by `ingest --sentences` are not embedded
        self.embedder = CachedEmbedder(self.store.embed, self.store.sentences())
        self.searcher = SearchService(self.store, self.embed, settings.retrieval, settings.triage)
        self.answerer = AnswerService(self.searcher, self.embed, settings.answer, settings.check, settings.generator)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors for `texts` from the configured model, recent ones remembered (bot.embedding)."""
        return self.embedder.embed(texts)

    def paper_count(self) -> int:
        return self.store.paper_count()

    def papers(self) -> Mapping[str, Paper]:
        """Every stored paper by id."""
        return self.store.papers()

    def corpus(self) -> Corpus:
        """The whole store version in memory (papers, BM25 index, chunk vectors)."""
        return self.store.corpus()

    def chunk_texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """The text of each of these chunks, cut again from its paper (see Store.chunk_texts)."""
        return self.store.chunk_texts(chunk_ids)

    # --- Search and answers ---

    def retriever(self) -> Retriever:
        """The retriever over the current corpus (made again when the store changes)."""
        return self.searcher.retriever()

    def search(self, query: str, k: int | None = None) -> SearchResult:
        return self.search_many([query], k)[0]

    def search_many(self, queries: list[str], k: int | None = None) -> list[SearchResult]:
        return self.searcher.search_many([typed(q) for q in queries], k)

    def warm(self) -> int:
        """Read what answers need before the first question is asked: the corpus (papers, index,
        vectors), the embedding model's weights and the corpus overview an off-topic question is
        answered with; so that a server's first users do not wait for it, nor stall every other answer
        meanwhile. Returns the number of stored papers; an empty store reads nothing."""
        count = self.paper_count()
        if count:
            self.retriever()
            self.embed(["paperbot"])
            self.searcher.topics(self.settings.answer.overview_topics, self.settings.answer.overview_sample)
        return count

    def ask(self, question: str, generator: str | None = None, previous: Answer | None = None) -> Answer:
        """A checked, cited answer; `previous` (the last answer of a chat) resolves follow-ups."""
        return self.ask_many([question], generator, previous)[0]

    def ask_many(
        self, questions: list[str], generator: str | None = None, previous: Answer | None = None
    ) -> list[Answer]:
        return self.answerer.ask_many([typed(q) for q in questions], generator, previous)

    def ask_stream(
        self, question: str, generator: str | None = None, previous: Answer | None = None
    ) -> Iterator[str | Answer]:
        """The answer as it is written: text pieces, then the finished Answer (see AnswerService.ask_stream)."""
        return self.answerer.ask_stream(typed(question), generator, previous)

    def answer_stream(self, question: str, result: SearchResult, backend: str) -> Iterator[str | Answer]:
        """Like ask_stream, for a search already made (see AnswerService.answer_stream)."""
        return self.answerer.answer_stream(typed(question), result, backend)

    # --- Whole-corpus work: triage, more like this, reading lists, export ---

    def triage(self, topic: str) -> TriageResult:
        """Every paper about `topic`, scored over the whole corpus, with reasons and themes."""
        # the topic embedded as a question is (acronyms spelled out), so the chat and triage agree
        retriever = self.retriever()
        return triage_stage.triage(
            retriever.corpus, typed(topic), retriever.embed_queries, self.store.chunk_texts, self.settings.triage
        )

    def resolve(self, refs: list[str]) -> list[Paper]:
        """The stored papers named by ids, id prefixes, source ids, labels or titles (unknown ones raise)."""
        return lists_stage.resolve(self.store.papers(), refs)

    def similar(self, ref: str | None = None, text: str | None = None, k: int | None = None) -> SimilarResult:
        """The papers nearest to a stored paper (by id or label) or to pasted abstract text."""
        similar_stage.check_request(ref, text, k)
        k = k or self.settings.triage.similar_k
        corpus = self.store.corpus()
        if ref is None:
            pieces = similar_stage.pasted_chunks(text or "", self.settings.chunk)
            return similar_stage.like_text(corpus, text or "", self.embed(pieces), k, self.settings.triage)
        (paper,) = lists_stage.resolve(corpus.papers, [ref])
        return similar_stage.like_paper(corpus, paper, k, self.settings.triage)

    def reading_lists(self) -> ReadingLists:
        """The store's reading lists."""
        return self.store.lists

    def list_names(self) -> list[tuple[str, int]]:
        """Every reading list with its number of papers, by name."""
        return self.store.lists.names()

    def reading_list(self, name: str) -> ReadingList:
        """A list's papers in the order added; ids whose papers left the store are reported as missing."""
        return lists_stage.reading_list(self.store, name)

    def add_to_list(self, name: str, refs: list[str]) -> int:
        """Add papers (ids or labels) to a list, creating it; returns how many were new to it."""
        return lists_stage.add_to_list(self.store, name, refs)

    def remove_from_list(self, name: str, refs: list[str]) -> int:
        """Take papers (ids or labels, also of papers since removed from the store) off a list."""
        return lists_stage.remove_from_list(self.store, name, refs)

    def export(
        self, fmt: str, list_name: str | None = None, topic: str | None = None, refs: list[str] | None = None
    ) -> str:
        """Papers of a reading list, a triage topic, or named papers, rendered in `fmt` (see bot.library.export)."""
        return selection.export(self.store, self.triage, fmt, list_name, topic, refs)
