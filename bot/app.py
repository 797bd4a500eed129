"""Wires the stages into one object for the CLI and the UI: ingest, search, ask.

Opens the store once and loads the embedding model on first need. Holds no logic of its
own beyond choosing which stage to call; the CLI and UI turn its errors into messages.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import numpy as np

from bot import embedder
from bot.compose import Composer
from bot.lexical import LexicalIndex
from bot.registry import Registry
from bot.retrieve import Retriever
from bot.settings import Settings, describe_fingerprint, index_fingerprint
from bot.store import VectorStore
from bot.types import Answer, IngestReport, SearchResult
from ingest import pipeline

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
