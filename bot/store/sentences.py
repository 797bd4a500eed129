"""Vectors of abstract sentences, kept between processes so that answers need not embed them.

An answer scores every sentence of the papers it weighs against the question (bot.answer.picks);
on a large store most of its time is embedding those sentences. `paperbot ingest --sentences`
embeds every stored abstract's sentences once and keeps their vectors here, in one SQLite file of
the store folder (`StorePaths.sentences`). It is a cache: deleting it loses nothing, answers then
embed the sentences again. A vector is found by the SHA-1 of its text, in a table named for the
model that made it (`sentence_table`), so another model never reads it. A text's vector does not
depend on the texts embedded with it (bot.encoder), so an answer is the same with or without this.
It keeps and finds vectors; it does not embed them (ingest.sentences does).
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bot.settings import EmbedSettings
from bot.store.database import Database

log = logging.getLogger(__name__)

# Texts looked up per statement: SQLite allows 32,766 parameters; fewer keeps each statement short.
_PER_QUERY = 500


def sentence_table(embed: EmbedSettings) -> str:
    """The table for vectors `embed`'s model makes in float32, the precision answers embed in.

    Example: sentence_table(EmbedSettings()) -> 'vectors_3c9e0b1f7a2d5e48' (16 hex digits)
    """
    decisive = f"{embed.model}|{embed.max_word_pieces}|float32"
    return "vectors_" + hashlib.sha256(decisive.encode()).hexdigest()[:16]


def _key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()


class SentenceVectors:
    """The sentence vectors one model made, kept in `path`; opened only when first needed.

    A reader that finds no file, or a file it cannot read, finds nothing (answers embed as before).
    Example: SentenceVectors(path, table).find(["We propose X."]) -> {} before any `add`
    """

    def __init__(self, path: Path, table: str) -> None:
        self.path = path
        self._table = table
        self._database: Database | None = None
        self._lock = threading.Lock()

    def _open(self, create: bool) -> Database | None:
        """The file, opened on first need (None when there is none and `create` is not set). A writer
        finding a file that is not a database (it is only a cache) starts it again."""
        with self._lock:
            if self._database is None and (create or self.path.is_file()):
                try:
                    self._database = self._table_in(Database(self.path))
                except sqlite3.DatabaseError:
                    if not create:
                        raise
                    log.warning("%s is not a database; starting the sentence vectors again", self.path)
                    self.path.unlink(missing_ok=True)
                    self._database = self._table_in(Database(self.path))
            return self._database

    def _table_in(self, database: Database) -> Database:
        try:
            database.script(f"CREATE TABLE IF NOT EXISTS {self._table} (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
        except sqlite3.Error:
            database.close()
            raise
        return database

    def find(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors kept for any of `texts`, by text (float32; the caller checks their length)."""
        try:
            database = self._open(create=False)
        except (sqlite3.Error, OSError):
            return {}  # an unreadable cache is no cache
        if database is None or not texts:
            return {}
        by_key = {_key(t): t for t in dict.fromkeys(texts)}
        keys = list(by_key)
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), _PER_QUERY):
            part = keys[start : start + _PER_QUERY]
            marks = ",".join("?" * len(part))
            try:
                rows = database.rows(f"SELECT key, vector FROM {self._table} WHERE key IN ({marks})", tuple(part))
            except sqlite3.Error:
                return out
            for key, blob in rows:
                out[by_key[bytes(key)]] = np.frombuffer(blob, dtype=np.float32)
        return out

    def missing(self, texts: Sequence[str]) -> list[str]:
        """Those of `texts` (each once, in order) that have no vector kept."""
        have = self.find(texts)
        return [t for t in dict.fromkeys(texts) if t not in have]

    def add(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Keep these texts' vectors (row i for text i), in one transaction: all or none of them."""
        if not texts:
            return
        database = self._open(create=True)
        assert database is not None
        rows = [
            (_key(t), np.ascontiguousarray(v, dtype=np.float32).tobytes()) for t, v in zip(texts, vectors, strict=True)
        ]
        with database.transaction("the sentence vectors cannot be saved") as connection:
            connection.executemany(f"INSERT OR REPLACE INTO {self._table} (key, vector) VALUES (?, ?)", rows)

    def count(self) -> int:
        """How many sentence vectors are kept for this model."""
        try:
            database = self._open(create=False)
            return int(database.rows(f"SELECT COUNT(*) FROM {self._table}")[0][0]) if database else 0
        except sqlite3.Error:
            return 0

    def close(self) -> None:
        with self._lock:
            if self._database is not None:
                self._database.close()
                self._database = None
