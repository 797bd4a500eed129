"""Reading a store this process may not write: a cache folder of the user's, and a copy of Chroma's files.

Readers save what they build (the BM25 index, the .npz vector cache) beside the store; for a store
on read-only media, or shared read-only with a group, they save it in the user's cache folder
instead ($XDG_CACHE_HOME/paperbot/stores/KEY, KEY naming the store's path). Chroma's embedded client
writes to its SQLite file whenever it starts (a row in its `acquire_write` table), so it cannot open
such a store at all: when a reader needs Chroma (no vector cache matches the store's version yet),
it opens a copy of the store's `chroma/` folder kept in that cache folder, made once per store
version. This module never writes to the store.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

from bot.errors import StoreError
from bot.store import failures
from bot.store.lock import writer
from bot.store.paths import StorePaths

log = logging.getLogger(__name__)

_CHROMA_FILE = "chroma.sqlite3"
_STAMP = "chroma-source.json"


def cache_root() -> Path:
    """The user's cache folder for paperbot, read when a read-only store is opened (never at import).

    Example: cache_root() -> Path('/home/ana/.cache/paperbot') when XDG_CACHE_HOME is unset
    """
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paperbot"


def cache_folder(store: Path, root: Path | None = None) -> Path:
    """The folder of `root` (default: `cache_root()`) that holds what readers of `store` save.

    Example: cache_folder(Path("/mnt/papers")) -> Path('~/.cache/paperbot/stores/3f9a0c1d22e4b7a1')
    """
    key = hashlib.sha256(str(store.absolute()).encode()).hexdigest()[:16]
    return (root or cache_root()) / "stores" / key


def _signature(chroma: Path) -> list[list[str | int]]:
    """What identifies one state of a Chroma folder: every file with its size and modification time."""
    return sorted(
        [str(f.relative_to(chroma)), f.stat().st_size, f.stat().st_mtime_ns] for f in chroma.rglob("*") if f.is_file()
    )


def chroma_copy(store: Path, cache: Path) -> Path:
    """A copy of the Chroma folder of read-only `store` in `cache`, made now unless the one there is
    of the store's current state; returns the copy's folder.

    The SQLite file is copied through SQLite's backup API (a consistent snapshot even while its
    owner writes), the HNSW files as they are; a copy taken while an ingest ran is refused.
    Example: chroma_copy(Path("/mnt/papers"), cache) -> cache/'chroma'
    """
    source, copy = StorePaths(store).chroma, StorePaths(cache).chroma
    signature = _signature(source)
    if _copied(cache, signature):
        return copy
    busy = writer(store)
    if busy is not None:
        raise StoreError(
            f"an ingest ({busy}) is writing to the store at {store}, which this user may only read; "
            "try again when it finishes"
        )
    tmp: Path | None = None
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=cache, prefix=".chroma-"))
        _copy_tree(source, tmp)
        if _signature(source) != signature:
            raise StoreError(f"the store at {store} changed while it was being read; try again")
        if _copied(cache, signature):  # another process of this user copied it meanwhile
            return copy
        shutil.rmtree(copy, ignore_errors=True)
        tmp.rename(copy)
        tmp = None
        (cache / _STAMP).write_text(json.dumps(signature), encoding="utf-8")
    except (OSError, sqlite3.Error) as exc:
        if failures.is_disk_full(exc):
            elsewhere = "set XDG_CACHE_HOME to a folder on another disk"
            raise failures.disk_full(cache, elsewhere, failures.tree_size(source) + failures.HEADROOM) from exc
        raise StoreError(
            f"the store at {store} is read-only, and its copy in {cache} cannot be written ({exc}); "
            "set XDG_CACHE_HOME to a writable folder"
        ) from exc
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    log.info("copied the Chroma files of read-only store %s to %s", store, copy)
    return copy


def _copied(cache: Path, signature: list[list[str | int]]) -> bool:
    """Whether `cache` holds a copy of the Chroma folder in the state `signature` describes."""
    try:
        stamped = json.loads((cache / _STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return stamped == signature and StorePaths(cache).chroma.is_dir()


def _copy_tree(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        into = target / path.relative_to(source)
        if path.is_dir():
            into.mkdir(parents=True, exist_ok=True)
        elif path.name == _CHROMA_FILE:
            _backup(path, into)
        elif path.is_file():
            shutil.copyfile(path, into)


def _backup(source: Path, target: Path) -> None:
    """Copy a SQLite file through the backup API, reading the source with mode=ro."""
    original = sqlite3.connect(f"{source.absolute().as_uri()}?mode=ro", uri=True)
    try:
        copy = sqlite3.connect(target)
        try:
            original.backup(copy)
        finally:
            copy.close()
    finally:
        original.close()
