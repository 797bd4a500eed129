"""Hybrid retrieval: BM25 and dense chunk scores fused and aggregated to papers.

A paper appears once, scored by its best chunk (dense) and its whole text (BM25). The
search abstains when neither kind of evidence says the corpus is about the query. It never
calls a language model and composes no answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bot.errors import QueryError
from bot.lexical import LexicalIndex
from bot.settings import RetrievalSettings
from bot.store import ChunkMatch, VectorStore
from bot.types import Hit, Paper, SearchResult

Embed = Callable[[list[str]], np.ndarray]
# How many BM25 leaders join the dense candidates before fusion.
_LEXICAL_CANDIDATES = 100
# Papers whose coverage is checked for abstention.
_ABSTAIN_DEPTH = 3
# Name-like words: at least three characters with two or more capitals (CURE, Q-MMR, fMRI, ReFPO).
_NAME = re.compile(r"(?<![\w-])(?=(?:[\w-]*[A-Z]){2})[A-Za-z][\w-]*[\w](?![\w-])")


@dataclass(frozen=True)
class Evidence:
    """Why the search did or did not abstain."""

    best_dense: float
    best_coverage: float
    relevance: float  # best_dense + coverage_weight * best_coverage
    named: bool = False  # the query names a method or benchmark found in the top papers


class Retriever:
    """Searches one corpus: the registry's papers, their BM25 index and their vectors."""

    def __init__(
        self,
        papers: dict[str, Paper],
        lexical: LexicalIndex,
        store: VectorStore,
        embed: Embed,
        settings: RetrievalSettings,
    ) -> None:
        self._papers = papers
        self._lexical = lexical
        self._store = store
        self._embed = embed
        self._settings = settings

    def search(self, query: str, k: int | None = None) -> SearchResult:
        """The `k` best papers for `query`."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: list[str], k: int | None = None) -> list[SearchResult]:
        """Search several queries at once (one embedding pass, one Chroma call)."""
        for query in queries:
            if not query or not query.strip():
                raise QueryError("the query is empty; type a question or some keywords")
        if not self._papers:
            raise QueryError("the store is empty; run `paperbot ingest` first (no path: the bundled seeds)")
        vectors = self._embed(queries)
        matches = self._store.query(vectors, self._settings.dense_candidates)
        return [self._rank(q, m, k or self._settings.k) for q, m in zip(queries, matches, strict=True)]

    def _rank(self, query: str, matches: list[ChunkMatch], k: int) -> SearchResult:
        dense: dict[str, float] = {}
        for match in matches:
            if match.paper_id in self._papers:  # orphan vectors of removed papers are ignored
                dense[match.paper_id] = max(dense.get(match.paper_id, -1.0), match.similarity)
        bm25 = self._lexical.scores(query)
        ids = self._lexical.paper_ids
        top_lexical = np.argsort(-bm25)[:_LEXICAL_CANDIDATES]
        candidates = set(dense) | {ids[i] for i in top_lexical if bm25[i] > 0}
        candidates &= set(self._papers)
        if not candidates:
            candidates = set(list(self._papers)[:k])
        lexical_by_id = {ids[i]: float(bm25[i]) for i in top_lexical}
        best_bm25 = max(lexical_by_id.values(), default=0.0)
        floor = min(dense.values(), default=0.0)
        top = max(dense.values(), default=0.0)
        spread = max(top - floor, 1e-6)
        weight = self._settings.lexical_weight

        scored: list[tuple[float, float, float, str]] = []
        for pid in candidates:
            lex = lexical_by_id.get(pid, 0.0) / best_bm25 if best_bm25 > 0 else 0.0
            cos = dense.get(pid, floor)
            dense_norm = (cos - floor) / spread
            scored.append((weight * lex + (1 - weight) * dense_norm, lex, cos, pid))
        scored.sort(key=lambda s: (-s[0], s[3]))

        hits: list[Hit] = []
        for fused, lex, cos, pid in scored[:k]:
            paper = self._papers[pid]
            share, terms = self._lexical.coverage(query, paper.searchable_text())
            hits.append(Hit(paper, round(fused, 6), round(lex, 6), round(cos, 6), terms, round(share, 6)))
        evidence = self._evidence(query, hits, top)
        abstained = evidence.relevance < self._settings.abstain_below and not evidence.named
        reason = (
            f"relevance {evidence.relevance:.2f} < {self._settings.abstain_below}: best dense "
            f"similarity {evidence.best_dense:.2f}, query-word coverage {evidence.best_coverage:.2f}, "
            "and no name from the corpus in the query"
        )
        return SearchResult(query=query, hits=tuple(hits), abstained=abstained, reason=reason)

    def _evidence(self, query: str, hits: list[Hit], best_dense: float) -> Evidence:
        coverage = max((h.coverage for h in hits[:_ABSTAIN_DEPTH]), default=0.0)
        relevance = best_dense + self._settings.coverage_weight * coverage
        # A method or benchmark name written as the corpus writes it ("what's CURE?", "Q-MMR")
        # means the question is about these papers, however chatty the rest of it is.
        # Only names rare in the corpus count: "LLM" or "RL" say nothing about relevance.
        rare = max(3, len(self._papers) // 50)
        names = [n for n in _NAME.findall(query) if len(n) >= 3 and 0 < self._lexical.doc_freq(n) <= rare]
        named = any(name in h.paper.display for name in names for h in hits[:_ABSTAIN_DEPTH])
        return Evidence(best_dense=best_dense, best_coverage=coverage, relevance=relevance, named=named)
