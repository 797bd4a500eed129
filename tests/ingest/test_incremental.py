"""Re-ingesting after an edit: only the edited abstract is embedded again; the old one is gone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot.app import Paperbot
from bot.settings import Settings
from bot.store import Store
from bot.store.chroma import VectorStore
from bot.types import Chunk

pytestmark = pytest.mark.slow

OLD_SENTENCE = (
    "Its specializations yield linear rates (with a superlinear regime in the well-conditioned "
    "case) for exact, inexact-tabular, and linear function approximation (LFA) updates."
)
NEW_SENTENCE = "The analysis also covers reservoir controllers for glacier melt in alpine hydropower plants."


def _seed_excerpt(seeds_dir: Path, target: Path, abstracts: int) -> list[str]:
    """Copy the header and first `abstracts` paragraphs of a seed file to `target`."""
    paragraphs = (seeds_dir / "004_3c1b7e085bbe6a8e.txt").read_text(encoding="utf-8").split("\n\n")
    kept = [p.strip() for p in paragraphs[: abstracts + 1]]
    target.write_text("\n\n".join(kept) + "\n", encoding="utf-8")
    return kept[1:]


def test_editing_one_abstract_updates_only_that_paper(
    seeds_dir: Path,
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    run_ingest: Callable[..., Any],
) -> None:
    seed_copy = tmp_path / "seeds" / "004_copy.txt"
    seed_copy.parent.mkdir()
    abstracts = _seed_excerpt(seeds_dir, seed_copy, 4)
    assert OLD_SENTENCE in abstracts[2]
    bot = Paperbot(settings_for(tmp_path / "store"))
    first = run_ingest(bot, [seed_copy])
    assert (first.papers, first.added) == (4, 4)
    before = dict(bot.papers())
    old = next(p for p in before.values() if OLD_SENTENCE in p.text)

    seed_copy.write_text(seed_copy.read_text(encoding="utf-8").replace(OLD_SENTENCE, NEW_SENTENCE), encoding="utf-8")
    report = run_ingest(bot, [seed_copy])
    assert (report.papers, report.added, report.updated, report.removed, report.unchanged) == (4, 0, 1, 0, 3)
    after = bot.papers()
    new = next(p for p in after.values() if NEW_SENTENCE in p.text)
    assert old.paper_id not in after and new.paper_id != old.paper_id
    assert not [p for p in after.values() if OLD_SENTENCE in p.text]
    assert new.label == old.label  # the edited paper keeps its name in citations
    assert new.sources[0].line == old.sources[0].line
    for pid, paper in before.items():
        if pid != old.paper_id:
            assert after[pid] == paper  # untouched papers are not rewritten
    assert bot.store.vector_paper_ids() == set(after)  # the old vectors are deleted

    found = bot.search("reservoir controllers for glacier melt in hydropower plants")
    assert found.hits[0].paper.paper_id == new.paper_id
    assert "glacier" in found.hits[0].matched_terms
    gone = bot.search("superlinear regime in the well-conditioned case")
    assert old.paper_id not in {h.paper.paper_id for h in gone.hits}
    assert not [h for h in gone.hits if "superlinear" in h.matched_terms]

    again = run_ingest(bot, [seed_copy])
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 4)


def test_jsonl_edit_is_matched_by_record_id_and_reordering_changes_nothing(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> None:
    rows = [{"id": label, "abstract": text} for label, text in small_abstracts.items()]
    path = tmp_path / "papers.jsonl"

    def write(records: list[dict[str, Any]]) -> None:
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    write(rows)
    bot = Paperbot(settings_for(tmp_path / "store"))
    assert run_ingest(bot, [path]).added == 4

    write(list(reversed(rows)))
    moved = run_ingest(bot, [path])
    assert (moved.added, moved.updated, moved.removed, moved.unchanged) == (0, 0, 0, 4)
    assert {p.source_id: p.sources[0].record for p in bot.papers().values()} == {
        r["id"]: n for n, r in enumerate(reversed(rows), start=1)
    }

    edited = [dict(r) for r in rows]
    edited[1]["abstract"] += " We also release the gauge data."
    write(edited)
    report = run_ingest(bot, [path])
    assert (report.added, report.updated, report.removed, report.unchanged) == (0, 1, 0, 3)
    tide = next(p for p in bot.papers().values() if p.source_id == "TideBench")
    assert tide.text.endswith("We also release the gauge data.")
    assert tide.label == "TideBench"


def test_changing_only_the_title_re_embeds(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> None:
    path = tmp_path / "papers.jsonl"
    record = {"id": "q", "title": "Old title", "abstract": small_abstracts["QuillNet"]}
    path.write_text(json.dumps(record) + "\n")
    bot = Paperbot(settings_for(tmp_path / "store"))
    run_ingest(bot, [path])
    path.write_text(json.dumps({**record, "title": "Reading erased ink"}) + "\n")
    report = run_ingest(bot, [path])
    assert (report.added, report.updated, report.unchanged) == (0, 1, 0)
    (paper,) = bot.papers().values()
    assert paper.title == "Reading erased ink"
    assert bot.search("reading erased ink").hits[0].paper.paper_id == paper.paper_id


def test_chunks_a_killed_run_left_are_replaced_and_a_fresh_ingest_searches_for_no_old_ones(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    small_abstracts: dict[str, str],
    write_abstracts: Callable[..., Path],
    run_ingest: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = write_abstracts(tmp_path / "two.txt", [small_abstracts["QuillNet"], small_abstracts["TideBench"]])
    learned = Paperbot(settings_for(tmp_path / "learn"))
    run_ingest(learned, [path])
    quill = next(p for p in learned.papers().values() if "QuillNet" in p.text)
    # A run killed between its vectors and its registry, whose chunks of QuillNet were cut otherwise
    # (another title): ten chunks under the same paper id, more than this run makes.
    settings = settings_for(tmp_path / "store")
    store = Store.open(settings)
    with store.writing():
        strays = [Chunk(f"{quill.paper_id}-{i}", quill.paper_id, i, "left by a killed run") for i in range(10)]
        unit = np.full((10, 384), 384**-0.5, dtype=np.float32)
        store.vectors.upsert(strays, unit, {quill.paper_id: "QuillNet"})
    store.close()
    stray = strays[-1]
    deleted: list[list[str]] = []
    real = VectorStore.delete_papers
    monkeypatch.setattr(VectorStore, "delete_papers", lambda self, ids: (deleted.append(list(ids)), real(self, ids)))
    bot = Paperbot(settings)
    assert run_ingest(bot, [path]).added == 2
    assert [ids for ids in deleted if ids] == [[quill.paper_id]]  # TideBench had nothing to look for
    kept = bot.store.vectors.paper_chunks([quill.paper_id])[quill.paper_id][0]
    assert stray.chunk_id not in kept and kept == [f"{quill.paper_id}-{i}" for i in range(len(kept))]
