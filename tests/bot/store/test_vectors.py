"""Chunk vectors kept in paper order are scored as loaded, without a second copy in memory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bot.store import vectors
from bot.store.corpus import PaperVectors
from bot.store.vectors import ChunkVectors, VectorCache


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def shuffled() -> ChunkVectors:
    rng = np.random.default_rng(3)
    papers = ("pc", "pa", "pb", "pa", "pc", "pa")
    chunks = tuple(f"{p}-{i}" for i, p in enumerate(papers))
    return ChunkVectors(chunks, papers, unit(rng.normal(size=(len(papers), 8))))


def test_gather_orders_rows_by_paper_id_and_keeps_each_papers_chunks_in_order() -> None:
    chunks = shuffled()
    pages = [chunks.matrix[:4], chunks.matrix[4:]]  # as read from Chroma, a page at a time
    ordered = ChunkVectors.gather(chunks.chunk_ids, chunks.paper_ids, pages)
    assert pages == []  # each page let go once placed
    assert ordered.paper_ids == ("pa", "pa", "pa", "pb", "pc", "pc")
    assert ordered.chunk_ids == ("pa-1", "pa-3", "pa-5", "pb-2", "pc-0", "pc-4")
    assert np.array_equal(ordered.matrix, chunks.matrix[[1, 3, 5, 2, 0, 4]])
    again = ChunkVectors.gather(ordered.chunk_ids, ordered.paper_ids, [ordered.matrix])
    assert again.matrix is ordered.matrix  # already in order: nothing copied


def test_vectors_in_paper_order_are_scored_in_place_and_as_any_other_order(tmp_path: Path) -> None:
    chunks = shuffled()
    cache = VectorCache(tmp_path, VectorCache.key(1, 6, "0123456789abcdef"))
    cache.save(ChunkVectors.gather(chunks.chunk_ids, chunks.paper_ids, [chunks.matrix]))
    loaded = cache.load(6)
    assert loaded is not None
    order = ["pa", "pb", "pc"]
    in_place, copied = PaperVectors(loaded, order), PaperVectors(chunks, order)
    assert np.shares_memory(in_place._matrix, loaded.matrix)
    assert not np.shares_memory(copied._matrix, chunks.matrix)
    queries = unit(np.random.default_rng(4).normal(size=(2, 8)))
    assert np.allclose(in_place.similarity(queries), copied.similarity(queries))
    assert in_place.best_chunks(queries[0]).chunk_ids == copied.best_chunks(queries[0]).chunk_ids
    every = np.arange(3)
    assert np.allclose(in_place.centroids_of(every), copied.centroids_of(every))
    # A paper's centroid is its chunks' mean, made unit length; one without vectors gets zeros.
    mean = chunks.matrix[[1, 3, 5]].mean(axis=0)
    assert np.allclose(in_place.centroids_of([2, 0])[1], mean / np.linalg.norm(mean), atol=1e-6)
    fewer = PaperVectors(loaded, ["pa", "pz", "pc"])
    assert np.array_equal(fewer.centroids_of([1]), np.zeros((1, 8), dtype=np.float32))
    assert np.allclose(fewer.centroids_of([2, 0]), in_place.centroids_of([2, 0]), atol=1e-6)
    # A corpus without one of the papers keeps only the others' rows (a copy, then).
    fewer = PaperVectors(loaded, ["pa", "pc"])
    assert fewer.chunk_count == 5 and not np.shares_memory(fewer._matrix, loaded.matrix)


def test_a_cache_read_by_paper_gives_each_papers_chunks_as_chroma_would_without_holding_the_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(5)
    papers = tuple(["pb"] * 3 + ["pa"] * 2 + ["pc"])
    chunks = ChunkVectors(tuple(f"{p}-{i}" for i, p in enumerate(papers)), papers, unit(rng.normal(size=(6, 8))))
    cache = VectorCache(tmp_path, VectorCache.key(2, 6, "0123456789abcdef"))
    cache.save(ChunkVectors.gather(chunks.chunk_ids, chunks.paper_ids, [chunks.matrix]))
    rows = cache.rows(6)
    assert rows is not None
    assert not any(isinstance(v, np.ndarray) and v.size >= 6 * 8 for v in vars(rows).values())  # no matrix held
    monkeypatch.setattr(vectors, "_WINDOW", 2)  # "pb" has more rows than the window: found by search
    got = rows.paper_chunks(["pc", "pb", "missing", "a-much-longer-id-than-any-stored", "pa"])
    assert sorted(got) == ["pa", "pb", "pc"]
    for pid in got:
        rows = [i for i, p in enumerate(papers) if p == pid]
        assert got[pid][0] == [chunks.chunk_ids[i] for i in rows]
        assert np.array_equal(got[pid][1], chunks.matrix[rows])
    assert cache.rows(7) is None  # another vector count: another store version


def test_a_cache_whose_rows_are_not_in_paper_order_is_not_read_by_paper(tmp_path: Path) -> None:
    # Written before rows were kept in paper order: a binary search over its ids would miss chunks.
    chunks = shuffled()
    cache = VectorCache(tmp_path, VectorCache.key(3, 6, "0123456789abcdef"))
    cache.save(chunks)
    assert cache.load(6) is not None and cache.rows(6) is None
    (tmp_path / cache.path.name).write_bytes(b"not a zip file")
    assert cache.rows(6) is None
