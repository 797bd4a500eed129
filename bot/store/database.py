"""The store's one SQLite connection, shared by the paper registry and the reading lists.

Both keep their tables in `papers.sqlite`; one connection serves both, and a lock keeps the
threads of one process (the chat server answers and ingests at once) from running statements
inside each other's transactions. It knows no tables; bot.store.registry and bot.store.lists do.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Seconds a statement waits for another process's write to finish (an ingest commits every few seconds).
_BUSY_TIMEOUT = 10.0


class Database:
    """One SQLite connection usable from several threads, one statement or transaction at a time.

    Opening raises sqlite3.Error or OSError; the registry turns those into a StoreError naming the folder.
    Example: Database(Path(".paperbot/papers.sqlite")).rows("SELECT COUNT(*) FROM papers") -> [(53,)]
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._connection = sqlite3.connect(path, check_same_thread=False, timeout=_BUSY_TIMEOUT)

    def script(self, sql: str) -> None:
        """Run several statements (a schema), committing first as sqlite3 does."""
        with self._lock:
            self._connection.executescript(sql)

    def rows(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Every row a query returns."""
        with self._lock:
            return self._connection.execute(sql, parameters).fetchall()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection for a block of statements committed together (rolled back if it raises)."""
        with self._lock, self._connection:
            yield self._connection

    def close(self) -> None:
        with self._lock:
            self._connection.close()
