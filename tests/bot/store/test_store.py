"""The store facade: it names every file of a store folder, checks the fingerprint in one place with
one message, keeps the registry and the reading lists on one connection, and keeps the format that
stores built by earlier versions have on disk."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.errors import FingerprintError
from bot.settings import ChunkSettings, EmbedSettings, Settings, load_settings
from bot.store import Store, StorePaths
from bot.store.fingerprint import index_fingerprint
from bot.store.registry import Registry

pytestmark = pytest.mark.slow


@pytest.fixture
def two_papers(tmp_path: Path, write_abstracts: Callable[..., Path], small_abstracts: dict[str, str]) -> Path:
    return write_abstracts(tmp_path / "two.txt", list(small_abstracts.values())[:2])


@pytest.fixture
def small_store(
    tmp_path: Path, settings_for: Callable[..., Settings], two_papers: Path, run_ingest: Callable[..., Any]
) -> Settings:
    """A store of two small abstracts, ingested with the default settings."""
    settings = settings_for(tmp_path / "store")
    assert run_ingest(settings, [two_papers]).added == 2
    return settings


def test_float32_settings_keep_the_fingerprint_earlier_stores_carry() -> None:
    # A store ingested before the store facade existed records this (in papers.sqlite and in the
    # Chroma collection); were it to move, such stores would be refused or re-embedded.
    float32 = EmbedSettings(precision="float32")
    assert index_fingerprint(float32, ChunkSettings()) == "9423db658b1181dd"
    assert index_fingerprint(float32.model_copy(update={"cache_size": 5}), ChunkSettings()) == "9423db658b1181dd"
    assert index_fingerprint(EmbedSettings(precision="bfloat16"), ChunkSettings()) != "9423db658b1181dd"


def test_auto_precision_reads_a_store_in_the_precision_it_was_built_with(
    tmp_path: Path, settings_for: Callable[..., Settings], two_papers: Path, run_ingest: Callable[..., Any]
) -> None:
    built = {}
    for precision in ("float32", "bfloat16"):
        folder = tmp_path / precision
        assert run_ingest(settings_for(folder, embed={"precision": precision}), [two_papers]).added == 2
        store = Store.open(settings_for(folder))  # precision 'auto'
        assert store.embed.precision == precision
        assert store.fingerprint == index_fingerprint(EmbedSettings(precision=precision), ChunkSettings())
        assert len(Paperbot(settings_for(folder)).search("reinforcement learning").hits) == 2
        built[precision] = folder
    # Set explicitly, the other precision is refused until the store is rebuilt.
    with pytest.raises(FingerprintError, match="precision=bfloat16"):
        Paperbot(settings_for(built["float32"], embed={"precision": "bfloat16"})).search("reinforcement learning")


def test_a_new_store_is_built_in_the_precision_paperbot_ingest_measured(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    two_papers: Path,
    small_abstracts: dict[str, str],
    write_abstracts: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`paperbot ingest` (bot.cli.wiring) asks the model which precision is faster here only for a store built
    in none yet; the answer is pinned in the fingerprint, so that later readers and ingests adopt it. The
    answer stands in for the machine's (bot.embedder's measurement is tested in tests/bot/test_embedding.py)."""
    from bot.cli import wiring
    from bot.embedding import CachedEmbedder

    asked: list[str] = []

    def measured(self: CachedEmbedder) -> str:
        asked.append("asked")
        return "bfloat16"

    monkeypatch.setattr(CachedEmbedder, "faster_precision", measured)
    folder = tmp_path / "auto"
    app = Paperbot(settings_for(folder))
    assert app.store.unbuilt_auto()
    assert wiring.ingest(app, [two_papers], progress=lambda done, total: None).added == 2
    assert asked == ["asked"] and app.store.embed.precision == "bfloat16"
    reopened = Paperbot(settings_for(folder))
    assert not reopened.store.unbuilt_auto() and reopened.store.embed.precision == "bfloat16"
    assert reopened.store.fingerprint == index_fingerprint(EmbedSettings(precision="bfloat16"), ChunkSettings())
    more = write_abstracts(tmp_path / "more.txt", list(small_abstracts.values())[2:3])
    assert wiring.ingest(reopened, [more], progress=lambda done, total: None).added == 1
    assert asked == ["asked"]  # built: not asked again
    assert len(reopened.search("reinforcement learning").hits) == 3
    # A precision set in the settings is used as set, and nothing is timed.
    assert not Paperbot(settings_for(tmp_path / "set", embed={"precision": "float32"})).store.unbuilt_auto()


def test_store_paths_name_every_file_of_a_store(small_store: Settings) -> None:
    store = Store.open(small_store)
    store.corpus()  # a reader writes the vector cache beside the store
    paths = StorePaths(small_store.store)
    named = {paths.chroma, paths.registry, paths.lexical, paths.lock, *paths.vector_caches()}
    assert set(small_store.store.iterdir()) == named  # write.pid only exists while an ingest runs
    assert len(paths.vector_caches()) == 1
    key = f"{store.version()}-{store.vectors.count()}-{store.fingerprint[:12]}"
    assert paths.vector_caches()[0] == paths.vector_cache(key)
    with sqlite3.connect(paths.registry) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"papers", "meta"}  # the reading lists' tables appear with the first list
    store.lists.names()
    with sqlite3.connect(paths.registry) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"papers", "meta", "reading_lists", "reading_list_items"}


def test_a_store_built_otherwise_is_refused_by_readers_and_ingest_with_one_message(
    small_store: Settings, two_papers: Path, run_ingest: Callable[..., Any]
) -> None:
    built = Store.open(small_store).fingerprint
    changed = small_store.model_copy(update={"chunk": ChunkSettings(max_tokens=60)})
    store = Store.open(changed)  # opening works, so that `ingest --rebuild` can reset it
    with pytest.raises(FingerprintError) as read:
        store.corpus()
    with pytest.raises(FingerprintError) as ingest:
        run_ingest(changed, [two_papers])
    assert str(read.value) == str(ingest.value)
    message = str(read.value)
    assert f"fingerprint {built}, now " in message and "max_tokens=60" in message
    assert message.endswith("rebuild it with `paperbot ingest --rebuild`, or restore the settings it was built with")
    before = len(Store.open(small_store).papers())
    report = run_ingest(changed, [two_papers], rebuild=True)
    assert report.removed == 0 and report.papers == before  # every stored paper embedded again, none lost
    assert len(Store.open(changed).corpus().papers) == before


def test_a_registry_built_otherwise_is_refused_even_when_the_vectors_match(small_store: Settings) -> None:
    # e.g. the registry of a store whose Chroma server was swapped for one filled with other settings
    built = Store.open(small_store).fingerprint
    Registry(small_store.store).set_meta("fingerprint", "0123456789abcdef")
    with pytest.raises(FingerprintError, match=f"fingerprint 0123456789abcdef, now {built}"):
        Store.open(small_store).corpus()


def test_the_registry_and_the_reading_lists_share_one_connection(small_store: Settings) -> None:
    store = Store.open(small_store)
    label = next(iter(store.papers().values())).label
    assert store.lists.add("to read", list(store.papers().values())[:1]) == 1
    assert store.lists.entries("to read")[0][1] == label
    store.close()  # closing the registry closes the lists' connection: there is only one
    with pytest.raises(sqlite3.ProgrammingError):
        store.lists.names()


def test_papers_another_process_writes_are_seen_without_reopening(small_store: Settings) -> None:
    store = Store.open(small_store)
    first = next(iter(store.papers()))
    other = Registry(small_store.store)  # another process's connection
    other.write(delete=[first])
    assert first not in store.papers() and len(store.papers()) == 1
    assert store.paper_count() == 1


def test_a_store_read_with_other_bm25_settings_rebuilds_and_saves_its_index(
    small_store: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = StorePaths(small_store.store).lexical / "index.json"
    assert (json.loads(index.read_text())["k1"], json.loads(index.read_text())["b"]) == (1.2, 0.75)
    monkeypatch.setenv("PAPERBOT_LEXICAL__K1", "1.6")
    settings = load_settings(store=small_store.store, chroma_url=None)
    store = Store.open(settings)
    try:
        assert store.saved_lexical() is None  # built with k1 1.2: not used
        assert len(store.corpus().papers) == 2
        assert json.loads(index.read_text())["k1"] == 1.6
        assert store.saved_lexical() is not None
    finally:
        store.close()


def test_deleting_papers_removes_every_chunk_of_stored_ones_and_looks_up_the_rest_by_id(
    small_store: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(small_store)
    kept, gone = sorted(store.papers())
    collection = store.vectors._written()
    chunks_of_gone = [cid for cid, meta in _chunks(collection) if meta["paper_id"] == gone]
    assert len(chunks_of_gone) >= 1
    searches: list[Any] = []
    real_delete = type(collection).delete
    monkeypatch.setattr(type(collection), "delete", lambda self, **kw: (searches.append(kw), real_delete(self, **kw)))
    store.vectors.delete_papers(["p0000000000never", "p0000000000other"])  # no chunk stored: no search
    assert searches == []
    store.vectors.delete_papers([gone, "p0000000000never"])
    assert len(searches) == 1 and store.vector_paper_ids() == {kept}
    assert all(meta["paper_id"] == kept for _, meta in _chunks(collection))


def _chunks(collection: Any) -> list[tuple[str, dict[str, Any]]]:
    got = collection.get(include=["metadatas"])
    return list(zip(got["ids"], got["metadatas"], strict=True))
