"""Registry.mirror: a client brings its registry in line with a server's paper records a page at a
time, in one transaction (bot.store.records.pull)."""

from __future__ import annotations

import dataclasses
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.store.registry import Registry
from bot.types import Paper, Source


def paper(n: int, text: str = "") -> Paper:
    body = text or f"Abstract {n} about topic {n % 3}."
    return Paper(
        paper_id=f"p{n:012d}",
        text=body,
        display=body,
        label=f"Method{n}",
        content_hash=f"h{n}",
        sources=(Source("papers.jsonl", line=n),),
    )


def test_mirror_adds_changes_and_deletes_and_counts_only_what_moved(tmp_path: Path) -> None:
    registry = Registry(tmp_path)
    registry.write(upsert=[paper(n) for n in range(5)], meta={"records_version": "old"})
    edited = dataclasses.replace(paper(2), label="Renamed")
    changed, gone = registry.mirror(iter([paper(0), paper(1), edited, paper(7)]), {"records_version": "new"})
    assert (changed, gone) == (2, 2)  # paper 2 edited, paper 7 new; papers 3 and 4 gone
    papers = registry.papers()
    assert sorted(papers) == [paper(n).paper_id for n in (0, 1, 2, 7)]
    assert papers[edited.paper_id] == edited
    assert registry.get_meta("records_version") == "new"


def test_mirror_holds_a_page_of_papers_not_every_one(tmp_path: Path) -> None:
    registry = Registry(tmp_path)
    alive: list[weakref.ref[Paper]] = []
    most_alive = 0

    def papers() -> Iterator[Paper]:
        nonlocal most_alive
        for n in range(60):
            gc.collect()
            most_alive = max(most_alive, sum(ref() is not None for ref in alive))
            made = paper(n)
            alive.append(weakref.ref(made))
            yield made

    assert registry.mirror(papers(), {}, page=10) == (60, 0)
    assert most_alive <= 10  # the code before this held all 60 records (and 60 papers) at once
    assert len(registry.papers()) == 60


def test_an_error_while_reading_the_records_leaves_the_registry_as_it_was(tmp_path: Path) -> None:
    registry = Registry(tmp_path)
    registry.write(upsert=[paper(n) for n in range(3)], meta={"records_version": "old"})
    before = dict(registry.papers())

    def broken() -> Iterator[Paper]:
        yield paper(0, "changed text")
        yield from (paper(n) for n in range(10, 25))
        raise ConnectionError("the server went away")

    with pytest.raises(ConnectionError):
        registry.mirror(broken(), {"records_version": "new"}, page=4)
    assert dict(registry.papers()) == before
    assert registry.get_meta("records_version") == "old"
