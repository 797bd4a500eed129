"""A large registry is read row by row (bot.store.rows): the same papers as a dict, less memory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import Paperbot
from bot.errors import StoreError
from bot.settings import Settings
from bot.store.registry import Registry, from_row
from bot.store.rows import PaperRows, read_many
from bot.types import Paper, Source


def paper(n: int) -> Paper:
    return Paper(
        paper_id=f"p{n:012d}",
        text=f"Abstract {n} about topic {n % 3}.",
        display=f"Abstract {n} about topic {n % 3}.",
        label=f"Method{n}",
        content_hash=f"h{n}",
        sources=(Source("papers.jsonl", line=n),),
        title=f"Title {n}" if n % 2 else None,
        year=2020 + n % 5,
    )


@pytest.fixture
def registry(tmp_path: Path) -> Registry:
    """A registry of 7 papers that reads every store of 3 or more row by row, keeping 2 in memory."""
    registry = Registry(tmp_path, in_memory=3, recent=2)
    registry.write(upsert=[paper(n) for n in (4, 1, 6, 0, 3, 5, 2)])
    return registry


def test_a_registry_of_in_memory_papers_or_more_reads_rows_and_gives_what_a_dict_gives(
    registry: Registry, tmp_path: Path
) -> None:
    rows = registry.papers()
    assert isinstance(rows, PaperRows)
    whole = Registry(tmp_path, in_memory=100).papers()  # the same file, read whole
    assert isinstance(whole, dict) and len(whole) == len(rows) == 7
    assert list(rows) == sorted(whole)  # in id order
    assert dict(rows.items()) == whole
    assert list(rows.values()) == [whole[pid] for pid in sorted(whole)]
    assert rows["p000000000003"] == whole["p000000000003"] and "p000000000003" in rows
    assert "p999" not in rows and rows.get("p999") is None
    with pytest.raises(KeyError):
        rows["p999"]


def test_values_are_read_a_page_at_a_time_and_leave_out_papers_written_after_the_version(
    registry: Registry,
) -> None:
    rows = PaperRows(registry.database, from_row, recent=2, page=2)
    registry.write(upsert=[paper(9)])  # written after `rows` was read
    assert [p.paper_id for p in rows.values()] == [f"p{n:012d}" for n in range(7)]
    assert len(rows) == 7 and paper(9).paper_id not in rows


def test_only_the_recent_papers_stay_in_memory_and_a_removed_one_says_ask_again(registry: Registry) -> None:
    rows = registry.papers()
    kept = rows["p000000000001"]
    rows["p000000000002"]
    Registry(registry.folder).write(delete=["p000000000001", "p000000000004"])  # another process prunes
    assert rows["p000000000001"] is kept  # read lately: still in memory
    with pytest.raises(StoreError, match=r"p000000000004 was removed .*ask again"):
        rows["p000000000004"]
    rows["p000000000003"]
    rows["p000000000005"]  # two papers read since: the first is no longer kept
    with pytest.raises(StoreError, match="p000000000001"):
        rows["p000000000001"]
    assert len(registry.papers()) == 5  # a new version: read again


def test_many_papers_are_read_a_page_per_query_in_the_order_asked(registry: Registry, tmp_path: Path) -> None:
    rows = PaperRows(registry.database, from_row, recent=10, page=2)
    whole = Registry(tmp_path, in_memory=100).papers()
    ids = ["p000000000005", "p000000000000", "p000000000003", "p000000000005", "p000000000001"]
    assert read_many(rows, ids) == [whole[pid] for pid in ids] == read_many(whole, ids)
    with pytest.raises(KeyError):
        rows.many(["p000000000000", "p999"])
    Registry(registry.folder).write(delete=["p000000000006"])
    with pytest.raises(StoreError, match="p000000000006 was removed"):
        rows.many(["p000000000002", "p000000000006"])


def test_a_store_read_row_by_row_searches_answers_and_triages_as_one_read_whole(
    seeded_store: Settings, settings_for: Callable[..., Settings]
) -> None:
    whole = Paperbot(seeded_store)
    rows = Paperbot(settings_for(seeded_store.store, storage={"papers_in_memory": 1, "papers_recent": 5}))
    assert isinstance(rows.papers(), PaperRows) and isinstance(whole.papers(), dict)
    question = "How can a policy be evaluated from logged data without running it?"
    found = rows.search(question)
    assert [(h.paper.paper_id, h.score) for h in found.hits] == [
        (h.paper.paper_id, h.score) for h in whole.search(question).hits
    ]
    first, again = rows.ask(question), whole.ask(question)
    assert first.markdown == again.markdown and first.citations == again.citations
    # A follow-up naming a paper the answer did not cite reads every paper's label.
    other = next(
        h.paper.label for h in found.hits if h.paper.paper_id not in {c.paper.paper_id for c in first.citations}
    )
    follow = f"Compare [1] with {other}"
    compared = rows.ask(follow, previous=first)
    assert compared.markdown == whole.ask(follow, previous=again).markdown
    assert len(compared.restricted_to) == 2 and other in compared.restricted_labels
    assert [p.paper.paper_id for p in rows.triage("reinforcement learning").papers] == [
        p.paper.paper_id for p in whole.triage("reinforcement learning").papers
    ]
