"""Per-paper dense similarity from Chroma's own nearest-neighbour index, for stores too large to hold.

The exact path (bot.store.corpus.PaperVectors) scores every chunk vector with one matrix product,
which needs every vector in memory. Here Chroma's HNSW index (`collection.query`) finds the `chunks`
chunks nearest to a query; their papers are the dense candidates, and the caller adds its own (the
best BM25 papers), whose chunk vectors are fetched by id and scored exactly. Every other paper gets
the similarity of the last chunk found: none of its chunks is closer than that, so it is an upper
bound, and such a paper can only rank where the bound would rank it.

An embedded store whose chunk vectors are cached beside it (bot.store.vectors.VectorCache) is searched
without the chunks' index, which Chroma loads whole into the process that queries it (4 GB at a million
papers): the records' index (one mean vector per paper, 1.7 GB) gives the nearest papers, and their
chunk vectors are read from the cache file a paper at a time (bot.store.vectors.CachedRows).

Triage, "more like this" and the groups need every vector (centroids, passage matches): they still
read them all, once, the first time they are asked for. A fixed sample of papers stands in for the
whole corpus where search needs the spread of similarities (how far above the rest the best paper is
by chance alone). It does not rank papers or read the registry.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

import numpy as np

from bot.store.chroma import VectorStore
from bot.store.corpus import BestChunks, PaperVectors
from bot.store.vectors import CachedRows, ChunkVectors

log = logging.getLogger(__name__)

SAMPLE_SEED = 17


class NearestVectors:
    """The dense side of a store searched through Chroma's index; the other paper arrays as in PaperVectors.

    Example: NearestVectors(ids, store.vectors, load_all, chunks=300).similarity(q, [[4, 9]]) -> one row
    per query: exact best-chunk cosines for the papers of the 300 nearest chunks and papers 4 and 9, the
    300th chunk's cosine for every other paper.
    """

    def __init__(
        self,
        paper_ids: list[str],
        source: VectorStore,
        load_all: Callable[[], PaperVectors],
        chunks: int,
        lexical: int,
        sample: int,
        papers: int = 0,
        cached: CachedRows | None = None,
    ) -> None:
        self.paper_ids = list(paper_ids)
        self.position = {pid: i for i, pid in enumerate(self.paper_ids)}
        self.has_vectors = np.ones(len(self.paper_ids), dtype=bool)  # a paper's record is written after its vectors
        self.chunks = chunks
        self.lexical = lexical  # how many of the caller's best lexical papers it should add as candidates
        self._source = source
        self._load_all = load_all
        self._all: PaperVectors | None = None
        self._sample_size = sample
        self._sample: PaperVectors | None = None
        # With the vectors cached beside an embedded store, the candidates are the `papers` nearest
        # papers of the records' index, whose chunks are read from the cache file: a reader then never
        # loads the chunks' index (4 GB at a million papers).
        self.papers = papers
        self._cached = cached if papers > 0 else None
        if self._cached is not None:
            # Candidates are cheap to score from the cache: as many of the best BM25 papers as nearest
            # papers (a million papers: 5.6% of the exact top 10 missed with 3,000 of each, 27% with
            # 1,000 nearest papers and 100 BM25 ones; docs/scale.md).
            self.lexical = max(lexical, papers)
        self._lock = threading.Lock()

    # What needs every vector reads them all, once.
    def _every(self) -> PaperVectors:
        with self._lock:
            if self._all is None:
                log.info(
                    "reading every chunk vector of %d papers (triage, similar papers or groups)", len(self.paper_ids)
                )
                self._all = self._load_all()
            return self._all

    def centroids_of(self, positions: Sequence[int] | np.ndarray) -> np.ndarray:
        return self._every().centroids_of(positions)

    @property
    def chunk_count(self) -> int:
        return self._every().chunk_count

    @property
    def dimension(self) -> int:
        return self._every().dimension

    def chunks_of(self, position: int) -> np.ndarray:
        return self._every().chunks_of(position)

    def passage_match(self, queries: np.ndarray, exclude: int | None = None) -> np.ndarray:
        return self._every().passage_match(queries, exclude)

    # Search and relevance ask Chroma.
    def similarity(self, queries: np.ndarray, also: Sequence[Sequence[int]] | None = None) -> np.ndarray:
        """Best-chunk cosine per paper (columns) for each query (rows): exact for the candidates, the
        bound for the rest. `also[i]`: positions of papers to score exactly for query i."""
        queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        rows = [self._row(q, list(also[i]) if also is not None else []) for i, q in enumerate(queries)]
        return np.stack(rows) if rows else np.zeros((0, len(self.paper_ids)), dtype=np.float32)

    def best_chunks(self, query: np.ndarray, also: Sequence[int] = ()) -> BestChunks:
        """As PaperVectors.best_chunks, exact for the candidates; the others' chunk id is None."""
        best: list[str | None] = [None] * len(self.paper_ids)
        similarity = self._row(np.asarray(query, dtype=np.float32), list(also), best)
        return BestChunks(similarity, tuple(best))

    def spread(self, query: np.ndarray, similarity: np.ndarray) -> float:
        """The standard deviation of the best-chunk cosines of a fixed random sample of papers: what the
        whole corpus's would be, for the chance correction of search (`similarity`, mostly bounds, is unused)."""
        sims = self._sampled().similarity(query)[0]
        return float(np.std(sims[sims > -1.0])) if np.any(sims > -1.0) else 0.0

    def _sampled(self) -> PaperVectors:
        with self._lock:
            if self._sample is None:
                picked = np.random.default_rng(SAMPLE_SEED).permutation(len(self.paper_ids))[: self._sample_size]
                ids = [self.paper_ids[i] for i in sorted(picked.tolist())]
                self._sample = _paper_vectors(ids, self._chunks_of(ids))
            return self._sample

    def _row(self, query: np.ndarray, also: list[int], best: list[str | None] | None = None) -> np.ndarray:
        if self._cached is not None:
            return self._row_by_paper(query, also, best)
        found = self._source.query(query[None, :], self.chunks)[0]
        # Fewer chunks than asked for: the index holds no more, so the other papers have no vectors.
        bound = found[-1].similarity if len(found) >= self.chunks else -1.0
        out = np.full(len(self.paper_ids), bound, dtype=np.float32)
        seen: set[int] = set()
        for match in found:  # nearest first: a paper's first chunk is its best
            at = self.position.get(match.paper_id)
            if at is not None and at not in seen:
                seen.add(at)
                out[at] = match.similarity
                if best is not None:
                    best[at] = match.chunk_id
        self._score([self.paper_ids[i] for i in dict.fromkeys(also) if i not in seen], query, out, best)
        return out

    def _row_by_paper(self, query: np.ndarray, also: list[int], best: list[str | None] | None) -> np.ndarray:
        """The papers whose mean vector is nearest the query, and the caller's, scored exactly from the
        cache file; every other paper gets the last found paper's mean cosine, an estimate of where
        they begin (a paper's best chunk can lie above its mean), so only the candidates count as exact."""
        found = self._source.nearest_papers(query, self.papers)
        bound = found[-1][1] if len(found) >= self.papers else -1.0
        out = np.full(len(self.paper_ids), bound, dtype=np.float32)
        nearest = [pid for pid, _ in found if pid in self.position]
        self._score(list(dict.fromkeys([*nearest, *(self.paper_ids[i] for i in also)])), query, out, best)
        return out

    def _score(self, ids: list[str], query: np.ndarray, out: np.ndarray, best: list[str | None] | None) -> None:
        """Each of these papers' exact best-chunk cosine into `out` (-1 for one without vectors)."""
        if not ids:
            return
        fetched = self._chunks_of(ids)
        for pid in ids:
            at = self.position[pid]
            if pid not in fetched:
                out[at] = -1.0
                continue
            chunk_ids, vectors = fetched[pid]
            sims = vectors @ query
            out[at] = float(sims.max())
            if best is not None:
                best[at] = chunk_ids[int(np.argmax(sims))]

    def _chunks_of(self, ids: list[str]) -> dict[str, tuple[list[str], np.ndarray]]:
        """Papers' chunk ids and vectors: from the cache file when there is one, else from Chroma."""
        return (self._cached or self._source).paper_chunks(ids)


def lexical_candidates(scores: np.ndarray, n: int) -> list[int]:
    """Positions of the `n` highest positive lexical scores: the papers a caller adds as dense candidates.

    Example: lexical_candidates(np.array([0.0, 3.0, 1.0]), 5) -> [1, 2]
    """
    return [int(i) for i in top_indices(scores, n) if scores[i] > 0]


def top_indices(scores: np.ndarray, n: int) -> np.ndarray:
    """Positions of the `n` highest scores, highest first, ties in position order: what
    `np.argsort(-scores, kind="stable")[:n]` gives, without sorting every score (at a million papers
    two such sorts took 100 ms of a 290 ms search).

    Example: top_indices(np.array([1.0, 3.0, 3.0, 2.0]), 2) -> [1, 2]
    """
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    if n >= len(scores):
        return np.argsort(-scores, kind="stable")
    kth = np.partition(scores, len(scores) - n)[len(scores) - n]  # the n-th highest
    above = np.flatnonzero(scores > kth)
    ties = np.flatnonzero(scores == kth)[: n - len(above)]
    picked = np.concatenate([above, ties])
    return picked[np.argsort(-scores[picked], kind="stable")]


def _paper_vectors(ids: list[str], chunks: dict[str, tuple[list[str], np.ndarray]]) -> PaperVectors:
    """An exact PaperVectors over `ids` from their fetched chunks."""
    owners = [pid for pid in ids if pid in chunks]
    if not owners:
        return PaperVectors(ChunkVectors((), (), np.zeros((0, 0), dtype=np.float32)), ids)
    matrix = np.concatenate([chunks[pid][1] for pid in owners])
    paper_ids = tuple(pid for pid in owners for _ in chunks[pid][0])
    chunk_ids = tuple(cid for pid in owners for cid in chunks[pid][0])
    return PaperVectors(ChunkVectors(chunk_ids, paper_ids, matrix), ids)
