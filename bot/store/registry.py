"""The paper registry: every stored paper with its text, label, metadata and sources.

A SQLite file in the store folder, written in transactions so that a crash, a bad file or a full
disk never leaves it half-updated; a store that may only be read is opened read-only. It is the
local mirror of the paper records kept in Chroma (the system of record, embedded or on a server;
bot.store.records keeps the two in line), read by every search without asking Chroma. It knows
nothing of vectors.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from bot.errors import StoreError
from bot.store import failures
from bot.store.database import Database
from bot.store.paths import StorePaths
from bot.store.rows import PaperRows
from bot.types import Paper, Source

_SCHEMA = """
CREATE TABLE IF NOT EXISTS papers (
    paper_id TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL,
    label TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def to_record(paper: Paper) -> dict[str, str]:
    """What is kept of a paper besides its id, as strings: in the registry's row and in the Chroma
    record that is the system of record (bot.store.chroma).

    Example: to_record(paper) -> {"content_hash": "9f2c...", "label": "PenguinCount", "data": '{"text": ...}'}
    """
    data = {
        "text": paper.text,
        "display": paper.display,
        "title": paper.title,
        "authors": list(paper.authors),
        "year": paper.year,
        "venue": paper.venue,
        "url": paper.url,
        "doi": paper.doi,
        "keywords": list(paper.keywords),
        "sources": [s.to_dict() for s in paper.sources],
    }
    return {"content_hash": paper.content_hash, "label": paper.label, "data": json.dumps(data, ensure_ascii=False)}


def from_record(paper_id: str, record: dict[str, Any]) -> Paper:
    """The paper `to_record` made `record` of; KeyError or ValueError when it is not one."""
    data: dict[str, Any] = json.loads(str(record["data"]))
    return Paper(
        paper_id=paper_id,
        text=data["text"],
        display=data["display"],
        label=str(record["label"]),
        content_hash=str(record["content_hash"]),
        sources=tuple(Source.from_dict(s) for s in data["sources"]),
        title=data.get("title"),
        authors=tuple(data.get("authors") or ()),
        year=data.get("year"),
        venue=data.get("venue"),
        url=data.get("url"),
        doi=data.get("doi"),
        keywords=tuple(data.get("keywords") or ()),
    )


def _to_row(paper: Paper) -> tuple[str, str, str, str]:
    record = to_record(paper)
    return paper.paper_id, record["content_hash"], record["label"], record["data"]


def from_row(paper_id: str, content_hash: str, label: str, blob: str) -> Paper:
    """The paper of one registry row (paper_id, content_hash, label, data)."""
    return from_record(paper_id, {"content_hash": content_hash, "label": label, "data": blob})


def _upsert_changed(db: sqlite3.Connection, rows: list[tuple[str, str, str, str]], gone: set[str]) -> int:
    """Write the rows that differ from the stored ones (inside the caller's transaction), taking their
    ids out of `gone`; returns how many were written."""
    if not rows:
        return 0
    marks = ", ".join("?" * len(rows))
    query = f"SELECT paper_id, content_hash, label, data FROM papers WHERE paper_id IN ({marks})"
    stored = set(db.execute(query, [r[0] for r in rows]))
    gone.difference_update(r[0] for r in rows)
    fresh = [r for r in rows if r not in stored]
    db.executemany("INSERT OR REPLACE INTO papers VALUES (?, ?, ?, ?)", fresh)
    return len(fresh)


def _set_meta_and_bump(db: sqlite3.Connection, meta: dict[str, str]) -> None:
    """Set `meta` keys and move the registry's version on (inside the caller's transaction)."""
    db.executemany(
        "INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", list(meta.items())
    )
    db.execute(
        "INSERT INTO meta VALUES ('version', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )


class Registry:
    """Papers by id, persisted in `folder/papers.sqlite`; its connection (`database`) also serves the lists."""

    def __init__(self, folder: Path, read_only: bool = False, in_memory: int = 50_000, recent: int = 4_096) -> None:
        """Open (or create) the registry of the store in `folder`; with `read_only`, open it with
        SQLite's mode=ro and create nothing (a read-only folder without one holds no papers).

        A registry of fewer than `in_memory` papers is read whole; a larger one row by row as asked,
        keeping the `recent` papers read last (bot.store.rows)."""
        path = StorePaths(folder).registry
        try:
            if read_only:
                memory = not path.is_file()
                self.database = Database(path, read_only=True, memory=memory)
                if memory:
                    self.database.script(_SCHEMA + "PRAGMA query_only = ON;")
            else:
                folder.mkdir(parents=True, exist_ok=True)
                self.database = Database(path)
                self.database.script(_SCHEMA, "the paper registry cannot be created")
        except StoreError:
            raise
        except (OSError, sqlite3.Error) as exc:
            clear = failures.translate(exc, folder, "the paper registry cannot be created")
            if clear is not None:
                raise clear from exc
            raise StoreError(
                f"cannot open the paper registry in {folder}: {exc}; check the folder is "
                "writable, or choose another with --store"
            ) from exc
        self.folder = folder
        self._in_memory = in_memory
        self._recent = recent
        self._cache: Mapping[str, Paper] | None = None
        self._cached_version = -1

    def papers(self) -> Mapping[str, Paper]:
        """Every stored paper by id (cached until the registry's version moves, by any process's write):
        a dict, or from `in_memory` papers a PaperRows that reads each paper when asked."""
        version = self.version()
        if self._cache is None or self._cached_version != version:
            if self.count() >= self._in_memory:
                self._cache = PaperRows(self.database, from_row, self._recent)
            else:
                rows = self.database.rows("SELECT paper_id, content_hash, label, data FROM papers")
                self._cache = {row[0]: from_row(*row) for row in rows}
            self._cached_version = version
        return self._cache

    def write(
        self, upsert: Iterable[Paper] = (), delete: Iterable[str] = (), meta: dict[str, str] | None = None
    ) -> None:
        """Add or replace papers, delete others and set `meta` keys, all in one transaction."""
        with self.database.transaction("ingest cannot change its papers") as db:
            db.executemany("DELETE FROM papers WHERE paper_id = ?", [(d,) for d in delete])
            db.executemany("INSERT OR REPLACE INTO papers VALUES (?, ?, ?, ?)", [_to_row(p) for p in upsert])
            _set_meta_and_bump(db, meta or {})
        self._cache = None

    def mirror(self, papers: Iterable[Paper], meta: dict[str, str], page: int = 500) -> tuple[int, int]:
        """Make the registry hold exactly `papers` (read from the iterable a page at a time, so a
        server's 100,000 records are never all in memory), and set `meta`, in one transaction: a
        crash or an error from the iterable leaves the registry as it was. Returns (papers added or
        changed, papers deleted). Example: registry.mirror(from_server, {"records_version": t}) -> (53, 0)
        """
        changed = 0
        with self.database.transaction("the paper registry cannot follow the paper records") as db:
            gone = {str(row[0]) for row in db.execute("SELECT paper_id FROM papers")}
            batch: list[tuple[str, str, str, str]] = []
            for paper in papers:
                batch.append(_to_row(paper))
                if len(batch) >= page:
                    changed += _upsert_changed(db, batch, gone)
                    batch = []
            changed += _upsert_changed(db, batch, gone)
            db.executemany("DELETE FROM papers WHERE paper_id = ?", [(d,) for d in gone])
            _set_meta_and_bump(db, meta)
        self._cache = None
        return changed, len(gone)

    def labels(self) -> dict[str, str]:
        """{paper id: label} of every stored paper, read from their rows' label column alone."""
        return {str(pid): str(label) for pid, label in self.database.rows("SELECT paper_id, label FROM papers")}

    def version(self) -> int:
        """Increases with every write; names the lexical index built from this content."""
        return int(self.get_meta("version") or 0)

    def count(self) -> int:
        """Number of stored papers, without reading them."""
        return int(self.database.rows("SELECT COUNT(*) FROM papers")[0][0])

    def get_meta(self, key: str) -> str | None:
        found = self.database.rows("SELECT value FROM meta WHERE key = ?", (key,))
        return None if not found else str(found[0][0])

    def set_meta(self, key: str, value: str) -> None:
        with self.database.transaction("ingest cannot change it") as db:
            db.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
                (key, value, value),
            )

    def close(self) -> None:
        self.database.close()
