"""Chroma is the system of record: every paper's record lives beside its vectors, the registry is a
copy that can be rebuilt from it, and a store from before records is migrated with nothing lost."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings as ChromaSettings

from bot.app import Paperbot
from bot.settings import Settings
from bot.store import Store, StorePaths
from bot.store.records import SYNCED_KEY, mean_vectors
from bot.store.registry import from_record, to_record
from bot.types import Chunk, Paper, Source

pytestmark = pytest.mark.slow


def _chroma(settings: Settings) -> chromadb.ClientAPI:
    # The product's client settings: Chroma shares one system per folder and process, and refuses others.
    same = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    return chromadb.PersistentClient(path=str(StorePaths(settings.store).chroma), settings=same)


@pytest.fixture
def four_papers(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> Settings:
    settings = settings_for(tmp_path / "store")
    assert run_ingest(settings, [write_abstracts(tmp_path / "four.txt", list(small_abstracts.values()))]).added == 4
    return settings


def test_every_paper_is_recorded_in_chroma_beside_its_vectors(four_papers: Settings) -> None:
    store = Store.open(four_papers)
    papers = store.papers()
    records = dict(store.vectors.records())
    assert set(records) == set(papers)
    assert all(from_record(pid, rec) == papers[pid] for pid, rec in records.items())
    assert store.registry.get_meta(SYNCED_KEY) == store.vectors.record_version() is not None


def test_the_registry_is_rebuilt_from_chroma_without_embedding_again(
    four_papers: Settings, run_ingest: Callable[..., Any]
) -> None:
    before = Paperbot(four_papers).papers()
    StorePaths(four_papers.store).registry.unlink()
    report = run_ingest(four_papers, [four_papers.store.parent / "four.txt"])
    assert (report.papers, report.added, report.updated, report.unchanged) == (4, 0, 0, 4)
    assert report.warnings == ()  # nothing re-embedded
    assert Paperbot(four_papers).papers() == before


def test_a_store_from_before_paper_records_is_migrated_on_first_read(four_papers: Settings) -> None:
    expected = Paperbot(four_papers).papers()
    _chroma(four_papers).delete_collection("paperbot-papers")  # as stores were before records
    store = Store.open(four_papers)
    store.registry.database.script(f"DELETE FROM meta WHERE key = '{SYNCED_KEY}'")
    assert store.vectors.record_count() == 0

    reader = Paperbot(four_papers)
    assert reader.search("counting penguins in drone images of colonies").hits[0].paper.label == "PenguinCount"
    migrated = Store.open(four_papers)
    assert {pid: from_record(pid, rec) for pid, rec in migrated.vectors.records()} == expected
    assert migrated.registry.get_meta(SYNCED_KEY) == migrated.vectors.record_version() is not None


def test_a_paper_record_keeps_every_field() -> None:
    source = Source(file="x.jsonl", line=3, record=2, source_id="arXiv:1", collection="c")
    paper = Paper("p1", "Text \u00e9 [1].", "Text", "Label", "hash", (source,), "T", ("A", "B"), 2024, "V", "u")
    record = to_record(paper)
    assert set(record) == {"content_hash", "label", "data"} and all(isinstance(v, str) for v in record.values())
    assert from_record(paper.paper_id, record) == paper


def test_a_records_vector_is_the_unit_mean_of_its_chunks() -> None:
    chunks = [Chunk("a-0", "a", 0, "x"), Chunk("a-1", "a", 1, "y"), Chunk("b-0", "b", 0, "z")]
    matrix = np.array([[1, 0], [0, 1], [0, 2]], dtype=np.float32)
    means = mean_vectors(["a", "b", "c"], chunks, matrix)
    assert np.allclose(means, [[0.70710677, 0.70710677], [0, 1], [0, 0]])
