"""Wires the stages into one object for the CLI and the UI: ingest, search, ask, triage, lists.

Opens the store once and loads the embedding model on first need. Holds no logic of its
own beyond choosing which stage to call; the CLI and UI turn its errors into messages.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import numpy as np

from bot import embedder
from bot import export as export_stage
from bot import lists as lists_stage
from bot import similar as similar_stage
from bot import triage as triage_stage
from bot.compose import Composer
from bot.corpus import Corpus
from bot.errors import QueryError
from bot.lexical import LexicalIndex
from bot.lists import ReadingLists
from bot.registry import Registry
from bot.retrieve import Retriever
from bot.settings import Settings, describe_fingerprint, index_fingerprint
from bot.store import VectorStore
from bot.types import Answer, IngestReport, Paper, ReadingList, SearchResult, SimilarResult, TriageResult
from ingest import chunking, normalise, pipeline

log = logging.getLogger(__name__)


class Paperbot:
    """The product behind every entry point."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.registry = Registry(settings.store)
        self.store = VectorStore(
            settings.store,
            settings.chroma_url,
            settings.storage.collection,
            index_fingerprint(settings.embed, settings.chunk),
            describe_fingerprint(settings.embed, settings.chunk),
        )
        self._lock = threading.RLock()
        self._retriever: Retriever | None = None

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors for `texts` from the configured model (loaded once per process)."""
        return embedder.load(self.settings.embed).embed(texts)

    def paper_count(self) -> int:
        return len(self.registry.papers())

    def ingest(
        self,
        paths: list[Path] | None = None,
        prune: bool = False,
        rebuild: bool = False,
        skip_bad: bool = False,
        encoding: str = "utf-8",
        progress: pipeline.Progress | None = None,
    ) -> IngestReport:
        """Ingest `paths` (default: the bundled seeds) into the store."""
        with self._lock:
            report = pipeline.run(
                paths or [self.settings.seeds],
                self.settings,
                self.registry,
                self.store,
                self.embed,
                prune=prune,
                rebuild=rebuild,
                skip_bad=skip_bad,
                encoding=encoding,
                progress=progress,
            )
            self._retriever = None
            return report

    def retriever(self) -> Retriever:
        with self._lock:
            if self._retriever is None:
                folder = self.settings.store / "lexical"
                version = self.registry.version()
                lexical = LexicalIndex.load(folder, version)
                if lexical is None:
                    pipeline.refresh_lexical(self.registry)
                    lexical = LexicalIndex.load(folder, version) or LexicalIndex.build({})
                self._retriever = Retriever(
                    self.registry.papers(), lexical, self.store, self.embed, self.settings.retrieval
                )
            return self._retriever

    def search(self, query: str, k: int | None = None) -> SearchResult:
        return self.retriever().search(query, k)

    def search_many(self, queries: list[str], k: int | None = None) -> list[SearchResult]:
        return self.retriever().search_many(queries, k)

    def ask(self, question: str) -> Answer:
        return self.ask_many([question])[0]

    def ask_many(self, questions: list[str]) -> list[Answer]:
        composer = Composer(self.embed, self.settings.answer)
        # Answers draw on more papers than a search shows, for "which papers" lists.
        k = max(self.settings.retrieval.k, self.settings.answer.list_max)
        results = self.search_many(questions, k)
        return [composer.compose(q, r) for q, r in zip(questions, results, strict=True)]

    # --- Whole-corpus work: triage, more like this, reading lists, export (appended; see bot.triage) ---

    # The corpus read for triage and similar, with the (registry version, vector count) it was read at.
    _corpus: Corpus | None = None
    _corpus_key: tuple[int, int] | None = None
    _lists: ReadingLists | None = None

    def corpus(self) -> Corpus:
        """Every paper, the BM25 index and all chunk vectors in memory; re-read when the store changes."""
        with self._lock:
            key = (self.registry.version(), self.store.count())
            if self._corpus is None or self._corpus_key != key:
                started = time.perf_counter()
                fresh = Registry(self.settings.store)  # another process may have ingested since
                try:
                    papers = fresh.papers()
                    lexical = LexicalIndex.load(self.settings.store / "lexical", key[0])
                    if lexical is None:
                        pipeline.refresh_lexical(fresh)
                        lexical = LexicalIndex.load(self.settings.store / "lexical", key[0]) or LexicalIndex.build({})
                finally:
                    fresh.close()
                self._corpus = Corpus.build(key[0], papers, lexical, self.store.all_vectors())
                self._corpus_key = key
                log.info("read %d papers' vectors in %.1f s", len(papers), time.perf_counter() - started)
            return self._corpus

    def triage(self, topic: str) -> TriageResult:
        """Every paper about `topic`, scored over the whole corpus, with reasons and themes."""
        return triage_stage.triage(self.corpus(), topic, self.embed, self.store.chunk_texts, self.settings.triage)

    def resolve(self, refs: list[str]) -> list[Paper]:
        """The stored papers named by ids, id prefixes, source ids, labels or titles (unknown ones raise)."""
        return lists_stage.resolve(self.registry.papers(), refs)

    def similar(self, ref: str | None = None, text: str | None = None, k: int | None = None) -> SimilarResult:
        """The papers nearest to a stored paper (by id or label) or to pasted abstract text."""
        if (ref is None) == (text is None):
            raise QueryError("give either a paper id or label, or --text with an abstract")
        if k is not None and k < 1:
            raise QueryError(f"--k {k}: give a positive number of papers")
        k = k or self.settings.triage.similar_k
        corpus = self.corpus()
        if ref is not None:
            (paper,) = lists_stage.resolve(corpus.papers, [ref])
            return similar_stage.like_paper(corpus, paper, k)
        assert text is not None
        if not text.strip():
            raise QueryError("the pasted text is empty; paste an abstract")
        # Chunked exactly as ingest chunks a paper, so a stored abstract pasted back scores ~1.0.
        pieces = chunking.chunk_texts(normalise.display(text), self.settings.chunk)
        return similar_stage.like_text(corpus, text, self.embed(pieces), k)

    def reading_lists(self) -> ReadingLists:
        """The store's reading lists (opened once)."""
        with self._lock:
            if self._lists is None:
                self._lists = ReadingLists(self.settings.store / "papers.sqlite")
            return self._lists

    def reading_list(self, name: str) -> ReadingList:
        """A list's papers in the order added; ids whose papers left the store are reported as missing."""
        papers = self.registry.papers()
        entries = self.reading_lists().entries(name)
        return ReadingList(
            name,
            tuple(papers[pid] for pid, _ in entries if pid in papers),
            tuple(f"{pid} ({label})" for pid, label in entries if pid not in papers),
        )

    def add_to_list(self, name: str, refs: list[str]) -> int:
        """Add papers (ids or labels) to a list, creating it; returns how many were new to it."""
        if not refs:
            raise QueryError("name at least one paper to add (a paper_id or label)")
        return self.reading_lists().add(name, self.resolve(refs))

    def remove_from_list(self, name: str, refs: list[str]) -> int:
        """Take papers (ids or labels, also of papers since removed from the store) off a list."""
        if not refs:
            raise QueryError("name at least one paper to remove (a paper_id or label)")
        # Entries are matched by id or by the label they were added under first, so papers since
        # removed from the store can still be taken off; anything else is resolved against the store.
        known: dict[str, str] = {}
        for pid, label in self.reading_lists().entries(name):
            known[pid] = pid
            known.setdefault(label.casefold(), pid)
        ids = [known.get(r.strip(), known.get(r.strip().casefold(), "")) for r in refs]
        rest = [r for r, pid in zip(refs, ids, strict=True) if not pid]
        ids = [pid for pid in ids if pid] + [p.paper_id for p in self.resolve(rest)] if rest else ids
        return self.reading_lists().remove(name, list(dict.fromkeys(ids)))

    def export(
        self, fmt: str, list_name: str | None = None, topic: str | None = None, refs: list[str] | None = None
    ) -> str:
        """Papers of a reading list, a triage topic, or named papers, rendered in `fmt` (see bot.export)."""
        if sum(x is not None for x in (list_name, topic, refs)) != 1:
            raise QueryError("export needs exactly one of --list NAME, --topic TOPIC or --papers ID,...")
        if fmt not in export_stage.FORMATS:
            raise QueryError(f"unknown export format {fmt!r}; choose one of {', '.join(export_stage.FORMATS)}")
        if list_name is not None:
            reading = self.reading_list(list_name)
            papers, heading = list(reading.papers), f"Reading list: {list_name}"
            if reading.missing:
                log.warning(
                    "%d papers of %r are no longer in the store: %s",
                    len(reading.missing),
                    list_name,
                    ", ".join(reading.missing),
                )
            if not papers:
                raise QueryError(
                    f"the list {list_name!r} is empty; add papers with `paperbot list add {list_name} ID...`"
                )
        elif topic is not None:
            found = self.triage(topic)
            if not found.papers:
                raise QueryError(f"nothing to export: no paper is about {topic!r} ({found.cut.explanation})")
            papers, heading = [p.paper for p in found.papers], f"Papers about {topic}"
        else:
            papers, heading = self.resolve(refs or []), "Papers"
        return export_stage.render(papers, fmt, heading)
