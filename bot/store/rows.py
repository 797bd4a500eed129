"""A large registry's papers, read from SQLite as they are asked for instead of all at start.

Holding every paper of 100,000 in memory costs a reader hundreds of MB and seconds at start
(docs/scale.md). From `StoreSettings.papers_in_memory` papers the registry hands out a
PaperRows instead of a dict: the same read-only mapping of paper id -> Paper for one registry
version, holding only the ids and the papers read lately. Iterating its values reads the rows in
pages. It knows no tables beyond the registry's one query shape, and nothing of vectors.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence, ValuesView
from typing import Any

from bot.errors import StoreError
from bot.store.database import Database
from bot.types import Paper

Decode = Callable[..., Paper]  # (paper_id, content_hash, label, data) -> Paper

_COLUMNS = "SELECT paper_id, content_hash, label, data FROM papers"
_IDS_PER_QUERY = 900  # under the 999 variables a statement may bind in SQLite builds before 3.32


class PaperRows(Mapping[str, Paper]):
    """Every paper of one registry version by id, each read from SQLite when first asked for.

    The ids are read at once (in id order, the order iteration keeps); the last `recent` papers
    read stay in memory. A paper written since the version was read is read as it is now; one
    removed since says so (a StoreError: ask again), as a reader of a store under ingest would expect.
    Example: rows["p3f9a2c..."] -> Paper(label='Cal-SPI', ...); len(rows) -> 100000
    """

    def __init__(self, database: Database, decode: Decode, recent: int, page: int = 2_000) -> None:
        self._database = database
        self._decode = decode
        self._recent = max(1, recent)
        self._page = page
        self._ids = [str(row[0]) for row in database.rows("SELECT paper_id FROM papers ORDER BY paper_id")]
        self._known = frozenset(self._ids)
        self._read: OrderedDict[str, Paper] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __contains__(self, paper_id: object) -> bool:
        return paper_id in self._known

    def __getitem__(self, paper_id: str) -> Paper:
        return self.many([paper_id])[0]

    def many(self, paper_ids: Sequence[str]) -> list[Paper]:
        """These papers in this order, those not in memory read a page of ids per query, not one each:
        a "which papers" answer or a triage shows thousands (KeyError for an id not of this version).

        Example: rows.many(["p3f9a2c...", "p0b71d4..."]) -> [Paper(label='Cal-SPI'), Paper(label='CURE')]
        """
        found: dict[str, Paper] = {}
        with self._lock:
            for pid in paper_ids:
                kept = self._read.get(pid)
                if kept is not None:
                    self._read.move_to_end(pid)
                    found[pid] = kept
        wanted = [pid for pid in dict.fromkeys(paper_ids) if pid not in found]
        unknown = next((pid for pid in wanted if pid not in self._known), None)
        if unknown is not None:
            raise KeyError(unknown)
        per_query = min(self._page, _IDS_PER_QUERY)
        for start in range(0, len(wanted), per_query):
            part = wanted[start : start + per_query]
            marks = ", ".join("?" * len(part))
            for row in self._database.rows(f"{_COLUMNS} WHERE paper_id IN ({marks})", tuple(part)):
                paper = self._decode(*row)
                found[paper.paper_id] = paper
                self._keep(paper)
        gone = next((pid for pid in wanted if pid not in found), None)
        if gone is not None:
            raise StoreError(
                f"paper {gone} was removed from the store while it was being read (an ingest with "
                "--prune, or a rebuild); ask again"
            )
        return [found[pid] for pid in paper_ids]

    def _keep(self, paper: Paper) -> None:
        with self._lock:
            self._read[paper.paper_id] = paper
            self._read.move_to_end(paper.paper_id)
            while len(self._read) > self._recent:
                self._read.popitem(last=False)

    def values(self) -> ValuesView[Paper]:
        return _Values(self)

    def items(self) -> ItemsView[str, Paper]:
        return _Items(self)

    def stream(self) -> Iterator[Paper]:
        """Every paper of this version in id order, read a page of rows at a time (none kept)."""
        after = ""
        while True:
            rows: list[tuple[Any, ...]] = self._database.rows(
                f"{_COLUMNS} WHERE paper_id > ? ORDER BY paper_id LIMIT ?", (after, self._page)
            )
            for row in rows:
                if row[0] in self._known:  # not a paper written since this version was read
                    yield self._decode(*row)
            if len(rows) < self._page:
                return
            after = str(rows[-1][0])


class _Values(ValuesView[Paper]):
    """`PaperRows.values()`: papers read in pages, not one query each."""

    _mapping: PaperRows

    def __iter__(self) -> Iterator[Paper]:
        return self._mapping.stream()


class _Items(ItemsView[str, Paper]):
    """`PaperRows.items()`: (paper id, paper) pairs read in pages."""

    _mapping: PaperRows

    def __iter__(self) -> Iterator[tuple[str, Paper]]:
        return ((p.paper_id, p) for p in self._mapping.stream())


def read_many(papers: Mapping[str, Paper], paper_ids: Sequence[str]) -> list[Paper]:
    """`papers[pid]` for each id, in order: a PaperRows reads them in a few queries, a dict is indexed.

    Example: read_many(store.papers(), ids[:500]) -> 500 papers, in one query from a large store
    """
    if isinstance(papers, PaperRows):
        return papers.many(paper_ids)
    return [papers[pid] for pid in paper_ids]
