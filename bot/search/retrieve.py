"""Hybrid retrieval: BM25 and exact dense scores fused per paper.

Every paper is scored two ways: BM25 over its title and abstract, and the cosine similarity
of its best chunk to the query (the query's acronyms spelled out as the corpus defines them,
which MiniLM needs). Each score becomes a z-score against its own top `candidates` papers, so
the two add up fairly; the idf-weighted share of the query's words a paper contains is added, and a
bonus when it contains them all.
The dense side is exact: one matrix product over every chunk vector, held in memory per store
version (bot.corpus), instead of an approximate nearest-chunk search that reaches only some
papers. The search abstains when neither kind of evidence says the corpus is about the query.
It never calls a language model and composes no answers. Measurements: docs/retrieval.md.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from bot.errors import QueryError
from bot.query import Query, as_query
from bot.settings import RetrievalSettings
from bot.store.corpus import Corpus
from bot.store.lexical import LexicalIndex
from bot.store.nearest import lexical_candidates, top_indices
from bot.store.rows import read_many
from bot.text.terms import base_names
from bot.types import Hit, ScoreParts, SearchResult

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class Evidence:
    """Why the search did or did not abstain."""

    best_dense: float
    best_coverage: float
    relevance: float  # best_dense - chance + coverage_weight * best_coverage
    named: bool = False  # the query names a method or benchmark found in the top papers
    chance: float = 0.0  # how far above the corpus's typical similarity some paper gets by luck alone


class Retriever:
    """Searches one corpus: its papers, their BM25 index and their chunk vectors."""

    def __init__(self, corpus: Corpus, embed: Embed, settings: RetrievalSettings) -> None:
        self.corpus = corpus
        self._papers = corpus.papers
        self._lexical = corpus.lexical
        self._embed = embed
        self._settings = settings

    def search(self, query: str | Query, k: int | None = None) -> SearchResult:
        """The `k` best papers for `query`."""
        return self.search_many([query], k)[0]

    def search_many(
        self, queries: Sequence[str | Query], k: int | None = None, only: Collection[str] | None = None
    ) -> list[SearchResult]:
        """Search several queries (texts, or questions already parsed) at once: one embedding pass,
        one matrix product.

        `only` restricts the ranking to these paper ids ("which of these ...?" follow-ups); the
        scores are the same as in an open search.
        """
        for query in queries:
            text = query.text if isinstance(query, Query) else query
            if not text or not text.strip():
                raise QueryError("the query is empty; type a question or some keywords")
        parsed = [as_query(q) for q in queries]
        if not self._papers or not self.corpus.paper_ids:
            raise QueryError("the store is empty; run `paperbot ingest` first (no path: the bundled seeds)")
        steps = [time.perf_counter()]
        vectors = self.embed_queries([q.text for q in parsed])
        steps.append(time.perf_counter())
        bm25 = [self._bm25(q) for q in parsed]
        steps.append(time.perf_counter())
        # Searched through Chroma's index, the best BM25 papers are dense candidates too.
        extra = self.corpus.vectors.lexical
        also = [lexical_candidates(scores, extra) for scores in bm25] if extra else None
        dense = self.corpus.vectors.similarity(vectors, also)
        steps.append(time.perf_counter())
        allowed = None if only is None else np.isin(np.array(self.corpus.paper_ids), list(only))
        ranked = [
            self._rank(q, vector, scores, row, k or self._settings.k, allowed)
            for q, vector, scores, row in zip(parsed, vectors, bm25, dense, strict=True)
        ]
        steps.append(time.perf_counter())
        took = (b - a for a, b in itertools.pairwise(steps))  # formatted only when -v logs it
        log.info(
            "searched %d: question vectors %.3f s, BM25 %.3f s, dense %.3f s, fused and ranked %.3f s",
            len(parsed),
            *took,
        )
        return ranked

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of `texts` as a search embeds a question (`query_text`), through the embedder's cache:
        the relevance cut and triage read the vector a search of the same text made."""
        return self._embed([self.query_text(t) for t in texts])

    def query_text(self, text: str) -> str:
        """What is embedded for `text`: with its acronyms spelled out as the corpus defines them, when
        `expand_acronyms` is set. Example: 'offline RL' -> 'offline RL (reinforcement learning)'"""
        return self._lexical.expand(text) if self._settings.expand_acronyms else text

    def _bm25(self, query: Query) -> np.ndarray:
        """Every paper's BM25 score for `query`, in `corpus.paper_ids` order."""
        return self._lexical.scores_for(query.search_terms)[self.corpus.lexical_rows].astype(np.float64)

    def _rank(
        self,
        query: Query,
        vector: np.ndarray,
        bm25: np.ndarray,
        dense: np.ndarray,
        k: int,
        allowed: np.ndarray | None = None,
    ) -> SearchResult:
        """Rank every paper; `bm25` and `dense` (best-chunk cosine) are per paper in `corpus.paper_ids` order."""
        rows = self.corpus.lexical_rows
        # a name others are built on ("MuJoCo") is held by the papers writing one of those ("MaMuJoCo") too
        held = self._lexical.presence_of(query.words, base_names(query.text))
        presence = [(word, weight, present[rows]) for word, weight, present in held]
        coverage = LexicalIndex.shares(presence, len(rows))
        # MiniLM cannot read names it never saw (words with two capitals: OPD, Q-MMR), so the share
        # of the query carried by the names a paper contains counts again, as extra evidence.
        named = LexicalIndex.shares(presence, len(rows), {name.lower() for name in query.names})
        depth = min(len(dense), max(k, self._settings.candidates))
        weight = self._settings.lexical_weight
        pairs = self._lexical.pair_scores_for(query.pairs)[rows].astype(np.float64)
        parts = (
            weight * _standardise(bm25, depth),
            (1 - weight) * _standardise(dense.astype(np.float64), depth),
            self._settings.proximity_weight * _standardise(pairs, depth),
            self._settings.match_weight * coverage,
            self._settings.name_weight * named,
            # A paper with every one of the query's words (coverage 1) answers a short question
            # more often than one missing a word, however close the latter's wording.
            self._settings.complete_weight * (coverage >= 1 - 1e-9),
        )
        fused = sum(parts[1:], parts[0])
        if allowed is not None:
            fused = np.where(allowed, fused, -np.inf)
            k = min(k, int(allowed.sum()))
        best_bm25 = float(bm25.max(initial=0.0))
        ids = self.corpus.paper_ids
        order = sorted(top_indices(fused, k).tolist(), key=lambda i: (-fused[i], ids[i]))
        hits: list[Hit] = []
        for i, paper in zip(order, read_many(self._papers, [ids[i] for i in order]), strict=True):
            terms = tuple(word for word, _, present in presence if present[i])
            lexical = bm25[i] / best_bm25 if best_bm25 > 0 else 0.0
            hits.append(
                Hit(
                    paper,
                    round(float(fused[i]), 6),
                    round(lexical, 6),
                    round(float(dense[i]), 6),
                    terms,
                    round(float(coverage[i]), 6),
                    ScoreParts(*(round(float(part[i]), 6) for part in parts)),
                )
            )
        with_vectors = self.corpus.vectors.has_vectors
        spread = self.corpus.vectors.spread(vector, dense)
        evidence = self._evidence(query, hits, dense[with_vectors], spread)
        abstained = evidence.relevance < self._settings.abstain_below and not evidence.named
        reason = (
            f"relevance {evidence.relevance:.2f} < {self._settings.abstain_below}: best dense "
            f"similarity {evidence.best_dense:.2f} (less {evidence.chance:.2f} expected by chance among "
            f"{len(ids):,} papers), query-word coverage {evidence.best_coverage:.2f}, "
            "and no name from the corpus in the query"
        )
        return SearchResult(query=query.text, hits=tuple(hits), abstained=abstained, reason=reason)

    def _evidence(self, query: Query, hits: list[Hit], dense: np.ndarray, spread: float) -> Evidence:
        """`dense`: the query's best-chunk cosine with every paper that has vectors; `spread`: their
        standard deviation."""
        depth = self._settings.abstain_depth
        coverage = max((h.coverage for h in hits[:depth]), default=0.0)
        best_dense = float(dense.max(initial=0.0))
        chance = _chance(spread, len(dense), self._settings.chance_reference)
        relevance = best_dense - chance + self._settings.coverage_weight * coverage
        # A method or benchmark name written as the corpus writes it ("what's CURE?", "Q-MMR")
        # means the question is about these papers, however chatty the rest of it is.
        # Only names rare in the corpus count: "LLM" or "RL" say nothing about relevance.
        rare = max(self._settings.rare_name_min, len(self._papers) // self._settings.rare_name_divisor)
        names = [n for n in query.names if 0 < self._lexical.doc_freq(n) <= rare]
        named = any(name in h.paper.display for name in names for h in hits[:depth])
        return Evidence(best_dense, coverage, relevance, named, chance)


def _chance(spread: float, n: int, reference: int) -> float:
    """The rise in the best similarity that corpus size alone brings, beyond a `reference`-paper corpus,
    for `n` papers whose similarities have standard deviation `spread`.

    The best of N unrelated scores sits about sd * sqrt(2 ln N) above their mean, so a query about
    nothing in the corpus still finds a closer paper among 8,700 than among 100. Off-topic
    questions' best cosine goes from ~0.15 on the 53 seeds to ~0.30 with 8,647 distractors.
    Example: sd 0.05 over 8,700 papers, reference 100 -> 0.05 * (4.26 - 3.03) = 0.061
    """
    if n <= reference:
        return 0.0
    return spread * (math.sqrt(2 * math.log(n)) - math.sqrt(2 * math.log(reference)))


def _standardise(scores: np.ndarray, depth: int) -> np.ndarray:
    """Scores as z-scores against the `depth` best, so BM25 and cosine add up fairly.

    Example: scores [9, 5, 1, 0] with depth 3 (mean 5, sd 3.27) -> [1.22, 0.0, -1.22, -1.53].
    """
    if len(scores) == 0 or depth <= 0:
        return np.zeros_like(scores)
    top = np.partition(scores, len(scores) - depth)[len(scores) - depth :]
    spread = float(np.std(top))
    if spread <= 1e-9:
        return np.zeros_like(scores)
    return (scores - float(np.mean(top))) / spread
