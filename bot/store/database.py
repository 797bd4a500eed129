"""The store's one SQLite connection, shared by the paper registry and the reading lists.

Both keep their tables in `papers.sqlite`; one connection serves both, and a lock keeps the
threads of one process (the chat server answers and ingests at once) from running statements
inside each other's transactions. A store that may only be read is opened read-only (SQLite's
`mode=ro`), so reading it never tries to write; a write that fails for lack of space or of
permission becomes one clear StoreError (bot.store.failures). It knows no tables; bot.store.registry
and bot.store.lists do.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bot.store import failures

# Seconds a statement waits for another process's write to finish (an ingest commits every few seconds).
_BUSY_TIMEOUT = 10.0


class Database:
    """One SQLite connection usable from several threads, one statement or transaction at a time.

    Opening raises sqlite3.Error or OSError; the registry turns those into a StoreError naming the folder.
    With `read_only` the file is opened with SQLite's mode=ro; with `memory` nothing is opened on disk
    (an empty stand-in for a read-only folder that holds no registry yet).
    Example: Database(Path(".paperbot/papers.sqlite")).rows("SELECT COUNT(*) FROM papers") -> [(53,)]
    """

    def __init__(self, path: Path, read_only: bool = False, memory: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        self._lock = threading.RLock()
        if memory:
            target, uri = ":memory:", False
        elif read_only:
            target, uri = f"{path.absolute().as_uri()}?mode=ro", True
        else:
            target, uri = str(path), False
        self._connection = sqlite3.connect(target, uri=uri, check_same_thread=False, timeout=_BUSY_TIMEOUT)

    @contextmanager
    def _clear_failure(self, what: str) -> Iterator[None]:
        """Turn a full disk or a read-only file into the StoreError that says so."""
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            clear = failures.translate(exc, self.path.parent, what)
            if clear is None:
                raise
            raise clear from exc

    def script(self, sql: str, what: str = "the store cannot be changed") -> None:
        """Run several statements (a schema), committing first as sqlite3 does."""
        with self._lock, self._clear_failure(what):
            self._connection.executescript(sql)

    def rows(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Every row a query returns."""
        with self._lock:
            return self._connection.execute(sql, parameters).fetchall()

    @contextmanager
    def transaction(self, what: str = "the store cannot be changed") -> Iterator[sqlite3.Connection]:
        """The connection for a block of statements committed together (rolled back if it raises).

        `what` names the write for the message when the store turns out to be read-only.
        """
        # The commit happens as the inner block exits, so a full disk at commit time is translated too.
        with self._lock, self._clear_failure(what), self._connection:
            yield self._connection

    def close(self) -> None:
        with self._lock:
            self._connection.close()
