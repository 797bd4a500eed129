"""Updating a store's vector cache after an ingest: the cache of the version before, with the
changed papers' rows replaced, is the file a whole read from Chroma would write."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from bot.app import Paperbot
from bot.settings import Settings
from bot.store import Store, StorePaths, cacheupdate
from bot.store.vectors import ChunkVectors, VectorCache

if TYPE_CHECKING:  # the fixture's class, for annotations only (tests/bot/store/conftest.py)
    from conftest import Ingests


def _vectors(rows: list[tuple[str, str]], seed: int) -> ChunkVectors:
    """ChunkVectors of (chunk id, paper id) rows with random unit vectors of 8 floats."""
    matrix = np.random.default_rng(seed).normal(size=(len(rows), 8)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return ChunkVectors(tuple(r[0] for r in rows), tuple(r[1] for r in rows), matrix)


def _read(cache: VectorCache) -> ChunkVectors:
    with np.load(cache.path, allow_pickle=False) as data:
        return ChunkVectors(tuple(data["chunk_ids"].tolist()), tuple(data["paper_ids"].tolist()), data["matrix"])


def _rows(vectors: ChunkVectors) -> dict[str, tuple[str, bytes]]:
    return {
        c: (p, vectors.matrix[i].tobytes())
        for i, (c, p) in enumerate(zip(vectors.chunk_ids, vectors.paper_ids, strict=True))
    }


@pytest.mark.parametrize("block", [2, 3, 65_536])
def test_an_updated_cache_holds_the_kept_rows_and_the_new_ones_in_paper_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(cacheupdate, "_BLOCK", block)  # blocks of 2 and 3 rows put insertions at their edges
    monkeypatch.setattr(cacheupdate, "_SPAN", block + 2)  # and c's dropped rows end a block early
    rows = [("a-0", "a"), ("a-1", "a"), ("b-0", "b"), ("c-0", "c"), ("c-1", "c"), ("c-2", "c"), ("e-0", "e")]
    before = _vectors(rows, seed=1)
    base = VectorCache(tmp_path, "1-7-abc")
    base.save(before)
    # b edited (one chunk more), c removed, a longer id than any stored, one before and one after all
    added = _vectors([("0-0", "0"), ("b-0", "b"), ("b-1", "b"), ("bbbbbbbbbbbb-0", "bbbbbbbbbbbb"), ("z-0", "z")], 2)
    target = VectorCache(tmp_path, "2-8-abc")

    assert cacheupdate.update(base, target, {"b", "c", "gone"}, added, expected=8)

    after = _read(target)
    assert after.paper_ids == ("0", "a", "a", "b", "b", "bbbbbbbbbbbb", "e", "z")
    assert after.chunk_ids == ("0-0", "a-0", "a-1", "b-0", "b-1", "bbbbbbbbbbbb-0", "e-0", "z-0")
    expected = _rows(before) | _rows(added)
    for chunk in ("c-0", "c-1", "c-2"):
        expected.pop(chunk)
    assert _rows(after) == expected
    assert not base.path.exists()  # the version before is removed, as a save removes it
    by_paper = target.rows(8)
    assert by_paper is not None  # read a paper at a time, as the approximate path reads it
    ids, matrix = by_paper.paper_chunks(["bbbbbbbbbbbb"])["bbbbbbbbbbbb"]
    assert ids == ["bbbbbbbbbbbb-0"]
    assert matrix.tobytes() == added.matrix[3].tobytes()


def test_every_paper_replaced_and_a_count_that_does_not_add_up(tmp_path: Path) -> None:
    base = VectorCache(tmp_path, "1-2-abc")
    base.save(_vectors([("a-0", "a"), ("b-0", "b")], seed=3))
    added = _vectors([("b-0", "b"), ("c-0", "c")], seed=4)

    assert not cacheupdate.update(base, VectorCache(tmp_path, "2-3-abc"), {"a", "b"}, added, expected=3)
    assert [p.name for p in tmp_path.iterdir()] == [base.path.name]  # nothing written, the base kept

    target = VectorCache(tmp_path, "2-2-abc")
    assert cacheupdate.update(base, target, {"a", "b"}, added, expected=2)
    assert _rows(_read(target)) == _rows(added)


def test_a_missing_or_broken_base_is_not_updated(tmp_path: Path) -> None:
    added = _vectors([("a-0", "a")], seed=5)
    base = VectorCache(tmp_path, "1-1-abc")
    assert not cacheupdate.update(base, VectorCache(tmp_path, "2-1-abc"), {"a"}, added, expected=1)
    base.path.write_bytes(b"PK\x03\x04 not a zip")
    assert not cacheupdate.update(base, VectorCache(tmp_path, "2-1-abc"), {"a"}, added, expected=1)
    assert [p.name for p in tmp_path.iterdir()] == [base.path.name]


@pytest.mark.slow
def test_an_ingest_updates_the_cache_to_what_chroma_holds(ingests: Ingests) -> None:
    texts, settings = ingests.texts, ingests.settings  # the first ingest wrote the first cache (read from Chroma)

    def check(abstracts: list[str], header: str = "ICML 2025", **options: Any) -> None:
        _, logged = ingests.again(abstracts, header, **options)
        assert "updated the vector cache" in logged
        store = Store.open(settings)
        caches = StorePaths(settings.store).vector_caches()
        assert len(caches) == 1
        key = VectorCache.key(store.registry.version(), store.vectors.count(), store.fingerprint)
        assert caches[0] == VectorCache(settings.store, key).path
        whole = store.vectors.all_vectors()
        cached = _read(VectorCache(settings.store, key))
        assert (cached.chunk_ids, cached.paper_ids) == (whole.chunk_ids, whole.paper_ids)
        assert cached.matrix.tobytes() == whole.matrix.tobytes()
        assert store.vector_paper_ids() == store.vectors.paper_ids() == set(store.papers())  # read from the cache

    edited = texts[0] + " It also counts seals."
    check([edited, texts[1], texts[2]])  # the first abstract edited (a new id, the old one removed), a third added
    check([edited, texts[2]], prune=True)  # the second pruned away
    # Metadata only (the file's header, so each paper's source): the same rows under the new version.
    check([edited, texts[2]], header="ICML 2026")
    # An ingest writing more chunks than an update reads back reads every vector, as before updates.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("bot.store.store._Changes.LIMIT", 0)
        report, logged = ingests.again([edited, texts[2], texts[3]])
        assert report.added == 1
        assert "updated the vector cache" not in logged
    store = Store.open(settings)
    assert VectorCache.find(settings.store, store.registry.version(), store.fingerprint) == store.vectors.count()


@pytest.mark.slow
def test_the_first_reader_on_the_approximate_path_writes_the_cache_page_by_page(
    seeded_store: Settings, tmp_path: Path, settings_for: Callable[..., Settings], caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copytree(seeded_store.store, tmp_path / "store")
    settings = settings_for(
        tmp_path / "store", storage=seeded_store.storage.model_copy(update={"dense_index": "approximate"})
    )
    for cache in StorePaths(settings.store).vector_caches():
        cache.unlink()
    bot = Paperbot(settings)
    with caplog.at_level(logging.INFO, logger="bot.store.store"):
        assert bot.search("off-policy evaluation", k=3).hits
    assert "reading every chunk vector once" in caplog.text and "page by page" not in caplog.text
    store = bot.store
    key = VectorCache.key(store.registry.version(), store.vectors.count(), store.fingerprint)
    whole, cached = store.vectors.all_vectors(), _read(VectorCache(settings.store, key))
    assert (cached.chunk_ids, cached.paper_ids) == (whole.chunk_ids, whole.paper_ids)
    assert cached.matrix.tobytes() == whole.matrix.tobytes()
