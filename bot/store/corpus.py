"""One store version held in memory for whole-corpus work: papers, BM25 index, chunk vectors.

Search, triage and "more like this" compare a query with every paper, not a top-k sample, so
they read all vectors once per store version (about 35k x 384 floats, ~50 MB, for 8.6k papers)
and score with matrix products. It does not embed text, read files or rank papers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from bot.store.lexical import LexicalIndex
from bot.store.vectors import ChunkVectors
from bot.types import Paper

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class BestChunks:
    """Per paper (in `PaperVectors.paper_ids` order): best chunk similarity and that chunk's id."""

    similarity: np.ndarray  # float32; -1.0 for papers without vectors
    chunk_ids: tuple[str | None, ...]


class DenseVectors(Protocol):
    """What search, triage and "more like this" ask of a store's vectors, every array in `paper_ids`
    order: exact over vectors held in memory (PaperVectors), or through Chroma's index (bot.store.nearest)."""

    paper_ids: list[str]
    position: dict[str, int]
    has_vectors: np.ndarray
    lexical: int  # how many of its best lexical papers a caller adds as candidates (0: every paper is exact)

    def centroids_of(self, positions: Sequence[int] | np.ndarray) -> np.ndarray: ...
    @property
    def chunk_count(self) -> int: ...
    @property
    def dimension(self) -> int: ...
    def similarity(self, queries: np.ndarray, also: Sequence[Sequence[int]] | None = None) -> np.ndarray: ...
    def best_chunks(self, query: np.ndarray, also: Sequence[int] = ()) -> BestChunks: ...
    def spread(self, query: np.ndarray, similarity: np.ndarray) -> float: ...
    def chunks_of(self, position: int) -> np.ndarray: ...
    def passage_match(self, queries: np.ndarray, exclude: int | None = None) -> np.ndarray: ...


class PaperVectors:
    """Chunk vectors sorted by paper; a paper's centroid is worked out when asked for (triage's groups)."""

    lexical = 0  # every paper is scored exactly: no candidates to add

    def __init__(self, chunks: ChunkVectors, paper_ids: list[str]) -> None:
        """`paper_ids` fixes the order of every per-paper array; vectors of other ids are ignored."""
        self.paper_ids = list(paper_ids)
        self.position = {pid: i for i, pid in enumerate(self.paper_ids)}
        rows = np.array([self.position.get(pid, -1) for pid in chunks.paper_ids], dtype=np.int64)
        keep = np.flatnonzero(rows >= 0)
        # Sorting rows by paper lets np.maximum.reduceat take each paper's best chunk in one call.
        keep = keep[np.argsort(rows[keep], kind="stable")]
        self._owner = rows[keep]
        self._chunk_ids = [chunks.chunk_ids[i] for i in keep]
        dimension = chunks.matrix.shape[1] if chunks.matrix.size else 0
        if np.array_equal(keep, np.arange(len(rows))):
            self._matrix = chunks.matrix  # already in paper order (ChunkVectors.gather): no copy
        else:
            self._matrix = chunks.matrix[keep] if len(keep) else np.zeros((0, dimension), dtype=np.float32)
        self.has_vectors = np.zeros(len(self.paper_ids), dtype=bool)
        self.has_vectors[self._owner] = True
        # e.g. owners [0, 0, 1, 3] -> starts [0, 2, 3] for papers 0, 1, 3 (paper 2 has none)
        self._papers_present, self._starts = np.unique(self._owner, return_index=True)
        # Each paper's chunk rows: _first[p] up to _first[p] + _count[p] (count 0: no vectors).
        self._first = np.zeros(len(self.paper_ids), dtype=np.int64)
        self._count = np.zeros(len(self.paper_ids), dtype=np.int64)
        self._first[self._papers_present] = self._starts
        self._count[self._papers_present] = np.diff(np.append(self._starts, len(self._owner)))
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def chunk_count(self) -> int:
        return len(self._chunk_ids)

    def centroids_of(self, positions: Sequence[int] | np.ndarray) -> np.ndarray:
        """The unit-length mean chunk vector of each paper at `positions` (zeros for one without vectors).

        Worked out for these papers only, not held for every paper: at 100,000 papers that matrix
        and its making cost a reader about 450 MB at its peak (docs/scale.md).
        Example: a paper with chunks [1, 0] and [0, 1] -> [0.707, 0.707]
        """
        positions = np.asarray(positions, dtype=np.int64)
        out = np.zeros((len(positions), self._dimension), dtype=np.float32)
        counts = self._count[positions]
        held = np.flatnonzero(counts > 0)
        if not len(held):
            return out
        counts = counts[held]
        starts = np.cumsum(counts) - counts  # where each paper's rows begin among the rows taken
        rows = np.repeat(self._first[positions[held]] - starts, counts) + np.arange(int(counts.sum()))
        sums = np.add.reduceat(self._matrix[rows], starts, axis=0)
        out[held] = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        return out

    def spread(self, query: np.ndarray, similarity: np.ndarray) -> float:
        """The standard deviation of `similarity` (one query's row) over the papers with vectors."""
        present = similarity[self.has_vectors]
        return float(np.std(present)) if len(present) else 0.0

    def best_chunks(self, query: np.ndarray, also: Sequence[int] = ()) -> BestChunks:
        """Cosine similarity of every paper's best chunk to one unit-length query vector (`also`: unused,
        every paper is exact)."""
        similarity = np.full(len(self.paper_ids), -1.0, dtype=np.float32)
        if not self._chunk_ids:
            return BestChunks(similarity, (None,) * len(self.paper_ids))
        sims = self._matrix @ np.asarray(query, dtype=np.float32)
        similarity[self._papers_present] = np.maximum.reduceat(sims, self._starts)
        # The row of each paper's maximum: the first row of its run holding that value (rows run paper by paper).
        rows = np.flatnonzero(sims >= similarity[self._owner])
        owners, first = np.unique(self._owner[rows], return_index=True)
        best_rows = np.full(len(self.paper_ids), -1, dtype=np.int64)
        best_rows[owners] = rows[first]
        ids = self._chunk_ids
        return BestChunks(similarity, tuple(ids[r] if r >= 0 else None for r in best_rows.tolist()))

    def similarity(self, queries: np.ndarray, also: Sequence[Sequence[int]] | None = None) -> np.ndarray:
        """Best-chunk cosine of every paper (columns, `paper_ids` order) for each query vector (rows).

        Exact, by one matrix product: ~5 ms a query for 34k chunks. Papers without vectors get -1.
        `also` is unused: every paper is exact.
        """
        queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        out = np.full((len(queries), len(self.paper_ids)), -1.0, dtype=np.float32)
        if self._chunk_ids and len(queries):
            out[:, self._papers_present] = np.maximum.reduceat(queries @ self._matrix.T, self._starts, axis=1)
        return out

    def chunks_of(self, position: int) -> np.ndarray:
        """The chunk vectors of the paper at `position` (no rows when it has none)."""
        return self._matrix[self._owner == position]

    def passage_match(self, queries: np.ndarray, exclude: int | None = None) -> np.ndarray:
        """For every paper: the mean, over the query passages, of the best similarity among its chunks.

        A paper compared with its own chunks scores 1.0. Papers without vectors (and `exclude`) get -inf.
        Example: two query passages matching a paper's chunks at 0.8 and 0.6 -> 0.7 for that paper.
        """
        out = np.full(len(self.paper_ids), -np.inf, dtype=np.float32)
        queries = np.asarray(queries, dtype=np.float32)
        if not self._chunk_ids or len(queries) == 0:
            return out
        sims = self._matrix @ queries.T  # (chunks, passages)
        out[self._papers_present] = np.maximum.reduceat(sims, self._starts, axis=0).mean(axis=1)
        if exclude is not None:
            out[exclude] = -np.inf
        return out


@dataclass(frozen=True, eq=False)
class Corpus:
    """Everything whole-corpus scoring needs, for registry version `version`."""

    version: int
    papers: Mapping[str, Paper]
    lexical: LexicalIndex
    vectors: DenseVectors
    lexical_rows: np.ndarray  # row of each paper (in `paper_ids` order) in the BM25 index's own order

    @classmethod
    def build(
        cls,
        version: int,
        papers: Mapping[str, Paper],
        lexical: LexicalIndex,
        chunks: ChunkVectors | Callable[[list[str]], DenseVectors],
    ) -> Corpus:
        """Align the papers, the BM25 index and the vectors on one paper order (the index's).

        `chunks`: every chunk vector (the exact path), or what makes the vectors for that order.
        """
        order = [pid for pid in lexical.paper_ids if pid in papers]
        rows = {pid: i for i, pid in enumerate(lexical.paper_ids)}
        lexical_rows = np.array([rows[pid] for pid in order], dtype=np.int64)
        vectors = PaperVectors(chunks, order) if isinstance(chunks, ChunkVectors) else chunks(order)
        return cls(version, papers, lexical, vectors, lexical_rows)

    @property
    def paper_ids(self) -> list[str]:
        """The order of every per-paper array (BM25 scores, similarities, centroids)."""
        return self.vectors.paper_ids

    def position(self, paper_id: str) -> int:
        """Index of a paper in `paper_ids`. Example: position(corpus.paper_ids[3]) -> 3"""
        return self.vectors.position[paper_id]
