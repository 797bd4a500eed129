"""Reading lists: named lists of papers persisted in the store.

Lists live in two tables of the registry's SQLite file (`papers.sqlite` in the store folder),
reached through the registry's own connection (bot.store.database), so they travel with the
store and survive `ingest --rebuild` (paper ids come from the text). Each entry keeps the label
the paper had when added, to name it even if the paper is later removed from the store. On a store
that may only be read, lists can be read and every change is refused with one message. This
module does not know vectors or search.
"""

from __future__ import annotations

import shlex
import sqlite3
import time

from bot.errors import QueryError, StoreError, UnknownListError, UnknownPaperError
from bot.store import failures
from bot.store.database import Database
from bot.types import Paper

_SCHEMA = """
CREATE TABLE IF NOT EXISTS reading_lists (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS reading_list_items (
    list_name TEXT NOT NULL REFERENCES reading_lists(name) ON DELETE CASCADE,
    paper_id TEXT NOT NULL,
    label TEXT NOT NULL,
    position INTEGER NOT NULL,
    added REAL NOT NULL,
    PRIMARY KEY (list_name, paper_id)
);
"""
_MAX_NAME = 100
_CHANGE = "its reading lists cannot be changed"


def check_name(name: str) -> str:
    """A valid list name, stripped. Example: check_name(" to read ") -> 'to read'"""
    clean = name.strip()
    if not clean or len(clean) > _MAX_NAME or any(ch in clean for ch in "\n\r\t"):
        raise QueryError(f"{name!r} is not a usable list name; use 1 to {_MAX_NAME} characters on one line")
    return clean


def has_tables(database: Database) -> bool:
    """Whether anyone made a list in this store (the lists' tables appear with the first one)."""
    return bool(database.rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'reading_lists'"))


class ReadingLists:
    """Named lists of paper ids in the store's SQLite file, on the registry's connection."""

    def __init__(self, database: Database) -> None:
        self._db = database
        # A read-only store has the lists' tables only if someone made a list before: none otherwise.
        self._tables = True
        try:
            if database.read_only:
                self._tables = has_tables(database)
            else:
                # Deleting a list deletes its entries by cascade, which SQLite does only when asked.
                database.script("PRAGMA foreign_keys = ON;" + _SCHEMA, _CHANGE)
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot open the reading lists in {database.path}: {exc}; check the store folder is writable"
            ) from exc

    def _writable(self) -> None:
        """Refuse a change to the lists of a store that may only be read, before trying it."""
        if self._db.read_only:
            raise failures.read_only(self._db.path.parent, _CHANGE)

    def names(self) -> list[tuple[str, int]]:
        """Every list with its number of papers, by name."""
        if not self._tables:
            return []
        rows = self._db.rows(
            "SELECT l.name, COUNT(i.paper_id) FROM reading_lists l "
            "LEFT JOIN reading_list_items i ON i.list_name = l.name GROUP BY l.name ORDER BY l.name"
        )
        return [(str(name), int(count)) for name, count in rows]

    def entries(self, name: str) -> list[tuple[str, str]]:
        """(paper_id, label when added) of a list, in the order added."""
        name = self._require(name)
        rows = self._db.rows(
            "SELECT paper_id, label FROM reading_list_items WHERE list_name = ? ORDER BY position", (name,)
        )
        return [(str(pid), str(label)) for pid, label in rows]

    def add(self, name: str, papers: list[Paper]) -> int:
        """Append papers to a list (created if new); papers already on it stay where they are."""
        name = check_name(name)
        self._writable()
        now = time.time()
        with self._db.transaction(_CHANGE) as db:
            db.execute("INSERT OR IGNORE INTO reading_lists VALUES (?, ?, ?)", (name, now, now))
            (last,) = db.execute(
                "SELECT COALESCE(MAX(position), 0) FROM reading_list_items WHERE list_name = ?", (name,)
            ).fetchone()
            before = db.total_changes
            db.executemany(
                "INSERT OR IGNORE INTO reading_list_items VALUES (?, ?, ?, ?, ?)",
                [(name, p.paper_id, p.label, last + i, now) for i, p in enumerate(papers, start=1)],
            )
            added = db.total_changes - before
            db.execute("UPDATE reading_lists SET updated = ? WHERE name = ?", (now, name))
        return added

    def remove(self, name: str, paper_ids: list[str]) -> int:
        """Take papers off a list; raises UnknownPaperError naming those not on it."""
        name = check_name(name)
        on_list = {pid for pid, _ in self.entries(name)}
        absent = [pid for pid in paper_ids if pid not in on_list]
        if absent:
            raise not_on_list(name, absent)
        self._writable()
        with self._db.transaction(_CHANGE) as db:
            db.executemany(
                "DELETE FROM reading_list_items WHERE list_name = ? AND paper_id = ?", [(name, p) for p in paper_ids]
            )
            db.execute("UPDATE reading_lists SET updated = ? WHERE name = ?", (time.time(), name))
        return len(paper_ids)

    def follow(self, moved: dict[str, str]) -> int:
        """Point list entries of papers that now have another id (an edited abstract, versions of one
        paper joined) at the new id, in place; an entry whose new id is already on its list goes.
        Returns how many entries moved or went. Example: follow({"p1": "p2"}) -> 1"""
        if not moved or not self._tables or self._db.read_only:
            return 0
        with self._db.transaction(_CHANGE) as db:
            before = db.total_changes
            for old, new in moved.items():
                db.execute("UPDATE OR IGNORE reading_list_items SET paper_id = ? WHERE paper_id = ?", (new, old))
                db.execute("DELETE FROM reading_list_items WHERE paper_id = ?", (old,))
            return db.total_changes - before

    def delete(self, name: str) -> None:
        """Delete a list and its entries (the papers stay in the store)."""
        name = self._require(name)
        self._writable()
        with self._db.transaction(_CHANGE) as db:
            db.execute("DELETE FROM reading_lists WHERE name = ?", (name,))

    def _require(self, name: str) -> str:
        name = check_name(name)
        if not self._tables or not self._db.rows("SELECT 1 FROM reading_lists WHERE name = ?", (name,)):
            known = ", ".join(n for n, _ in self.names()) or "none yet"
            raise UnknownListError(
                f"there is no reading list {name!r} (lists: {known}); "
                f"create it with `paperbot list add {shlex.quote(name)} ID...`"
            )
        return name


def not_on_list(name: str, absent: list[str]) -> UnknownPaperError:
    """The error for papers (as the user named them) that the list `name` does not hold.

    Example: not_on_list("to read", ["ASCPO (pc67b)"]) -> "not on the list 'to read': ASCPO (pc67b); ..."
    """
    return UnknownPaperError(
        f"not on the list {name!r}: {', '.join(absent)}; `paperbot list show {shlex.quote(name)}` shows what is"
    )
